package dev.turntable.benchmarks;

import java.util.concurrent.ExecutorService;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Threads;

/**
 * <b>Question:</b> what does a single-worker pool (the shape of
 * {@code Executors.newSingleThreadExecutor}) cost per no-op task, submit to completion? A
 * single-worker {@code TurntableExecutor} takes its own path in {@code execute} (it looks for a
 * waiting task first, and while one waits the engine queues the new task behind it, so that one
 * worker keeps submission order across its exits), which {@link DispatchBenchmark}'s two-worker
 * pools never take.
 *
 * <p><b>One op</b> = one task submitted and completed, in batches of {@value #BATCH} from one
 * producer, as in {@link DispatchBenchmark} ({@link Batch}). <b>Pools</b>: {@code TPE} (one
 * prestarted thread on a LinkedBlockingQueue) and the engine's strategies, stealing on,
 * statistics off.
 */
public class SingleWorkerBenchmark extends PoolBenchmark {

    /** Tasks per invocation. */
    public static final int BATCH = 1000;

    @Param({"TPE", "ROUND_ROBIN", "LEAST_USED"})
    public String pool;

    @Override
    protected ExecutorService createPool() {
        return Pools.create(pool, 1, true, false);
    }

    @Benchmark
    @Threads(1)
    @OperationsPerInvocation(BATCH)
    public void producers1(Producer p) {
        p.batch.submitAndAwait(executor, BATCH, 0);
    }
}
