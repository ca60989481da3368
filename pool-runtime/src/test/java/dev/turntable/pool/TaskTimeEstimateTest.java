package dev.turntable.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.strategy.Measurement;
import org.junit.jupiter.api.Test;

/**
 * The per-worker task-time estimate (moving average or median of the configured measurement) and
 * the pool-wide mean that strategies fall back on, as {@link TurntableQueue#workers()} and a
 * strategy's {@link dev.turntable.pool.strategy.WorkerView} show them. The collector is driven
 * directly on the test thread, as a worker drives it (start, finish), on slots registered with the
 * queue as its threads' would be, so no pool thread or scheduling is involved.
 *
 * <p>A task's times come from the clock reads the collector is handed: a task "started
 * {@code ran} ago" is given that start as the clock read its worker already had, and its run time
 * is measured from there to the collector's own read at its end, so it is at least {@code ran}
 * (more on a loaded machine, hence the orders-of-magnitude bounds). A stamped offer's wait is the
 * exact difference of the two reads.
 */
class TaskTimeEstimateTest {

    private static final long MS = 1_000_000L;

    /** {@code n} slots registered with the queue, as {@code n} worker threads would have them. */
    private static WorkerSlot[] registerSlots(TurntableQueue queue, int n) {
        WorkerSlot[] slots = new WorkerSlot[n];
        queue.statistics.ensureSlots(n);
        for (int i = 0; i < n; i++) {
            slots[i] = new WorkerSlot(i, 64);
            queue.statistics.adopt(slots[i]);
        }
        queue.slots = slots;
        queue.slotBound = queue.slots.length; // as registration raises it
        return slots;
    }

    /**
     * One task as its worker runs it, ending now: it started {@code ranNanos} ago, after waiting
     * {@code waitedNanos} since its (stamped) offer; {@code waitedNanos} 0: not stamped.
     */
    private static void runTask(TurntableQueue queue, WorkerSlot s, long waitedNanos, long ranNanos) {
        long startNanos = System.nanoTime() - ranNanos;
        queue.statistics.taskStarted(s, waitedNanos == 0 ? 0L : startNanos - waitedNanos, startNanos);
        queue.statistics.taskFinished(s);
    }

    private static long estimate(TurntableQueue queue, int worker) {
        return queue.workers().get(worker).taskTimeEstimateNanos();
    }

    @Test
    void aMedianOverAWindowOfThreeIgnoresOneLongTaskAndFollowsTwo() {
        TurntableQueue queue = TurntableQueue.builder().strategy("FAIR_SHARE").median(true).windowSize(3).build();
        assertTrue(queue.isMedian(), "median(true) from the builder");
        WorkerSlot w = registerSlots(queue, 1)[0];
        runTask(queue, w, 0, MS);
        runTask(queue, w, 0, MS);
        runTask(queue, w, 0, 100 * MS);
        long afterOneLong = estimate(queue, 0);
        // the average of 1, 1 and 100 ms is 34 ms
        assertTrue(afterOneLong >= MS && afterOneLong < 10 * MS,
                "the median of tasks of 1, 1 and 100 ms is about 1 ms: " + afterOneLong + " ns");
        runTask(queue, w, 0, 100 * MS);
        // of the last three (1, 100, 100 ms) two are long; over 64 samples (1, 1, 100, 100) the median would be 1 ms
        long afterTwoLong = estimate(queue, 0);
        assertTrue(afterTwoLong >= 100 * MS,
                "a window of 3 has let the first 1 ms task go: the median is the long tasks', " + afterTwoLong + " ns");
    }

    @Test
    void anAverageOverAWindowOfThreeForgetsALongTaskThreeTasksLater() {
        TurntableQueue queue = TurntableQueue.builder().strategy("FAIR_SHARE").windowSize(3).build();
        WorkerSlot w = registerSlots(queue, 1)[0];
        runTask(queue, w, 0, MS);
        runTask(queue, w, 0, MS);
        runTask(queue, w, 0, 100 * MS);
        long withLong = estimate(queue, 0);
        assertTrue(withLong >= 34 * MS, "the average of 1, 1 and 100 ms: " + withLong + " ns");
        for (int i = 0; i < 3; i++) {
            runTask(queue, w, 0, MS);
        }
        // over 64 samples the 100 ms task would still be in: (5 + 100) / 6 = 17.5 ms
        long after = estimate(queue, 0);
        assertTrue(after >= MS && after < 10 * MS,
                "three 1 ms tasks later the 100 ms one is out of the window: " + after + " ns");
    }

    @Test
    void measuringRunTimeTheEstimateIgnoresWaits() {
        // latency histograms collect wait times although FAIR_SHARE on run time does not need them
        TurntableQueue queue = TurntableQueue.builder().strategy("FAIR_SHARE").measurement(Measurement.RUN_TIME)
                .latencyHistograms(true).build();
        WorkerSlot w = registerSlots(queue, 1)[0];
        for (int i = 0; i < 20; i++) {
            runTask(queue, w, 50 * MS, MS);
        }
        long e = estimate(queue, 0);
        assertTrue(e >= MS && e < 10 * MS, "tasks of 1 ms that waited 50 ms each: a run-time estimate of about 1 ms, "
                + e + " ns");
    }

    @Test
    void measuringWaitTimeTheEstimateIgnoresRunTimes() {
        TurntableQueue queue = TurntableQueue.builder().strategy("FAIR_SHARE").measurement(Measurement.WAIT_TIME).build();
        WorkerSlot w = registerSlots(queue, 1)[0];
        for (int i = 0; i < 20; i++) {
            runTask(queue, w, 50 * MS, MS);
        }
        assertEquals(50 * MS, estimate(queue, 0), "tasks of 1 ms that waited 50 ms each: a wait-time estimate of 50 ms");
    }

    @Test
    void thePoolEstimateIsTheMeanOfTheWorkersThatHaveOne() {
        // wait times: exact, so the mean is too
        TurntableQueue queue = TurntableQueue.builder().strategy("FAIR_SHARE").measurement(Measurement.WAIT_TIME).build();
        WorkerSlot[] w = registerSlots(queue, 3); // the third runs nothing: no estimate, not in the mean
        // the pool estimate is refreshed by a worker every POOL_ESTIMATE_EVERY of its samples
        for (int i = 0; i < StatisticsCollector.POOL_ESTIMATE_EVERY; i++) {
            runTask(queue, w[0], MS, MS);
            runTask(queue, w[1], 3 * MS, MS);
        }
        assertEquals(MS, estimate(queue, 0));
        assertEquals(3 * MS, estimate(queue, 1));
        assertEquals(0, estimate(queue, 2));
        assertEquals(2 * MS, new SlotView(queue, false).poolTaskTimeEstimateNanos(),
                "what a strategy falls back on for a worker without an estimate: the mean of 1 and 3 ms");
    }
}
