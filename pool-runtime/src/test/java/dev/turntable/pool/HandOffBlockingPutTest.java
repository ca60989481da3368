package dev.turntable.pool;

import static dev.turntable.pool.testing.BlockingPuts.BLOCK;
import static dev.turntable.pool.testing.BlockingPuts.blockedSubmitter;
import static dev.turntable.pool.testing.BlockingPuts.holdTheOnlyWorker;
import static dev.turntable.pool.testing.Waits.awaitGone;
import static dev.turntable.pool.testing.Waits.awaitLatch;
import static dev.turntable.pool.testing.Waits.awaitTerminated;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.testing.PoolCleanup;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A hand-off pool at its maximum whose rejection handler blocks the submitter until a worker is
 * free ({@code getQueue().put(r)}, as applications write back-pressure for a
 * {@code SynchronousQueue} pool): every task runs exactly once, a blocked {@code put} goes on
 * once a worker comes free, and a timed {@code offer} with no worker coming gives up in time.
 */
final class HandOffBlockingPutTest {

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();

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
        CountDownLatch gate = cleanup.latch(1);
        TurntableExecutor pool = busyPool(gate);
        assertFalse(pool.getQueue().offer(() -> { }, 20, TimeUnit.MILLISECONDS), "no worker came: gives up");

        CountDownLatch ran = new CountDownLatch(1);
        Thread submitter = new Thread(() -> pool.execute(ran::countDown), "blocked-submitter");
        submitter.start();
        gate.countDown(); // the worker comes free: the blocked put hands it the task
        awaitLatch(ran, "the blocked submitter's task ran");
        awaitGone(submitter);
    }

    /** One worker, held busy by a task until {@code gate} opens. */
    private TurntableExecutor busyPool(CountDownLatch gate) {
        TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(1).handOff()
                .rejectionHandler(BLOCK).build());
        holdTheOnlyWorker(pool, gate);
        return pool;
    }

    @Test
    void shutdownNowReturnsTheTaskOfAWaitingPutAndThePutReturns() throws Exception {
        CountDownLatch gate = cleanup.latch(1);
        TurntableExecutor pool = busyPool(gate);
        AtomicBoolean ran = new AtomicBoolean();
        Runnable task = () -> ran.set(true);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread submitter = blockedSubmitter(pool, task, failure);
        assertEquals(1, pool.getQueue().size(), "the waiting put's task counts as queued");

        List<Runnable> unrun = pool.shutdownNow();
        assertEquals(List.of(task), unrun, "shutdownNow hands back the task its submitter waited with");
        awaitGone(submitter); // as a SynchronousQueue's put returns once polled
        assertEquals(null, failure.get());
        gate.countDown();
        awaitTerminated(pool);
        assertFalse(ran.get(), "a task handed back by shutdownNow never runs");
    }

    @Test
    void shutdownWhileAPutWaitsRunsItsTaskAndTheSubmitterGoesOn() throws Exception {
        CountDownLatch gate = cleanup.latch(1);
        TurntableExecutor pool = busyPool(gate);
        CountDownLatch ran = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread submitter = blockedSubmitter(pool, ran::countDown, failure);

        pool.shutdown();
        gate.countDown(); // the worker comes free: it takes the waiting task before it may leave
        awaitLatch(ran, "the task its submitter was waiting with ran");
        awaitGone(submitter);
        assertEquals(null, failure.get());
        awaitTerminated(pool);
        assertEquals(2, pool.getCompletedTaskCount());
    }

    @Test
    void aForeignPollTakesAWaitingPutsTask() throws Exception {
        CountDownLatch gate = cleanup.latch(1);
        TurntableExecutor pool = busyPool(gate);
        AtomicBoolean ran = new AtomicBoolean();
        Runnable task = () -> ran.set(true);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread submitter = blockedSubmitter(pool, task, failure);

        assertEquals(task, pool.getQueue().poll(), "as DiscardOldestPolicy would, through a SynchronousQueue");
        awaitGone(submitter);
        assertEquals(0, pool.getQueue().size());
        gate.countDown();
        pool.shutdown();
        awaitTerminated(pool);
        assertFalse(ran.get(), "polled away: never run");
    }

    @Test
    void anInterruptedPutThrowsAndItsTaskNeverRuns() throws Exception {
        CountDownLatch gate = cleanup.latch(1);
        TurntableExecutor pool = busyPool(gate);
        AtomicBoolean ran = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread submitter = blockedSubmitter(pool, () -> ran.set(true), failure);

        submitter.interrupt();
        awaitGone(submitter);
        assertTrue(failure.get() instanceof RejectedExecutionException, "the handler's rejection: " + failure.get());
        assertTrue(failure.get().getCause() instanceof InterruptedException);
        assertEquals(0, pool.getQueue().size(), "the put that gave up no longer counts");
        gate.countDown();
        CountDownLatch after = new CountDownLatch(1);
        pool.execute(after::countDown);
        awaitLatch(after, "the worker is free again");
        pool.shutdown();
        awaitTerminated(pool);
        assertFalse(ran.get(), "the interrupted put's task never runs");
    }
}
