package dev.turntable.pool;

import dev.turntable.pool.stats.TaskTimeWindow;
import dev.turntable.pool.strategy.Statistic;
import java.util.Set;

/**
 * A point-in-time picture of one worker slot, for monitoring (JMX tables, tests, logs).
 * Immutable; any thread. Times are in nanoseconds and read {@code 0} when not collected (not
 * needed by the active strategy or the histograms: see {@link TurntableQueue#collectedStatistics}),
 * even if the worker measured them under an earlier strategy; a time collected again starts
 * from zero.
 *
 * @param index                 the worker's index, as strategies and weights see it
 * @param threadName            the owner thread's name, or {@code ""} when the slot is free
 * @param state                 {@code AVAILABLE}; {@code DRAINING}: takes nothing new, on its way out
 *                              (it reached its lifetime limit or was recycled, or its thread left the
 *                              queue idle and may be exiting); {@code STUCK}: inside one task longer
 *                              than the heartbeat timeout, not chosen until it finishes;
 *                              {@code RETIRED}: a free slot, no thread
 * @param queued                tasks waiting in this worker's queue
 * @param running               tasks it runs now (0 or 1)
 * @param completed             tasks its current thread completed
 * @param lifetimeTasks         tasks dispatched to its current thread; 0 for a free slot, as in
 *                              {@link TurntableQueue#workerLifetimes()}
 * @param runTimeTotalNanos     sum of run times of completed tasks (while tasks average under 2 µs,
 *                              estimated from a 1-in-16 sample: each timed task adds its own time
 *                              and 15 times the recent average)
 * @param runTimeSamples        tasks whose run time is in that sum, counting the tasks a timed
 *                              one stands for (since the last reset or switch)
 * @param waitTimeTotalNanos    estimated sum of wait times of started tasks (from a 1-in-8 sample)
 * @param waitTimeSamples       sampled tasks behind that estimate
 * @param cpuTimeNanos          CPU time spent in completed tasks
 * @param taskTimeEstimateNanos the moving average or median of the configured measurement
 * @param lastHeartbeatNanosAgo time since the housekeeper last saw the worker idle or in a new task
 *                              (it looks every 100 ms), or -1 before it has looked
 */
public record WorkerInfo(int index, String threadName, String state, int queued, int running,
                         long completed, long lifetimeTasks, long runTimeTotalNanos, long runTimeSamples,
                         long waitTimeTotalNanos, long waitTimeSamples, long cpuTimeNanos,
                         long taskTimeEstimateNanos, long lastHeartbeatNanosAgo) {

    /** Mean run time of the tasks behind {@link #runTimeTotalNanos}, or -1 with no sample. */
    public long averageRunTimeNanos() {
        return runTimeSamples == 0 ? -1 : runTimeTotalNanos / runTimeSamples;
    }

    /** Mean wait of the sampled tasks, or -1 with no sample. */
    public long averageWaitTimeNanos() {
        return waitTimeSamples == 0 ? -1 : waitTimeTotalNanos / (waitTimeSamples * StatisticsCollector.WAIT_SAMPLE_EVERY);
    }

    static WorkerInfo of(WorkerSlot s, boolean statisticsCurrent, Set<Statistic> collected, int lifetimeLimit, long nowNanos) {
        Thread t = s.thread;
        int st = s.state;
        int flags = s.flags;
        long lifetime = s.currentThreadLifetimeTasks(); // as workerLifetimes() reads it
        String state;
        if (st == WorkerSlot.FREE) {
            state = "RETIRED";
        } else if (st == WorkerSlot.DETACHED || (flags & (WorkerSlot.RECYCLE | WorkerSlot.SURPLUS)) != 0
                || (lifetimeLimit > 0 && lifetime >= lifetimeLimit)) {
            state = "DRAINING";
        } else if ((flags & WorkerSlot.STUCK) != 0) {
            state = "STUCK";
        } else {
            state = "AVAILABLE";
        }
        long hb = s.lastHeartbeatNanos;
        TaskTimeWindow w = s.window;
        boolean run = statisticsCurrent && collected.contains(Statistic.RUN_TIME);
        boolean wait = statisticsCurrent && collected.contains(Statistic.WAIT_TIME);
        boolean cpu = statisticsCurrent && collected.contains(Statistic.CPU_TIME);
        boolean estimate = statisticsCurrent && collected.contains(Statistic.TASK_TIME_ESTIMATE);
        return new WorkerInfo(s.index, t == null ? "" : t.getName(), state, s.queue.size(), s.running,
                s.completed, lifetime,
                run ? s.runTimeTotalNanos : 0,
                run ? s.runTimeSamples : 0,
                wait ? s.waitTimeTotalNanos : 0,
                wait ? s.waitTimeSamples : 0,
                cpu ? s.cpuTimeNanos : 0,
                w == null || !estimate ? 0 : w.estimateNanos(),
                hb == 0 || st == WorkerSlot.FREE ? -1 : Math.max(0, nowNanos - hb));
    }
}
