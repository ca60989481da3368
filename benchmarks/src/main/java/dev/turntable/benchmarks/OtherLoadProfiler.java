package dev.turntable.benchmarks;

import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * A JMH profiler ({@code -prof dev.turntable.benchmarks.OtherLoadProfiler}) that adds two
 * secondary results to every iteration: {@code ·others.cpu}, the CPUs that processes other than
 * the benchmark fork used meanwhile, and {@code ·steal.cpu}, the hypervisor's steal time (see
 * {@link CpuSampler}). {@code run.sh} enables it so the report can say how quiet the machine was.
 */
public final class OtherLoadProfiler implements InternalProfiler {

    private final CpuSampler sampler = new CpuSampler();

    @Override
    public String getDescription() {
        return "CPU used by other processes, and steal time, during each iteration";
    }

    @Override
    public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
        sampler.start();
    }

    @Override
    public Collection<? extends Result> afterIteration(BenchmarkParams benchmarkParams,
            IterationParams iterationParams, IterationResult result) {
        CpuSampler.Usage u = sampler.stop();
        List<ScalarResult> out = Arrays.asList(
                new ScalarResult("·others.cpu", u.othersCpus, "CPUs", AggregationPolicy.AVG),
                new ScalarResult("·steal.cpu", u.stealCpus, "CPUs", AggregationPolicy.AVG));
        return out;
    }
}
