package dev.turntable.pool.strategy;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * {@code LEAST_CPU}: gives each task to the available worker that used the least CPU time, where
 * {@code cpuNanos(i) = cpuTimeNanos(i) + inFlight(i) * perTaskCpuNanos(i)},
 * {@code inFlight = queued + running}, and {@code perTaskCpuNanos} is the worker's average
 * {@code cpuTime / historyTasks}, at least 1 ns; for a worker without history of its own (a new
 * thread, or nothing completed since a reset), the average of the workers that have some, or
 * 1 ns when none has.
 *
 * <p>Threads: any, concurrently (submitting threads); stateless, no locks. Ties go to the lowest
 * index. Cost: one pass over the workers, no allocation; sums and products saturate at
 * {@link Long#MAX_VALUE} instead of overflowing. Measures the thread CPU time spent in tasks
 * ({@link Statistic#CPU_TIME}), the JVM's stand-in for event-loop utilisation.
 *
 * <p>Tasks are charged when dispatched (at the worker's average) and the charge is replaced by
 * the real CPU time when they complete, so a burst submitted before anything completes spreads
 * over the workers; with no history at all it behaves like {@code LEAST_USED}.
 *
 * <p>The CPU time of a busy worker is read at the end of each busy stretch and every 32 tasks
 * within one (see {@link WorkerView#cpuTimeNanos}), and a running task counts at the average
 * until then: a worker deep in one long task looks no busier than its last reading, and with
 * task stealing off, tasks queue behind it.
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
        return Charges.leastCharged(workers, true);
    }


    @Override
    public String toString() {
        return NAME;
    }
}
