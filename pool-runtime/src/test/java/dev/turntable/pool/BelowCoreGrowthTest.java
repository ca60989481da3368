package dev.turntable.pool;

import static dev.turntable.pool.testing.Waits.awaitIgnoringInterrupts;
import static dev.turntable.pool.testing.Waits.awaitLatch;
import static dev.turntable.pool.testing.Waits.eventually;
import static dev.turntable.pool.testing.Waits.holdDeafToInterrupts;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.turntable.pool.testing.PoolCleanup;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Below its core size with nothing waiting, a {@link TurntableExecutor} grows as a
 * ThreadPoolExecutor does: a task gets a new thread of its own. Only tasks that a departed worker
 * left make a new one queue behind them (SubmissionOrderTest). With task stealing off, a task
 * queued instead would wait behind a busy worker while the new thread sat idle; in a bounded
 * queue it would take a place ThreadPoolExecutor keeps free.
 */
final class BelowCoreGrowthTest {

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();

    /** Starts a long task and returns once it runs; {@code hold} ends it. */
    private static void occupyOneWorker(TurntableExecutor pool, CountDownLatch hold) {
        CountDownLatch running = new CountDownLatch(1);
        pool.execute(() -> {
            running.countDown();
            awaitIgnoringInterrupts(hold);
        });
        awaitLatch(running, "the long task starts");
    }

    /** Threads that wait at the gate set when they were made before they run their worker. */
    private static ThreadFactory gated(AtomicReference<CountDownLatch> gate) {
        return r -> {
            CountDownLatch g = gate.get();
            Thread t = new Thread(() -> {
                holdDeafToInterrupts(g);
                r.run();
            }, "gated");
            t.setDaemon(true);
            return t;
        };
    }

    @Test
    void aRaisedCoreSizeGivesTheNextTaskANewThreadNotAPlaceBehindTheBusyWorker() {
        TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(1).maximumWorkers(2)
                .taskStealing(false).build());
        CountDownLatch hold = cleanup.latch(1);
        occupyOneWorker(pool, hold);
        pool.setCorePoolSize(2); // the queue is empty, so ThreadPoolExecutor starts no thread yet

        CountDownLatch quick = new CountDownLatch(1);
        pool.execute(quick::countDown);
        awaitLatch(quick, "the quick task runs on a new core thread while the long one still holds its worker");
        assertEquals(2, pool.getPoolSize());
    }

    @Test
    void afterCoreThreadsTimedOutTheNextTaskGetsANewThreadNotAPlaceBehindTheBusyWorker() {
        TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(2)
                .keepAlive(20, TimeUnit.MILLISECONDS).allowCoreThreadTimeOut(true).taskStealing(false).build());
        eventually("the idle core threads time out", () -> pool.getPoolSize() == 0);
        CountDownLatch hold = cleanup.latch(1);
        occupyOneWorker(pool, hold);

        CountDownLatch quick = new CountDownLatch(1);
        pool.execute(quick::countDown);
        awaitLatch(quick, "the quick task runs on a second core thread while the long one holds the first");
    }

    @Test
    void aBoundedPoolBelowCoreKeepsItsQueuePlaceForTheNextTask() {
        // The first task's new thread is still starting when the second task comes.
        AtomicReference<CountDownLatch> gate = new AtomicReference<>(new CountDownLatch(0));
        TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(1).queueCapacity(1)
                .keepAlive(20, TimeUnit.MILLISECONDS).allowCoreThreadTimeOut(true).threadFactory(gated(gate)).build());
        eventually("the idle core thread times out", () -> pool.getPoolSize() == 0);
        CountDownLatch closed = cleanup.latch(1);
        gate.set(closed);

        CountDownLatch ran = new CountDownLatch(2);
        pool.execute(ran::countDown); // a new thread's own first task: the queue's one place stays free
        assertDoesNotThrow(() -> pool.execute(ran::countDown), "the second task takes the free place, as in ThreadPoolExecutor");
        closed.countDown();
        awaitLatch(ran, "both tasks run");
    }

    @Test
    void aSingleWorkersNextTaskAfterItsThreadTimedOutCountsOnceWhileItsThreadStarts() {
        AtomicReference<CountDownLatch> gate = new AtomicReference<>(new CountDownLatch(0));
        TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(1)
                .keepAlive(20, TimeUnit.MILLISECONDS).allowCoreThreadTimeOut(true).threadFactory(gated(gate)).build());
        eventually("the idle core thread times out", () -> pool.getPoolSize() == 0);
        CountDownLatch closed = cleanup.latch(1);
        gate.set(closed);
        long before = pool.getTaskCount();

        CountDownLatch ran = new CountDownLatch(1);
        pool.execute(ran::countDown); // nothing waits: a thread of its own, as in ThreadPoolExecutor
        assertEquals(before + 1, pool.getTaskCount(), "one task submitted (a queued task and a taskless new thread read 2)");
        closed.countDown();
        awaitLatch(ran, "the task runs");
    }
}
