package dev.turntable.pool;

import static dev.turntable.pool.testing.Waits.eventually;
import static java.util.concurrent.TimeUnit.MINUTES;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.testing.CountingThreadFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Tag;

/**
 * Bursts far larger than the workers' own queues, whose overflow all passes through the shared
 * queue: {@code shutdownNow()} in the middle of one returns exactly the tasks that did not run,
 * none of them also run, and leaves in the queue only the tasks of submits still under way,
 * which are then rejected, as a plain pool does.
 */
@Tag("stress")
class OverflowBurstTest {

    private static final int SUBMITTERS = 3;
    private static final int PER_SUBMITTER = 40_000;
    private static final int BURSTS = 30;

    private final CountingThreadFactory threads = new CountingThreadFactory("overflow");
    private TurntableExecutor pool;

    @AfterEach
    void stopPool() throws InterruptedException {
        if (pool != null && !pool.isTerminated()) {
            pool.shutdownNow();
            pool.awaitTermination(1, MINUTES);
        }
    }

    /** A task that counts its run in {@code ran[id]}. */
    private static final class Numbered implements Runnable {
        final int id;
        final AtomicIntegerArray ran;
        final LongAdder runs;

        Numbered(int id, AtomicIntegerArray ran, LongAdder runs) {
            this.id = id;
            this.ran = ran;
            this.runs = runs;
        }

        @Override
        public void run() {
            ran.incrementAndGet(id);
            runs.increment();
        }
    }

    @Test
    void shutdownNowDuringAnOverflowingBurstReturnsExactlyTheUnrunTasks() throws Exception {
        int cutShort = 0;
        for (int burst = 0; burst < BURSTS; burst++) {
            if (burstCutShortBy(burst) > 0) {
                cutShort++;
            }
        }
        // The main thread may lose its CPU long enough for the workers to run a whole burst
        // (two vCPUs, five other threads): most bursts, not all, are cut short.
        assertTrue(cutShort >= BURSTS / 4, "only " + cutShort + " of " + BURSTS + " bursts were cut short");
    }

    /** One burst cut short by shutdownNow: checks it, returns how many tasks shutdownNow returned. */
    private int burstCutShortBy(int burst) throws Exception {
        pool = TurntableExecutor.builder().workers(2).workerQueueCapacity(16).threadFactory(threads).build();
        int total = SUBMITTERS * PER_SUBMITTER;
        AtomicIntegerArray ran = new AtomicIntegerArray(total);
        AtomicIntegerArray accepted = new AtomicIntegerArray(total);
        LongAdder runs = new LongAdder();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> submitters = new ArrayList<>();
        for (int s = 0; s < SUBMITTERS; s++) {
            int base = s * PER_SUBMITTER;
            Thread t = new Thread(() -> {
                try {
                    start.await();
                    for (int i = 0; i < PER_SUBMITTER; i++) {
                        try {
                            pool.execute(new Numbered(base + i, ran, runs));
                            accepted.set(base + i, 1);
                        } catch (RejectedExecutionException shutDown) {
                            return;
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "submitter-" + s);
            submitters.add(t);
            t.start();
        }
        // Both workers held, so that the burst overflows their queues of 16 into the shared
        // queue, where most of it waits when shutdownNow comes.
        CountDownLatch gate = new CountDownLatch(1);
        CountDownLatch held = new CountDownLatch(2);
        for (int w = 0; w < 2; w++) {
            pool.execute(() -> {
                held.countDown();
                try {
                    gate.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        held.await(); // both workers in a held task (one steals the other's if both went to one)
        start.countDown();
        eventually("the burst has overflowed the workers' queues", () -> pool.getQueue().size() >= total / 4);
        gate.countDown();
        // Cut the burst short while the workers are busy taking from the shared queue: spun
        // for, as a poll interval would let them run the whole burst first.
        long deadline = System.nanoTime() + MINUTES.toNanos(1);
        while (runs.sum() < 100) {
            assertTrue(System.nanoTime() < deadline, "the workers ran " + runs.sum() + " tasks in a minute");
            Thread.onSpinWait();
        }
        List<Runnable> unrun = pool.shutdownNow();
        // What the queue holds once shutdownNow has returned: only the tasks of submits still
        // under way, which ThreadPoolExecutor's own re-check takes back and rejects (a submit
        // that saw the pool running and offered after the drain; a plain pool has the same
        // instant). Nothing a worker or a move left behind.
        Object[] atReturn = pool.getQueue().toArray();
        for (Thread t : submitters) {
            t.join(MINUTES.toMillis(1));
        }
        assertTrue(pool.awaitTermination(1, MINUTES));
        assertNull(failure.get());
        for (Object r : atReturn) {
            int id = ((Numbered) r).id;
            assertEquals(0, accepted.get(id), "burst " + burst + ": task " + id + " was in the queue after shutdownNow returned,"
                    + " and its submit was accepted");
        }
        assertTrue(pool.getQueue().isEmpty(), "burst " + burst + ": the queue is empty once the submits are over");

        int[] returned = new int[total];
        for (Runnable r : unrun) {
            returned[((Numbered) r).id]++;
        }
        int acceptedCount = 0;
        for (int id = 0; id < total; id++) {
            if (accepted.get(id) == 1) {
                acceptedCount++;
                assertEquals(1, ran.get(id) + returned[id],
                        "task " + id + " ran " + ran.get(id) + " time(s) and was returned " + returned[id]);
            } else {
                assertEquals(0, ran.get(id) + returned[id], "task " + id + " was refused");
            }
        }
        assertEquals(acceptedCount, runs.sum() + unrun.size());
        assertEquals(2 + runs.sum(), pool.getCompletedTaskCount(), "the two held tasks and every task that ran");
        return unrun.size();
    }
}
