package dev.turntable.pool.strategy;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * {@code LEAST_USED}, the default: gives each task to the available worker with the fewest tasks
 * in flight, {@code queued(i) + running(i)}.
 *
 * <p>Threads: any, concurrently (submitting threads); stateless, no locks. Ties go to the lowest
 * index. Cost: one pass over the workers, no allocation; it ends at the first available worker
 * with nothing in flight (none can beat it), so an idle pool's choice reads one or two workers,
 * and a large hand-off pool's (a cached pool after a burst) does not read every idle thread. Measures nothing beyond the task counts
 * the engine always keeps, so it requires no {@link Statistic}. A task is counted as soon as it is
 * dispatched, so a burst submitted before any task completes spreads evenly.
 */
public final class LeastUsed implements WorkerChoiceStrategy {

    /** The name this strategy is registered under. */
    public static final String NAME = "LEAST_USED";

    private static final Set<Statistic> REQUIRED = Collections.unmodifiableSet(EnumSet.noneOf(Statistic.class));

    /** A fresh (stateless) strategy. */
    public LeastUsed() {
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
        long bestInFlight = Long.MAX_VALUE;
        for (int i = 0; i < n; i++) {
            if (!workers.isAvailable(i)) {
                continue;
            }
            long inFlight = (long) Math.max(0, workers.queued(i)) + Math.max(0, workers.running(i));
            if (inFlight == 0) {
                return i; // none can have fewer, and ties go to the lowest index: this is the choice
            }
            if (best == NONE || inFlight < bestInFlight) {
                best = i;
                bestInFlight = inFlight;
            }
        }
        return best;
    }

    @Override
    public String toString() {
        return NAME;
    }
}
