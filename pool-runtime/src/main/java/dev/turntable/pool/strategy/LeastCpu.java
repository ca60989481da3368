package dev.turntable.pool.strategy;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * {@code LEAST_CPU}: gives each task to the available worker that used the least CPU time, where
 * {@code cpuNanos(i) = cpuTimeNanos(i) + inFlight(i) * perTaskCpuNanos(i)},
 * {@code inFlight = queued + running}, and {@code perTaskCpuNanos} is the worker's average
 * {@code cpuTime / completed}, at least 1 ns, or 1 ns before it has completed a task.
 *
 * <p>Threads: any, concurrently (submitting threads); stateless, no locks. Ties go to the lowest
 * index. Cost: one pass over the workers, no allocation; sums and products saturate at
 * {@link Long#MAX_VALUE} instead of overflowing. Measures the thread CPU time spent in tasks
 * ({@link Statistic#CPU_TIME}), the JVM's stand-in for event-loop utilisation.
 *
 * <p>Tasks are charged when dispatched (at the worker's average) and the charge is replaced by
 * the real CPU time when they complete, so a burst submitted before anything completes spreads
 * over the workers; with no history at all it behaves like {@code LEAST_USED}.
 */
public final class LeastCpu implements WorkerChoiceStrategy {

    /** The name this strategy is registered under. */
    public static final String NAME = "LEAST_CPU";

    private static final Set<Statistic> REQUIRED = Collections.unmodifiableSet(EnumSet.of(Statistic.CPU_TIME));

    /** A fresh (stateless) strategy. */
    public LeastCpu() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Set<Statistic> requiredStatistics() {
        return REQUIRED;
    }

    @Override
    public int choose(WorkerView workers, long nowNanos) {
        int n = workers.count();
        int best = NONE;
        long bestCpuNanos = Long.MAX_VALUE;
        for (int i = 0; i < n; i++) {
            if (!workers.isAvailable(i)) {
                continue;
            }
            long historyNanos = Math.max(0L, workers.cpuTimeNanos(i));
            long cpuNanos = Charges.historyPlusInFlight(historyNanos, workers.completed(i), Charges.inFlight(workers, i));
            if (best == NONE || cpuNanos < bestCpuNanos) {
                best = i;
                bestCpuNanos = cpuNanos;
            }
        }
        return best;
    }


    @Override
    public String toString() {
        return NAME;
    }
}
