package dev.turntable.pool.strategy;

/**
 * A live, read-only view of one pool's workers, indexed {@code 0 .. count() - 1}, as a
 * {@link WorkerChoiceStrategy} sees them while it chooses a worker for one task.
 *
 * <p>Called on the submitting thread, concurrently by several submitters. Every value is a plain
 * point-in-time read of state that workers update concurrently: two reads in one choice may
 * disagree, and implementations never block or allocate. Indices at or beyond {@link #count()}
 * must not be passed. Statistics the pool does not collect read as {@code 0} ({@code -1} for
 * {@link #remainingTimeNanos}), whatever an earlier strategy left: it collects those the active
 * strategy declared in {@link WorkerChoiceStrategy#requiredStatistics()} and, while latency
 * histograms are on, run and wait time.
 */
public interface WorkerView {

    /**
     * Number of worker slots a choice looks at: up to the highest slot a worker thread holds
     * now (those above it are free and take no task), so it can be lower on the next call, and
     * higher. Slot indices are stable for a worker thread's life and reused after it.
     */
    int count();

    /**
     * Whether a live worker thread owns this slot now, whatever its eligibility: draining, stuck
     * or at its concurrency limit it still exists; a free slot (its thread retired or left) does
     * not. Strategies that size something by the pool (LIFETIME_FIRST's margin) count these.
     * The default treats every available worker as existing.
     */
    default boolean exists(int worker) {
        return isAvailable(worker);
    }

    /**
     * Tasks a worker thread runs before it retires and is replaced ({@code max-lifetime-tasks}),
     * or {@code 0} when workers never retire. The default is {@code 0}.
     */
    default long maxLifetimeTasks() {
        return 0L;
    }

    /**
     * Whether the worker may be given a task now: it has a live thread, is not draining toward
     * retirement, not stuck in one task past the heartbeat timeout, not gone, and below the pool's
     * per-worker concurrency limit. A strategy never returns an unavailable worker.
     */
    boolean isAvailable(int worker);

    /** Tasks waiting in this worker's own queue. */
    int queued(int worker);

    /** Tasks this worker is running now (0 or 1 for a ThreadPoolExecutor worker). */
    int running(int worker);

    /** Tasks this worker's current thread has completed. */
    long completed(int worker);

    /**
     * Tasks the worker's time totals ({@link #runTimeTotalNanos}, {@link #waitTimeTotalNanos},
     * {@link #cpuTimeNanos}) cover: those its current thread completed since its statistics last
     * started from zero (a reset, or a switch that started collecting run, wait or CPU time), so
     * {@code total / historyTasks} is its average per task. {@code 0} while the totals read 0 for
     * such a reason. The default is {@link #completed}.
     */
    default long historyTasks(int worker) {
        return completed(worker);
    }

    /**
     * Tasks dispatched to this worker's current thread so far, its lifetime count: the tasks it
     * started plus those waiting in its queue (a task another worker steals counts for the thief).
     */
    long lifetimeTasks(int worker);

    /**
     * Sum of completed tasks' run times on this worker, nanoseconds ({@link Statistic#RUN_TIME});
     * estimated from a sample while the worker's tasks are very short (see there).
     */
    long runTimeTotalNanos(int worker);

    /**
     * Sum of started tasks' queue wait times on this worker, nanoseconds ({@link Statistic#WAIT_TIME}),
     * estimated from a 1-in-8 sample of tasks.
     */
    long waitTimeTotalNanos(int worker);

    /**
     * CPU time the worker's current thread spent busy, nanoseconds ({@link Statistic#CPU_TIME}):
     * refreshed whenever the worker goes idle and, while it is busy, every 32 tasks, or for
     * tasks under ~1.5 µs of CPU each about every 50 µs of CPU time (at most every 1,024 tasks).
     */
    long cpuTimeNanos(int worker);

    /**
     * What {@link #runningSinceNanos} reads while the running task's start was not timed. Never a
     * real start: {@code System.nanoTime()} would have to run for ~292 years to reach it.
     */
    long START_UNKNOWN = Long.MIN_VALUE;

    /**
     * The {@code System.nanoTime()} at which the worker started its current task, meaningful only
     * while {@link #running(int)} is positive and {@link Statistic#REMAINING_TIME} is collected;
     * or {@link #START_UNKNOWN}. With task stealing on, while a worker's recent tasks are very
     * short (under 2 µs on average) only a sample of them is timed, and an untimed task's start is
     * unknown; once submitters (one choice in 16 looks) have seen it running twice, at least 2 µs
     * apart, it reads as the first of those moments, a little after its real start, so a rare
     * long one ages like a timed one while the tiny ones never show a start. With stealing off
     * every start is known. (With only {@link Statistic#RUN_TIME}, an untimed task leaves the last timed
     * task's start here.) To age the running task, use {@link #runningForNanos}, which handles
     * the unknown start.
     */
    long runningSinceNanos(int worker);

    /**
     * How long this worker's current task has run at {@code nowNanos}, from
     * {@link #runningSinceNanos}: 0 when its start is {@link #START_UNKNOWN}, when
     * {@code nowNanos} is 0 (the engine passed no clock: see
     * {@link WorkerChoiceStrategy#needsClock}), or when the start reads after {@code nowNanos} (a
     * racy read); a task of unknown age counts as just started. Never negative, never overflows.
     */
    default long runningForNanos(int worker, long nowNanos) {
        long sinceNanos = runningSinceNanos(worker);
        // Checked before subtracting: 0 - a negative nanoTime start, or anything - START_UNKNOWN,
        // would read as a task running for that long.
        if (sinceNanos == START_UNKNOWN || nowNanos == 0) {
            return 0;
        }
        return Math.max(0, nowNanos - sinceNanos);
    }

    /**
     * Estimated duration of this worker's next task in nanoseconds ({@link Statistic#TASK_TIME_ESTIMATE}):
     * moving average or median of the configured {@link Measurement}, or {@code 0} before the worker
     * has completed a task.
     */
    long taskTimeEstimateNanos(int worker);

    /**
     * Estimate over the whole pool: the mean of the workers' non-zero estimates, or {@code 0} when
     * no worker has one yet. Strategies use it for a worker without history of its own.
     */
    long poolTaskTimeEstimateNanos();

    /**
     * Expected remaining time, in nanoseconds, of a task this worker has been running for
     * {@code elapsedNanos} ({@link Statistic#REMAINING_TIME}): the mean of its recent samples of
     * the configured {@link Measurement} that are longer than {@code elapsedNanos}, minus
     * {@code elapsedNanos}, so at least 1; or {@code -1} when none of them is that long, nothing has
     * been measured, or the statistic is not collected. The default answers {@code -1}.
     */
    default long remainingTimeNanos(int worker, long elapsedNanos) {
        return -1L;
    }

    /** This worker's weight in nanoseconds of task time per round-robin turn (always positive). */
    long weightNanos(int worker);
}
