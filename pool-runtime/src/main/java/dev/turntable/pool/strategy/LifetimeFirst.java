package dev.turntable.pool.strategy;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * {@code LIFETIME_FIRST}: pushes one worker at a time toward its lifetime limit
 * ({@code max-lifetime-tasks}), so that workers reach the limit, retire and are replaced one
 * after another instead of all at once; the pool keeps at least {@code (N-1)/N} of its capacity.
 *
 * <p>Threads: any, concurrently (submitting threads); stateless, no locks, no allocation, no
 * clock. Two passes over the workers. Rule, per task:
 * <ol>
 *   <li>Eligible: {@link WorkerView#isAvailable available} (a live thread, not draining, not
 *       stuck, below the per-worker concurrency limit) and {@code lifetime + 1 <= limit}.</li>
 *   <li>Margin: {@code max(1, floor(limit / workers))}, {@code workers} counting the workers that
 *       {@link WorkerView#exists exist} now (draining and stuck ones included, free slots not).</li>
 *   <li>Primary: among eligible workers with {@code lifetime < limit - margin}, the highest
 *       lifetime; ties to the fewest tasks in flight ({@code queued + running}), then the lowest
 *       index.</li>
 *   <li>Fallback, when every eligible worker is inside the margin: the same order over all
 *       eligible workers. None eligible: {@link #NONE} (the engine then queues the task for a replacement, or,
 *       with {@code max-concurrent-tasks} and every worker not draining full, waits for a place
 *       and then refuses it).</li>
 * </ol>
 * Without a limit ({@link WorkerView#maxLifetimeTasks()} is 0) there is nothing to stagger: it
 * picks the worker with the fewest tasks in flight, as {@code LEAST_USED} does.
 */
public final class LifetimeFirst implements WorkerChoiceStrategy {

    /** The name this strategy is registered under. */
    public static final String NAME = "LIFETIME_FIRST";

    private static final Set<Statistic> REQUIRED = Collections.unmodifiableSet(EnumSet.noneOf(Statistic.class));

    /** A fresh (stateless) strategy. */
    public LifetimeFirst() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Set<Statistic> requiredStatistics() {
        return REQUIRED;
    }

    /** The margin below the limit that the primary pick stays out of: {@code max(1, limit / workers)}. */
    public static long margin(long maxLifetimeTasks, int workers) {
        return Math.max(1L, workers <= 0 ? maxLifetimeTasks : maxLifetimeTasks / workers);
    }

    @Override
    public int choose(WorkerView workers, long nowNanos) {
        int n = workers.count();
        long limit = workers.maxLifetimeTasks();
        long safeBelow = Long.MAX_VALUE;
        if (limit > 0) {
            int existing = 0;
            for (int i = 0; i < n; i++) {
                if (workers.exists(i)) {
                    existing++;
                }
            }
            safeBelow = limit - margin(limit, existing);
        }
        int primary = NONE;
        long primaryLife = 0;
        long primaryActive = 0;
        int fallback = NONE;
        long fallbackLife = 0;
        long fallbackActive = 0;
        for (int i = 0; i < n; i++) {
            if (!workers.isAvailable(i)) {
                continue;
            }
            long life = limit > 0 ? Math.max(0L, workers.lifetimeTasks(i)) : 0L;
            if (limit > 0 && life >= limit) {
                continue; // one more would pass the limit
            }
            long active = (long) Math.max(0, workers.queued(i)) + Math.max(0, workers.running(i));
            if (life < safeBelow && (primary == NONE || better(life, active, primaryLife, primaryActive))) {
                primary = i;
                primaryLife = life;
                primaryActive = active;
            }
            if (fallback == NONE || better(life, active, fallbackLife, fallbackActive)) {
                fallback = i;
                fallbackLife = life;
                fallbackActive = active;
            }
        }
        return primary != NONE ? primary : fallback;
    }

    /** Higher lifetime first, then fewer in flight; equal: the earlier (lower) index stays. */
    private static boolean better(long life, long active, long bestLife, long bestActive) {
        return life > bestLife || (life == bestLife && active < bestActive);
    }

    @Override
    public String toString() {
        return NAME;
    }
}
