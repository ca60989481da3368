package dev.turntable.pool;

import dev.turntable.pool.stats.TaskTimeWindow;

/**
 * A point-in-time picture of one worker slot, for monitoring (JMX tables, tests, logs).
 * Immutable; any thread. Times are in nanoseconds and read {@code 0} when not collected.
 *
 * @param index                 the worker's index, as strategies and weights see it
 * @param threadName            the owner thread's name, or {@code ""} when the slot is free
 * @param state                 {@code AVAILABLE}, {@code DETACHED} (idle, may be exiting) or {@code RETIRED} (free)
 * @param queued                tasks waiting in this worker's queue
 * @param running               tasks it runs now (0 or 1)
 * @param completed             tasks its current thread completed
 * @param lifetimeTasks         tasks dispatched to its current thread
 * @param runTimeTotalNanos     sum of run times of completed tasks
 * @param waitTimeTotalNanos    sum of wait times of started tasks
 * @param cpuTimeNanos          CPU time spent in completed tasks
 * @param taskTimeEstimateNanos the moving average or median of the configured measurement
 */
public record WorkerInfo(int index, String threadName, String state, int queued, int running,
                         long completed, long lifetimeTasks, long runTimeTotalNanos,
                         long waitTimeTotalNanos, long cpuTimeNanos, long taskTimeEstimateNanos) {

    static WorkerInfo of(WorkerSlot s, boolean statisticsCurrent) {
        Thread t = s.thread;
        int st = s.state;
        String state = st == WorkerSlot.ATTACHED ? "AVAILABLE" : st == WorkerSlot.DETACHED ? "DETACHED" : "RETIRED";
        TaskTimeWindow w = s.window;
        return new WorkerInfo(s.index, t == null ? "" : t.getName(), state, s.queue.size(), s.running,
                s.completed, s.lifetimeTasks(),
                statisticsCurrent ? s.runTimeTotalNanos : 0,
                statisticsCurrent ? s.waitTimeTotalNanos : 0,
                statisticsCurrent ? s.cpuTimeNanos : 0,
                w == null || !statisticsCurrent ? 0 : w.estimateNanos());
    }
}
