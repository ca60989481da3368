package dev.turntable.pool.strategy;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * {@code LEAST_BUSY}: gives each task to the available worker with the least busy time, where
 * {@code busyNanos(i) = runTimeTotalNanos(i) + waitTimeTotalNanos(i) + inFlight(i) * perTaskNanos(i)},
 * {@code inFlight = queued + running}, and {@code perTaskNanos} is the worker's average
 * {@code (runTimeTotal + waitTimeTotal) / completed}, at least 1 ns, or 1 ns before it has
 * completed a task.
 *
 * <p>Threads: any, concurrently (submitting threads); stateless, no locks. Ties go to the lowest
 * index. Cost: one pass over the workers, no allocation; sums and products saturate at
 * {@link Long#MAX_VALUE} instead of overflowing. Measures wall-clock run time and queue wait time
 * ({@link Statistic#RUN_TIME}, {@link Statistic#WAIT_TIME}).
 *
 * <p>Why the in-flight term: the totals only grow when tasks complete, so on totals alone a burst
 * submitted before anything completes would all land on one worker. Each dispatched task is
 * charged at the worker's average at once, and the charge is replaced by the real time when the
 * task completes. With no history at all it behaves like {@code LEAST_USED}.
 */
public final class LeastBusy implements WorkerChoiceStrategy {

    /** The name this strategy is registered under. */
    public static final String NAME = "LEAST_BUSY";

    private static final Set<Statistic> REQUIRED =
            Collections.unmodifiableSet(EnumSet.of(Statistic.RUN_TIME, Statistic.WAIT_TIME));

    /** A fresh (stateless) strategy. */
    public LeastBusy() {
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
        long bestBusyNanos = Long.MAX_VALUE;
        for (int i = 0; i < n; i++) {
            if (!workers.isAvailable(i)) {
                continue;
            }
            long historyNanos = Charges.add(Math.max(0L, workers.runTimeTotalNanos(i)),
                    Math.max(0L, workers.waitTimeTotalNanos(i)));
            long busyNanos = Charges.historyPlusInFlight(historyNanos, workers.completed(i), Charges.inFlight(workers, i));
            if (best == NONE || busyNanos < bestBusyNanos) {
                best = i;
                bestBusyNanos = busyNanos;
            }
        }
        return best;
    }


    @Override
    public String toString() {
        return NAME;
    }
}
