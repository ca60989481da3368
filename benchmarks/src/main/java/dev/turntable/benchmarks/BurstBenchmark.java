package dev.turntable.benchmarks;

import java.util.concurrent.ExecutorService;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Threads;

/**
 * <b>Question:</b> how fast does each pool take a burst far larger than the workers' own queues
 * (a batch job handing {@value #BURST} tasks to {@code newFixedThreadPool(2)} at once)?
 *
 * <p>{@link DispatchBenchmark}'s batches of 1,000 fit in the engine's worker queues (1,024 places
 * each), so they never show this path: past those places every task of the rest of a burst
 * waits in the pool's shared queue, which every worker polls, as every task of a
 * ThreadPoolExecutor waits in its one {@code LinkedBlockingQueue}.
 *
 * <p><b>One op</b> = one no-op task submitted <em>and</em> completed; one producer submits the
 * burst and waits until all of it has run ({@link Batch}). Pools as in DispatchBenchmark: 2
 * workers, stealing on, statistics off. Run with {@code BENCHMARK=BurstBenchmark bash
 * benchmarks/ab.sh ...}, which interleaves pools and jars, and compare each pool with TPE in the
 * same round.
 */
public class BurstBenchmark extends PoolBenchmark {

    /** Tasks per burst: about fifty times what the workers' queues hold. */
    public static final int BURST = 100_000;

    @Param({"TPE", "FJP", "ROUND_ROBIN", "LEAST_USED", "FAIR_SHARE", "WEIGHTED_ROUND_ROBIN"})
    public String pool;

    @Override
    protected ExecutorService createPool() {
        return Pools.create(pool, DispatchBenchmark.WORKERS, true, false);
    }

    @Benchmark
    @Threads(1)
    @OperationsPerInvocation(BURST)
    public void producers1(Producer p) {
        p.batch.submitAndAwait(executor, BURST, 0);
    }
}
