package dev.turntable.jmx;

import javax.management.ConstructorParameters;

/**
 * One row of {@link PoolMXBean#getWorkers()}: a point-in-time picture of one worker slot.
 * Immutable; any thread. JMX clients see it as {@code CompositeData} whose item names are the
 * property names below ({@code index}, {@code threadName}, ...).
 *
 * <p>{@code -1} in a time item means "not collected": the engine collects a statistic only while
 * the active strategy or the latency histograms need it. {@code NaN} means collected but no
 * sample yet. Averages divide the worker's accumulated total by the tasks behind that total,
 * counted per statistic and cleared with it by {@code resetStatistics()}, so they stay true
 * across a reset or a collection switch. Run time: while a worker's tasks average under 2 µs,
 * the engine times a random 1 in 16 of them and each timed task stands for 16 in the average
 * (its own time and 15 times the recent average); wait time is always a 1-in-8 sample.
 */
public final class WorkerStats {

    /** The value of a statistic the engine does not collect in the current configuration. */
    public static final long NOT_COLLECTED = -1;

    private final int index;
    private final String threadName;
    private final String state;
    private final int queued;
    private final int running;
    private final long completed;
    private final long lifetimeTasks;
    private final double averageRunTimeMillis;
    private final double medianRunTimeMillis;
    private final double averageWaitTimeMillis;
    private final double cpuTimeMillis;
    private final long lastHeartbeatMillisAgo;

    @ConstructorParameters({"index", "threadName", "state", "queued", "running", "completed",
            "lifetimeTasks", "averageRunTimeMillis", "medianRunTimeMillis", "averageWaitTimeMillis",
            "cpuTimeMillis", "lastHeartbeatMillisAgo"})
    public WorkerStats(int index, String threadName, String state, int queued, int running,
                       long completed, long lifetimeTasks, double averageRunTimeMillis,
                       double medianRunTimeMillis, double averageWaitTimeMillis,
                       double cpuTimeMillis, long lastHeartbeatMillisAgo) {
        this.index = index;
        this.threadName = threadName;
        this.state = state;
        this.queued = queued;
        this.running = running;
        this.completed = completed;
        this.lifetimeTasks = lifetimeTasks;
        this.averageRunTimeMillis = averageRunTimeMillis;
        this.medianRunTimeMillis = medianRunTimeMillis;
        this.averageWaitTimeMillis = averageWaitTimeMillis;
        this.cpuTimeMillis = cpuTimeMillis;
        this.lastHeartbeatMillisAgo = lastHeartbeatMillisAgo;
    }

    /** The worker's index, as strategies and {@code WorkerWeightsMillis} see it. */
    public int getIndex() {
        return index;
    }

    /** The owner thread's name, {@code ""} when the slot is free. */
    public String getThreadName() {
        return threadName;
    }

    /**
     * {@code AVAILABLE} (may be chosen); {@code DRAINING} (not chosen, takes nothing new, on its way
     * out: it reached {@code MaxLifetimeTasks} or was recycled and retires at its next task
     * boundary, one worker at a time; or it is idle and handed its queue to the others, e.g. past
     * its keep-alive, and comes back if it polls again); {@code STUCK} (inside one task longer than
     * {@code HeartbeatTimeoutMillis}: not chosen until that task ends); {@code RETIRED} (free slot,
     * no thread).
     */
    public String getState() {
        return state;
    }

    /** Tasks waiting in this worker's own queue. */
    public int getQueued() {
        return queued;
    }

    /** Tasks it runs now: 0 or 1. */
    public int getRunning() {
        return running;
    }

    /** Tasks its current thread completed. */
    public long getCompleted() {
        return completed;
    }

    /** Tasks dispatched to its current thread: started plus still queued. */
    public long getLifetimeTasks() {
        return lifetimeTasks;
    }

    /** Mean run time of its completed tasks, ms; {@code -1} when run time is not collected. */
    public double getAverageRunTimeMillis() {
        return averageRunTimeMillis;
    }

    /**
     * Moving median of its recent run times (the engine's estimate window), ms; {@code -1} unless
     * the active strategy keeps an estimate, {@code Measurement} is {@code RUN_TIME} and
     * {@code Median} is on.
     */
    public double getMedianRunTimeMillis() {
        return medianRunTimeMillis;
    }

    /** Mean submit-to-start wait of its started tasks, ms; {@code -1} when wait time is not collected. */
    public double getAverageWaitTimeMillis() {
        return averageWaitTimeMillis;
    }

    /** CPU time its current thread spent in tasks, ms; {@code -1} when CPU time is not collected. */
    public double getCpuTimeMillis() {
        return cpuTimeMillis;
    }

    /**
     * Milliseconds since the worker last showed progress (seen idle, or in a new task) by the
     * engine's housekeeper, which looks every 100 ms; {@code -1} for a free slot and before the
     * housekeeper first looked at this thread.
     */
    public long getLastHeartbeatMillisAgo() {
        return lastHeartbeatMillisAgo;
    }

    @Override
    public String toString() {
        return "WorkerStats{index=" + index + ", threadName=" + threadName + ", state=" + state
                + ", queued=" + queued + ", running=" + running + ", completed=" + completed
                + ", lifetimeTasks=" + lifetimeTasks + ", averageRunTimeMillis=" + averageRunTimeMillis
                + ", medianRunTimeMillis=" + medianRunTimeMillis
                + ", averageWaitTimeMillis=" + averageWaitTimeMillis + ", cpuTimeMillis=" + cpuTimeMillis
                + ", lastHeartbeatMillisAgo=" + lastHeartbeatMillisAgo + '}';
    }
}
