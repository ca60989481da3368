package dev.turntable.pool.strategy;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * {@code WEIGHTED_ROUND_ROBIN}: visits the workers in index order, cyclically, and keeps giving
 * tasks to the current worker until the task time charged to it in its turn reaches its weight
 * ({@link WorkerView#weightNanos}, nanoseconds of task time per turn); then the next available
 * worker's turn starts.
 *
 * <p>Each task is charged {@code chargeNanos(i)}: {@link WorkerView#taskTimeEstimateNanos} if
 * positive, else {@link WorkerView#poolTaskTimeEstimateNanos} if positive, else a whole turn
 * ({@code weightNanos(i)}). So a burst of tasks submitted before anything has completed (no
 * estimates yet) goes round robin instead of all to one worker. An unavailable current worker
 * ends its turn at once.
 *
 * <p>Threads: any, concurrently (submitting threads); no locks. Ties cannot arise: the order is
 * fixed, and the first turn belongs to the lowest available index. Cost: O(1) within a turn; at
 * the end of a turn at most {@code count()} availability checks; no allocation. Measures the
 * per-worker task time estimate ({@link Statistic#TASK_TIME_ESTIMATE}, over the pool's configured
 * {@link Measurement}).
 */
public final class WeightedRoundRobin extends WeightedRoundRobinPadAfter implements WorkerChoiceStrategy {

    /** The name this strategy is registered under. */
    public static final String NAME = "WEIGHTED_ROUND_ROBIN";

    private static final Set<Statistic> REQUIRED =
            Collections.unmodifiableSet(EnumSet.of(Statistic.TASK_TIME_ESTIMATE));

    /** A fresh strategy whose first turn belongs to the lowest available index. */
    public WeightedRoundRobin() {
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
        if (n <= 0) {
            return NONE;
        }
        int c = current;
        long consumed = consumedNanos;
        if (c < 0 || c >= n) {
            c = 0; // the pool shrank since the last call: start over with a fresh turn
            consumed = 0;
        }
        if (!workers.isAvailable(c) || consumed >= workers.weightNanos(c)) {
            int next = NONE;
            int i = c;
            for (int step = 0; step < n; step++) { // c + 1, ..., n - 1, 0, ..., c
                i = i + 1 < n ? i + 1 : 0;
                if (workers.isAvailable(i)) {
                    next = i;
                    break;
                }
            }
            if (next == NONE) {
                return NONE;
            }
            c = next;
            consumed = 0;
        }
        consumed = addSaturated(Math.max(0L, consumed), chargeNanos(workers, c));
        current = c;
        consumedNanos = consumed;
        return c;
    }

    /** Task time charged for one task on worker {@code i}; always positive. */
    private static long chargeNanos(WorkerView workers, int i) {
        long estimateNanos = workers.taskTimeEstimateNanos(i);
        if (estimateNanos > 0) {
            return estimateNanos;
        }
        long poolEstimateNanos = workers.poolTaskTimeEstimateNanos();
        if (poolEstimateNanos > 0) {
            return poolEstimateNanos;
        }
        long weightNanos = workers.weightNanos(i);
        return weightNanos > 0 ? weightNanos : 1L;
    }

    /** {@code a + b} for non-negative operands, {@link Long#MAX_VALUE} on overflow. */
    private static long addSaturated(long a, long b) {
        long sum = a + b;
        return sum < 0 ? Long.MAX_VALUE : sum;
    }

    @Override
    public String toString() {
        return NAME;
    }
}

/*
 * The turn has a cache line to itself: a submitter writes both fields on every choice. Unpadded,
 * they shared a line with whatever the heap put beside the strategy, the neighbour effect that
 * cost ROUND_ROBIN ~17% once (see RoundRobin.java; these measured no loss then, 4.59 -> 4.41 M
 * ops/s, within the spread). Superclasses and StatePadBefore's padding, for the reasons given there;
 * StrategyLayoutTest checks the result.
 */

/** {@link WeightedRoundRobin}'s turn. */
abstract class WeightedRoundRobinTurn extends StatePadBefore {
    /**
     * Worker whose turn it is. Plain field, read-modify-written without synchronisation by several
     * submitters: a lost update only makes two submitters pick the same or a different available
     * worker (a turn is shortened or lengthened by a task); it is range-checked against
     * {@code count()} before use, so a stale value from a larger pool never yields an invalid index.
     */
    int current;

    /**
     * Task time charged to {@link #current} in its turn. Plain field, racy like {@link #current}:
     * a lost update or a value paired with the wrong worker only shifts where one turn ends; it
     * saturates instead of overflowing, and never affects which indices are valid.
     */
    long consumedNanos;
}

/** 128 bytes after the turn. */
abstract class WeightedRoundRobinPadAfter extends WeightedRoundRobinTurn {
    long p20, p21, p22, p23, p24, p25, p26, p27, p28, p29, p2a, p2b, p2c, p2d, p2e, p2f;
}
