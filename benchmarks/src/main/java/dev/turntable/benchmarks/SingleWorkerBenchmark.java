package dev.turntable.benchmarks;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

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
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Benchmark)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class SingleWorkerBenchmark {

    /** Tasks per invocation. */
    public static final int BATCH = 1000;

    @Param({"TPE", "ROUND_ROBIN", "LEAST_USED"})
    public String pool;

    private ExecutorService executor;

    @Setup(Level.Trial)
    public void setUp() {
        executor = Pools.create(pool, 1, true, false);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        Pools.shutdown(executor);
        executor = null;
    }

    /** The producer's batch. */
    @State(Scope.Thread)
    public static class Producer {
        final Batch batch = new Batch();
    }

    @Benchmark
    @Threads(1)
    @OperationsPerInvocation(BATCH)
    public void producers1(Producer p) {
        p.batch.submitAndAwait(executor, BATCH, 0);
    }
}
