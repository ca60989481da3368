package dev.turntable.pool.classes;

/**
 * What the planner remembers between calls about rebalancing: whether the delta entitlement
 * spread was above the threshold at the last plan, and since when. Immutable; any thread.
 *
 * <p>The caller keeps the value: it passes {@link #INITIAL} to the first plan, then each plan's
 * {@link LoadPlan#nextState()} to the next. Times are {@code System.nanoTime()}-style readings
 * supplied by the caller; only differences are used, so any origin (and wrap-around) works.
 *
 * @param overThreshold whether the spread was above the threshold at the last plan
 * @param overThresholdSinceNanos the {@code nowNanos} of the first plan of the current run of
 *     plans above the threshold; 0 when {@code overThreshold} is false
 */
public record RebalanceState(boolean overThreshold, long overThresholdSinceNanos) {

    /** Not over the threshold: the state to start with and the state after every rebalance. */
    public static final RebalanceState INITIAL = new RebalanceState(false, 0);

    /**
     * Checks that a state not over the threshold carries no time.
     *
     * @throws IllegalArgumentException if {@code overThreshold} is false and the time is not 0
     */
    public RebalanceState {
        if (!overThreshold && overThresholdSinceNanos != 0) {
            throw new IllegalArgumentException("a state not over the threshold has time 0, not "
                    + overThresholdSinceNanos);
        }
    }

    /** The state of a spread that went above the threshold at {@code nowNanos}. */
    public static RebalanceState overSince(long nowNanos) {
        return new RebalanceState(true, nowNanos);
    }

    /** How long the spread has been over the threshold at {@code nowNanos}; 0 when it is not. */
    public long overThresholdForNanos(long nowNanos) {
        return overThreshold ? nowNanos - overThresholdSinceNanos : 0;
    }
}
