package dev.turntable.pool.strategy;

/**
 * A per-worker statistic that the engine collects only while the active {@link WorkerChoiceStrategy}
 * (or a consumer such as latency histograms) declares that it needs it.
 *
 * <p>Counts ({@link WorkerView#queued}, {@link WorkerView#running}, {@link WorkerView#completed},
 * {@link WorkerView#lifetimeTasks}) cost nothing extra and are always available; the values below
 * each cost clock or CPU-clock reads per task, so a strategy that does not declare them sees zeros.
 */
public enum Statistic {
    /**
     * Wall-clock run time of tasks, read with {@code System.nanoTime()} on the worker: one read per
     * task when tasks run back to back (the read that ends one starts the next), two for a task
     * after idling. While a worker's tasks average under 2 µs, a uniform random 1 in 16 of them
     * is timed and stands for 16 in the totals (unless latency histograms are collected, or
     * {@link #REMAINING_TIME} with task stealing off: those time every task).
     */
    RUN_TIME,
    /**
     * Time tasks wait in the queue, from a uniform random sample of one task in eight: a sampled
     * task costs its submitter a clock read and a small wrapper, and its worker a clock read.
     * Totals are scaled up by the sampling rate, so they estimate the sum over all tasks.
     */
    WAIT_TIME,
    /**
     * Thread CPU time of the worker while busy. Read from the thread CPU clock (a system call,
     * ~0.75 µs) at the start and end of each stretch of back-to-back tasks and within one every
     * 32 tasks, or about every 50 µs of CPU when tasks are tiny (at most every 1,024), never
     * while idle; per task (two reads) only when
     * {@link Measurement#CPU_TIME} feeds {@link #TASK_TIME_ESTIMATE}.
     */
    CPU_TIME,
    /**
     * A per-worker estimate of the next task's duration ({@link WorkerView#taskTimeEstimateNanos}):
     * a simple moving average or median over a bounded window of the configured measurement
     * ({@code RUN_TIME}, {@code WAIT_TIME} or {@code CPU_TIME}); implies collecting that measurement.
     */
    TASK_TIME_ESTIMATE,
    /**
     * The expected remaining time of each worker's running task ({@link WorkerView#remainingTimeNanos}):
     * the mean, over the estimate's window, of the samples longer than the time the task has run,
     * minus that time. Implies {@link #TASK_TIME_ESTIMATE}; the worker re-sorts its window at every
     * sample while it holds at most 16, then each time as many new samples have arrived as it holds.
     */
    REMAINING_TIME
}
