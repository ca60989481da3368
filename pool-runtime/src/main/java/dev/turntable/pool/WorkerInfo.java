package dev.turntable.pool;

import dev.turntable.pool.stats.TaskTimeWindow;

/**
 * A point-in-time picture of one worker slot, for monitoring (JMX tables, tests, logs).
 * Immutable; any thread. Times are in nanoseconds and read {@code 0} when not collected.
 *
 * @param index                 the worker's index, as strategies and weights see it
 * @param threadName            the owner thread's name, or {@code ""} when the slot is free
 * @param state                 {@code AVAILABLE}; {@code DRAINING}: takes nothing new, on its way out
 *                              (its thread left the queue idle and may be exiting); {@code RETIRED}: a
 *                              free slot, no thread (the contract's names; {@code STUCK} comes with heartbeats)
 * @param queued                tasks waiting in this worker's queue
 * @param running               tasks it runs now (0 or 1)
 * @param completed             tasks its current thread completed
 * @param lifetimeTasks         tasks dispatched to its current thread
 * @param runTimeTotalNanos     sum of run times of completed tasks
 * @param runTimeSamples        tasks whose run time is in that sum (since the last reset or switch)
 * @param waitTimeTotalNanos    estimated sum of wait times of started tasks (from a 1-in-8 sample)
 * @param waitTimeSamples       sampled tasks behind that estimate
 * @param cpuTimeNanos          CPU time spent in completed tasks
 * @param taskTimeEstimateNanos the moving average or median of the configured measurement
 */
public record WorkerInfo(int index, String threadName, String state, int queued, int running,
                         long completed, long lifetimeTasks, long runTimeTotalNanos, long runTimeSamples,
                         long waitTimeTotalNanos, long waitTimeSamples, long cpuTimeNanos,
                         long taskTimeEstimateNanos) {

    /** Mean run time of the tasks behind {@link #runTimeTotalNanos}, or -1 with no sample. */
    public long averageRunTimeNanos() {
        return runTimeSamples == 0 ? -1 : runTimeTotalNanos / runTimeSamples;
    }

    /** Mean wait of the sampled tasks, or -1 with no sample. */
    public long averageWaitTimeNanos() {
        return waitTimeSamples == 0 ? -1 : waitTimeTotalNanos / (waitTimeSamples * StatisticsCollector.WAIT_SAMPLE_EVERY);
    }

    static WorkerInfo of(WorkerSlot s, boolean statisticsCurrent) {
        Thread t = s.thread;
        int st = s.state;
        String state = st == WorkerSlot.ATTACHED ? "AVAILABLE" : st == WorkerSlot.DETACHED ? "DRAINING" : "RETIRED";
        TaskTimeWindow w = s.window;
        return new WorkerInfo(s.index, t == null ? "" : t.getName(), state, s.queue.size(), s.running,
                s.completed, s.lifetimeTasks(),
                statisticsCurrent ? s.runTimeTotalNanos : 0,
                statisticsCurrent ? s.runTimeSamples : 0,
                statisticsCurrent ? s.waitTimeTotalNanos : 0,
                statisticsCurrent ? s.waitTimeSamples : 0,
                statisticsCurrent ? s.cpuTimeNanos : 0,
                w == null || !statisticsCurrent ? 0 : w.estimateNanos());
    }
}
