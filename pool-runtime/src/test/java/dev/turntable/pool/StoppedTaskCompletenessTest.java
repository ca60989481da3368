package dev.turntable.pool;

import static dev.turntable.pool.testing.Waits.awaitLatch;
import static dev.turntable.pool.testing.Waits.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.testing.CountingThreadFactory;
import dev.turntable.pool.testing.ManualTicker;
import dev.turntable.pool.testing.PoolCleanup;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A restartable task that rebalancing stopped is asked whether it is complete with the stop's
 * interrupt cleared: the interrupt was for the task's run, and an {@code isComplete()} that does
 * anything interruptible must not fail on it (a failure counts as complete, and the task would
 * never run again).
 */
final class StoppedTaskCompletenessTest {

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();

    /**
     * Works in small steps until its gate opens, and returns at the first step that finds its
     * thread interrupted, leaving the flag set (as {@link RestartableTask}'s javadoc allows).
     * Its progress is read under a lock, interruptibly.
     */
    static final class Stepwise implements RestartableTask {
        final CountDownLatch gate;
        final AtomicReference<Stepwise> stopped;
        final CountDownLatch sawStop;
        final ReentrantLock progressLock = new ReentrantLock();
        final AtomicInteger runs = new AtomicInteger();
        volatile boolean complete;
        volatile Boolean askedWhileInterrupted;

        Stepwise(CountDownLatch gate, AtomicReference<Stepwise> stopped, CountDownLatch sawStop) {
            this.gate = gate;
            this.stopped = stopped;
            this.sawStop = sawStop;
        }

        @Override
        public void run() {
            runs.incrementAndGet();
            while (gate.getCount() > 0) {
                if (Thread.currentThread().isInterrupted()) {
                    complete = false;
                    if (stopped.compareAndSet(null, this)) {
                        sawStop.countDown();
                    }
                    return;
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1)); // one step of work
            }
            complete = true;
        }

        @Override
        public boolean isComplete() {
            if (stopped.get() == this && askedWhileInterrupted == null) {
                askedWhileInterrupted = Thread.currentThread().isInterrupted();
            }
            try {
                progressLock.lockInterruptibly();
            } catch (InterruptedException e) {
                throw new IllegalStateException("interrupted while reading progress", e);
            }
            try {
                return complete;
            } finally {
                progressLock.unlock();
            }
        }
    }

    @Test
    void aStoppedTaskIsAskedWithoutTheStopsInterruptAndRunsAgainToCompletion() throws Exception {
        ManualTicker ticker = new ManualTicker();
        TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(4).ticker(ticker)
                .taskClasses("interactive:25;batch:75", "interactive-.*:interactive;batch-.*:batch")
                .rebalanceThreshold(20).rebalanceMinimumDurationMillis(1_000)
                .threadFactory(new CountingThreadFactory("stepwise")).build());
        TurntableQueue q = pool.getTurntableQueue();
        CountDownLatch gate = cleanup.latch(1);
        AtomicReference<Stepwise> stopped = new AtomicReference<>();
        CountDownLatch sawStop = new CountDownLatch(1);
        List<Stepwise> batch = new ArrayList<>();
        for (int k = 0; k < 4; k++) {
            batch.add(new Stepwise(gate, stopped, sawStop));
        }
        TurntableExecutorClassesTest.submitAs("batch-1", pool, new ArrayList<>(batch));
        eventually("batch runs on all four workers",
                () -> pool.getActiveCount() == 4 && batch.stream().allMatch(t -> t.runs.get() == 1));
        AtomicInteger interactiveRuns = new AtomicInteger();
        TurntableExecutorClassesTest.submitAs("interactive-1", pool, List.of(interactiveRuns::incrementAndGet));
        q.housekeep(); // over the threshold: the clock starts
        ticker.advanceMillis(1_001);
        q.housekeep(); // for the minimum duration: one batch task is stopped
        awaitLatch(sawStop, "one batch task stopped");
        Stepwise t = stopped.get();
        eventually("its worker asked whether it is complete", () -> t.askedWhileInterrupted != null);
        gate.countDown();
        pool.shutdown();
        assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS), "terminated");
        assertFalse(t.askedWhileInterrupted, "asked with the stop's interrupt still set");
        assertEquals(2, t.runs.get(), "the stopped task ran again");
        assertTrue(t.complete, "to completion");
        assertEquals(1, q.getRestartedTaskCount());
        assertEquals(1, interactiveRuns.get());
    }
}
