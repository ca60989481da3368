package dev.turntable.benchmarks;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the submit-to-completion benchmarks of this module share: JMH's settings (throughput in
 * ops/s; one fork with a 1 GiB heap; 3 × 1 s warm-up and 5 × 1 s measurement, which
 * {@code run.sh} and {@code ab.sh} shorten), one pool per trial, built by {@link #createPool}
 * and shut down after the trial, and each producer thread's own {@link Batch}. A subclass
 * names its pools with a {@code @Param} and submits batches to {@link #executor} from its
 * {@code @Benchmark} methods. JMH calls set-up and tear-down on one of its threads, before and
 * after a trial; the benchmark methods run on the producer threads in between.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Benchmark)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public abstract class PoolBenchmark {

    /** The pool under test for this trial. */
    protected ExecutorService executor;

    /** The pool this trial measures, from the subclass's parameters. */
    protected abstract ExecutorService createPool();

    @Setup(Level.Trial)
    public void setUp() {
        executor = createPool();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        Pools.shutdown(executor);
        executor = null;
    }

    /** A producer thread's batch (JMH gives every thread its own instance). */
    @State(Scope.Thread)
    public static class Producer {
        final Batch batch = new Batch();
    }
}
