package dev.turntable.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * Sampled wait-time measurement: submitters stamp one offer in
 * {@link StatisticsCollector#WAIT_SAMPLE_EVERY} with its offer time, and each stamped task's wait
 * stands for that many tasks in the totals, while the mean per task stays the stamped tasks' mean.
 * The collector is driven directly on the test thread, as a worker drives it (start, finish),
 * with the offer and start times handed in, so every wait is exact.
 */
class WaitTimeSamplingTest {

    private static final long MS = 1_000_000L;

    private final TurntableQueue queue = TurntableQueue.builder().strategy("LEAST_BUSY").build(); // collects wait time
    private final StatisticsCollector collector = queue.statistics;
    private final WorkerSlot slot = new WorkerSlot(0, 64);

    WaitTimeSamplingTest() {
        collector.ensureSlots(1);
        collector.adopt(slot);
        queue.slots = new WorkerSlot[] {slot}; // as the queue's one worker thread would have it
        queue.slotBound = queue.slots.length; // as registration raises it
    }

    /** One task, started now; {@code waitedNanos} since its stamped offer, or 0: not stamped. */
    private void runOne(long waitedNanos) {
        long now = System.nanoTime();
        collector.taskStarted(slot, waitedNanos == 0 ? 0L : now - waitedNanos, now);
        collector.taskFinished(slot);
    }

    @Test
    void eachStampedWaitStandsForTheEightTasksOfItsSample() {
        int stamped = 10;
        for (int i = 0; i < stamped; i++) {
            runOne(MS);
            for (int k = 1; k < StatisticsCollector.WAIT_SAMPLE_EVERY; k++) {
                runOne(0); // the seven offers in eight that submitters do not stamp
            }
        }
        WorkerInfo info = queue.workers().get(0);
        assertEquals(stamped, info.waitTimeSamples(), "the stamped tasks");
        assertEquals(stamped * StatisticsCollector.WAIT_SAMPLE_EVERY * MS, info.waitTimeTotalNanos(),
                "80 tasks that each waited about 1 ms, as estimated from the 10 stamped: 80 ms of waiting");
        assertEquals(MS, info.averageWaitTimeNanos(), "and each task waited 1 ms on average");
    }
}
