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
    /** Wall-clock run time of each task: two {@code System.nanoTime()} reads per task on the worker. */
    RUN_TIME,
    /** Time each task waited in the queue: one clock read when it is offered, one when it starts. */
    WAIT_TIME,
    /** Thread CPU time consumed by each task: two thread-CPU-clock reads per task on the worker. */
    CPU_TIME,
    /**
     * A per-worker estimate of the next task's duration ({@link WorkerView#taskTimeEstimateNanos}):
     * a simple moving average or median over a bounded window of the configured measurement
     * ({@code RUN_TIME}, {@code WAIT_TIME} or {@code CPU_TIME}); implies collecting that measurement.
     */
    TASK_TIME_ESTIMATE
}
