package dev.turntable.benchmarks;

import dev.turntable.pool.TurntableExecutor;
import java.util.concurrent.ExecutorService;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Threads;

/**
 * <b>Question:</b> what do statistics cost on the dispatch path? {@link DispatchBenchmark}'s
 * {@code NOOP} shape (where per-task overhead is all there is to measure) for:
 * <ul>
 *   <li>{@code LEAST_USED}: a strategy that needs no timing, statistics off;</li>
 *   <li>{@code LEAST_USED_HISTOGRAMS}: the same with
 *       {@code getTurntableQueue().setLatencyHistograms(true)}: a submit-time stamp, two
 *       {@code nanoTime} per task and two HdrHistogram recordings;</li>
 *   <li>{@code FAIR_SHARE}: a strategy that needs run time and a task time estimate (moving
 *       average window), statistics otherwise off, and reads the clock on every dispatch;</li>
 *   <li>{@code TPE}: the ThreadPoolExecutor baseline of the same run.</li>
 * </ul>
 *
 * <p><b>One op</b> = one no-op task submitted and completed: each invocation submits a batch of
 * {@value DispatchBenchmark#BATCH} and waits for all of them ({@link Batch}); the score is ops/s.
 * One and two producer threads, as in {@link DispatchBenchmark}; 2 workers, stealing on.
 */
public class StatisticsCostBenchmark extends PoolBenchmark {

    @Param({"TPE", "LEAST_USED", "LEAST_USED_HISTOGRAMS", "FAIR_SHARE"})
    public String config;

    @Override
    protected ExecutorService createPool() {
        switch (config) {
            case "TPE":
                return Pools.create(Pools.TPE, DispatchBenchmark.WORKERS, true, false);
            case "LEAST_USED":
            case "FAIR_SHARE":
                return Pools.create(config, DispatchBenchmark.WORKERS, true, false);
            case "LEAST_USED_HISTOGRAMS":
                ExecutorService pool = Pools.create("LEAST_USED", DispatchBenchmark.WORKERS, true, true);
                if (!((TurntableExecutor) pool).getTurntableQueue().isLatencyHistograms()) {
                    Pools.shutdown(pool);
                    throw new IllegalStateException("histograms did not switch on");
                }
                return pool;
            default:
                throw new IllegalArgumentException("unknown config " + config);
        }
    }

    @Benchmark
    @Threads(1)
    @OperationsPerInvocation(DispatchBenchmark.BATCH)
    public void producers1(Producer p) {
        p.batch.submitAndAwait(executor, DispatchBenchmark.BATCH, 0);
    }

    @Benchmark
    @Threads(2)
    @OperationsPerInvocation(DispatchBenchmark.BATCH)
    public void producers2(Producer p) {
        p.batch.submitAndAwait(executor, DispatchBenchmark.BATCH, 0);
    }
}
