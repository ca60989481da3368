package dev.turntable.pool.strategy;

import java.util.Set;

/**
 * A worker choice strategy: the rule that picks which worker's queue receives the next task.
 *
 * <p>Called on submitting threads, concurrently by several of them. {@link #choose} is on the
 * dispatch hot path: it must not block, allocate, throw, or read a clock (the time it needs
 * arrives as {@code nowNanos}). It is a deterministic function of the {@link WorkerView}, the
 * {@code nowNanos} argument and the strategy's own small state, so tests drive it with hand-built
 * views and no threads. State a strategy keeps (a cursor, a turn's consumed budget) is updated
 * without locks; a race between submitters can at worst pick a different available worker,
 * never an invalid index.
 *
 * <p>Plug your own in with the builder or the registry; instances belong to one pool and are
 * created afresh each time the strategy is activated. A {@code choose} that throws a
 * {@code RuntimeException} anyway counts as choosing no worker: the task goes to the pool's
 * shared queue, which every worker polls (a hand-off is refused), the first failure is logged and
 * all are counted ({@code TurntableQueue.getStrategyFailureCount()}).
 */
public interface WorkerChoiceStrategy {

    /** Returned by {@link #choose} when no worker is available. */
    int NONE = -1;

    /**
     * The strategy's name, as listed in {@code AvailableStrategies}: {@code [A-Z][A-Z0-9_]*}, and
     * for one of your own exactly the name it is registered under, as registration reads it
     * (trimmed, upper-cased, {@code -} as {@code _}: {@code "my-rule"} registers {@code MY_RULE}).
     * Registration calls the factory once to check this and refuses a mismatch. Any thread; it
     * must always return the same constant.
     */
    String name();

    /**
     * The statistics this strategy reads; the engine collects the union of these and of what
     * other consumers need, and nothing else. Must return the same set on every call, and never
     * null: an empty set ({@code Set.of()}) when the strategy reads no statistic. Registration
     * calls it once and refuses a strategy that returns null.
     */
    Set<Statistic> requiredStatistics();

    /**
     * Whether {@link #choose} reads its {@code nowNanos} argument. When false the engine passes
     * {@code 0} and saves the clock read (but for the odd choice where it read the clock anyway:
     * see {@link #needsClock}).
     */
    default boolean usesClock() {
        return false;
    }

    /**
     * Whether the next {@link #choose} on this view needs {@code nowNanos}; asked before each
     * choice, on the submitting thread. When false the engine passes {@code 0} and saves the
     * clock read (20–40 ns, a fifth of a no-op task's whole dispatch), but for the odd choice
     * where it has read the clock anyway: with {@link Statistic#REMAINING_TIME} collected, one
     * choice in 16 reads it to date running tasks of unknown start
     * ({@link WorkerView#runningSinceNanos}). A strategy that answers false must choose as it would
     * with the real time; the default answers {@link #usesClock()}.
     * {@code FAIR_SHARE} needs the time only to age running tasks whose start is known.
     *
     * <p>The view may change between this call and {@link #choose}: a start that appears in
     * between is read with {@code nowNanos = 0}, so a strategy must treat a start "after" now as
     * just started.
     */
    default boolean needsClock(WorkerView workers) {
        return usesClock();
    }

    /**
     * Chooses the worker for one task, and accounts for it in the strategy's own state as if
     * the task were placed there (the engine places it unless the pool is full at that moment).
     *
     * @param workers  the pool's workers
     * @param nowNanos {@code System.nanoTime()} at dispatch when {@link #needsClock} said so (or
     *                 when the engine read it anyway, see there), else {@code 0}
     * @return an index {@code i < workers.count()} with {@code workers.isAvailable(i)}, or {@link #NONE}
     */
    int choose(WorkerView workers, long nowNanos);
}
