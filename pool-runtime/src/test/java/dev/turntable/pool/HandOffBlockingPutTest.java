package dev.turntable.pool;

import static dev.turntable.pool.testing.Waits.awaitLatch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.testing.Blocker;
import dev.turntable.pool.testing.PoolCleanup;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A hand-off pool at its maximum whose rejection handler blocks the submitter until a worker is
 * free ({@code getQueue().put(r)}, as applications write back-pressure for a
 * {@code SynchronousQueue} pool): every task runs exactly once, a blocked {@code put} goes on
 * once a worker comes free, and a timed {@code offer} with no worker coming gives up in time.
 */
final class HandOffBlockingPutTest {

    private final PoolCleanup cleanup = new PoolCleanup();

    @AfterEach
    void stopPools() {
        cleanup.close();
    }

    private static final RejectedExecutionHandler BLOCK = (r, executor) -> {
        try {
            executor.getQueue().put(r);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RejectedExecutionException(e);
        }
    };

    @Test
    void everyTaskRunsOnceThroughABlockingHandler() throws Exception {
        TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(2).handOff()
                .rejectionHandler(BLOCK).build());
        int n = 5_000;
        AtomicIntegerArray runs = new AtomicIntegerArray(n);
        Thread[] producers = new Thread[2];
        for (int p = 0; p < producers.length; p++) {
            int from = p * n / 2;
            producers[p] = new Thread(() -> {
                for (int i = from; i < from + n / 2; i++) {
                    int id = i;
                    pool.execute(() -> runs.incrementAndGet(id));
                }
            }, "producer-" + p);
            producers[p].start();
        }
        for (Thread t : producers) {
            t.join(TimeUnit.SECONDS.toMillis(60));
            assertFalse(t.isAlive(), t.getName() + " blocked for good");
        }
        pool.shutdown();
        assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
        for (int i = 0; i < n; i++) {
            assertEquals(1, runs.get(i), "task " + i);
        }
        assertEquals(n, pool.getCompletedTaskCount());
    }

    @Test
    void aBlockedPutGoesOnOnceTheWorkerIsFreeAndATimedOfferGivesUp() throws Exception {
        TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(1).handOff()
                .rejectionHandler(BLOCK).build());
        CountDownLatch gate = cleanup.latch(1);
        CountDownLatch busy = new CountDownLatch(1);
        pool.execute(new Blocker("holds the only worker", busy, gate));
        awaitLatch(busy, "the only worker is busy");
        assertFalse(pool.getQueue().offer(() -> { }, 20, TimeUnit.MILLISECONDS), "no worker came: gives up");

        CountDownLatch ran = new CountDownLatch(1);
        Thread submitter = new Thread(() -> pool.execute(ran::countDown), "blocked-submitter");
        submitter.start();
        gate.countDown(); // the worker comes free: the blocked put hands it the task
        awaitLatch(ran, "the blocked submitter's task ran");
        submitter.join(TimeUnit.SECONDS.toMillis(30));
        assertFalse(submitter.isAlive());
    }
}
