package dev.turntable.pool.strategy;

import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * {@code INTERLEAVED_WEIGHTED_ROUND_ROBIN}: like {@code WEIGHTED_ROUND_ROBIN}, each worker receives
 * about its weight ({@link WorkerView#weightNanos}) of task time per cycle, but a heavy worker's
 * share is split over several rounds and interleaved with the others' instead of given in one turn.
 *
 * <p>Semantics:
 * <ul>
 *   <li>The <em>rounds</em> are the distinct worker weights in ascending order,
 *       {@code W_1 < W_2 < ... < W_k}. They are recomputed when {@code count()} grows past the
 *       workers they were built for or when a worker's weight is seen to differ from the one the
 *       rounds were built from (each worker's weight is compared as the visit passes it, so a
 *       change is noticed within one round); a recomputation starts a new cycle. When
 *       {@code count()} drops they are kept and only workers below it are visited (a round
 *       only a departed worker was eligible for gives no task).</li>
 *   <li>A <em>cycle</em> visits the rounds in order. Within round {@code r} the workers are visited
 *       in index order; worker {@code i} receives tasks while {@code weightNanos(i) >= W_r} and its
 *       {@code consumedNanos} in the current cycle is {@code < W_r}; then the visit moves on to the
 *       next worker. After the last worker the next round starts; after the last round a new cycle
 *       starts with every worker's {@code consumedNanos} reset to 0.</li>
 *   <li>{@code consumedNanos} is cumulative over the rounds of one cycle, so over a cycle each
 *       worker receives about its weight of task time. For example with weights 1 ms and 2 ms the
 *       rounds are {1 ms, 2 ms}: round 1 gives both workers 1 ms, round 2 gives only the second
 *       worker its remaining 1 ms.</li>
 *   <li>Each task is charged {@link WorkerView#taskTimeEstimateNanos} if positive, else
 *       {@link WorkerView#poolTaskTimeEstimateNanos} if positive, else the round's increment
 *       {@code W_r - W_(r-1)} (with {@code W_0 = 0}): so a burst of tasks submitted before anything
 *       has completed gets one task per eligible worker per round instead of piling on one.</li>
 *   <li>Unavailable workers are skipped (they keep what they consumed in this cycle). If the
 *       search passes a whole cycle without finding an eligible available worker it returns
 *       {@link #NONE}: the search is bounded by about two cycles of visits.</li>
 * </ul>
 * With equal weights (the default) there is one round, and it behaves like
 * {@code WEIGHTED_ROUND_ROBIN}.
 *
 * <p>Threads: any, concurrently (submitting threads); no locks. Ties cannot arise: the visiting
 * order is fixed, and the first task of a cycle goes to the lowest eligible available index.
 * Cost: O(1) while the visited worker stays eligible; moving on skips ineligible workers, so
 * amortised O(1) per task when most workers are available, and O(rounds * count()) in the worst
 * case (nothing eligible). No allocation except when the rounds are recomputed (a rare event).
 * Measures the per-worker task time estimate ({@link Statistic#TASK_TIME_ESTIMATE}, over the pool's
 * configured {@link Measurement}).
 */
public final class InterleavedWeightedRoundRobin extends InterleavedWeightedRoundRobinPadAfter
        implements WorkerChoiceStrategy {

    /** The name this strategy is registered under. */
    public static final String NAME = "INTERLEAVED_WEIGHTED_ROUND_ROBIN";

    private static final Set<Statistic> REQUIRED =
            Collections.unmodifiableSet(EnumSet.of(Statistic.TASK_TIME_ESTIMATE));

    /** A fresh strategy: its first cycle starts at the lowest index. */
    public InterleavedWeightedRoundRobin() {
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
        Rounds current = rounds;
        long[] consumed = consumedNanos;
        int r = round;
        int w = cursor;
        boolean recomputed = false;
        // Set once a cycle has started within this call: if it ends with no pick, give up.
        boolean freshCycle = false;
        // Rebuilt when count() grows past the workers the rounds were built for, not when it
        // drops: count() ends at the highest slot a thread holds, so it drops and rises again
        // each time the top worker's thread is replaced, and a rebuild on each would restart the
        // cycle at worker 0 (skewing shares toward low indexes) and allocate on the submit path.
        // Fewer workers than the rounds know are visited up to n only; a departed worker's
        // weight may leave a round nobody is eligible for, which the visit passes through.
        if (current == null || current.workers < n || consumed.length < n + 2 * ARRAY_PAD) {
            current = recompute(workers, n);
            consumed = consumedNanos;
            r = 0;
            w = 0;
            recomputed = true;
            freshCycle = true;
        }
        long[] thresholds = current.thresholdNanos;
        if (r < 0 || r >= thresholds.length) {
            r = thresholds.length - 1; // stale round: end this cycle right away
            w = n;
        } else if (w < 0) {
            w = 0;
        }
        // Terminates: every pass either returns, advances w, or (at w >= n) advances r; a second
        // wrap to a new cycle within this call returns NONE, and recomputing (which restarts the
        // cycle) happens at most once per call.
        for (;;) {
            if (w >= n) {
                w = 0;
                if (++r >= thresholds.length) {
                    r = 0;
                    if (freshCycle) {
                        round = 0;
                        cursor = 0;
                        return NONE;
                    }
                    freshCycle = true;
                    // Every worker the rounds know, visible now or not: one that returns starts
                    // the cycle with nothing consumed, as the others do. Within the array read
                    // (at least n places, checked above): racing a rebuild, it may be older and
                    // shorter than the rounds.
                    Arrays.fill(consumed, ARRAY_PAD,
                            ARRAY_PAD + Math.min(current.workers, consumed.length - 2 * ARRAY_PAD), 0L);
                }
                continue;
            }
            long weightNanos = positive(workers.weightNanos(w));
            if (weightNanos != current.weightNanos[w] && !recomputed) {
                current = recompute(workers, n);
                consumed = consumedNanos;
                thresholds = current.thresholdNanos;
                r = 0;
                w = 0;
                recomputed = true;
                freshCycle = true;
                continue;
            }
            long thresholdNanos = thresholds[r];
            if (weightNanos >= thresholdNanos && consumed[ARRAY_PAD + w] < thresholdNanos && workers.isAvailable(w)) {
                consumed[ARRAY_PAD + w] = addSaturated(Math.max(0L, consumed[ARRAY_PAD + w]),
                        chargeNanos(workers, w, thresholds, r));
                round = r;
                cursor = w;
                return w;
            }
            w++;
        }
    }

    /**
     * Rebuilds the rounds from the current weights and starts a new cycle. Allocates; runs only
     * when {@code count()} grows past the rounds' workers or a weight changes.
     */
    private Rounds recompute(WorkerView workers, int n) {
        long[] weights = new long[n];
        for (int i = 0; i < n; i++) {
            weights[i] = positive(workers.weightNanos(i));
        }
        long[] sorted = weights.clone();
        Arrays.sort(sorted);
        int distinct = 0;
        for (int i = 0; i < n; i++) {
            if (distinct == 0 || sorted[i] != sorted[distinct - 1]) {
                sorted[distinct++] = sorted[i];
            }
        }
        Rounds fresh = new Rounds(n, weights, Arrays.copyOf(sorted, distinct));
        long[] consumed = consumedNanos;
        if (consumed.length < n + 2 * ARRAY_PAD) {
            consumed = new long[n + 2 * ARRAY_PAD];
        } else {
            Arrays.fill(consumed, 0L);
        }
        consumedNanos = consumed;
        rounds = fresh;
        round = 0;
        cursor = 0;
        return fresh;
    }

    /** Task time charged for one task on worker {@code i} in round {@code r}; always positive. */
    private static long chargeNanos(WorkerView workers, int i, long[] thresholds, int r) {
        long estimateNanos = workers.taskTimeEstimateNanos(i);
        if (estimateNanos > 0) {
            return estimateNanos;
        }
        long poolEstimateNanos = workers.poolTaskTimeEstimateNanos();
        if (poolEstimateNanos > 0) {
            return poolEstimateNanos;
        }
        long incrementNanos = r == 0 ? thresholds[0] : thresholds[r] - thresholds[r - 1];
        return incrementNanos > 0 ? incrementNanos : 1L;
    }

    /** A weight as used here: the contract says positive; anything else counts as 1 ns. */
    private static long positive(long weightNanos) {
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
 * The visit has cache lines to itself: a submitter writes the round, the cursor and a worker's
 * consumed time on every choice. Unpadded, they shared lines with whatever the heap put beside
 * the strategy and its array, the neighbour effect that cost ROUND_ROBIN ~17% once (see
 * RoundRobin.java; this strategy measured no loss then, 4.52 -> 4.53 M ops/s). Superclasses and
 * StatePadBefore's padding, for the reasons given there; StrategyLayoutTest checks the result.
 */

/** {@link InterleavedWeightedRoundRobin}'s visit: its rounds and where it is in them. */
abstract class InterleavedWeightedRoundRobinVisit extends StatePadBefore {

    /** Unused elements before and after the workers' in {@link #consumedNanos}: 128 bytes. */
    static final int ARRAY_PAD = 16;

    static final long[] NO_NANOS = new long[0];

    /** Rounds computed for one set of weights; immutable, so one read of the field is consistent. */
    static final class Rounds {
        /** The {@code count()} these rounds were computed for. */
        final int workers;
        /** Each worker's (positive) weight when the rounds were computed, length {@link #workers}. */
        final long[] weightNanos;
        /** Distinct weights ascending: round {@code r}'s threshold; length >= 1. */
        final long[] thresholdNanos;

        Rounds(int workers, long[] weightNanos, long[] thresholdNanos) {
            this.workers = workers;
            this.weightNanos = weightNanos;
            this.thresholdNanos = thresholdNanos;
        }
    }

    /**
     * Current rounds, replaced (never mutated) on recomputation. Plain field: two submitters racing
     * to recompute both publish equivalent rounds; final fields make each instance safe to read.
     * Null until the first call.
     */
    Rounds rounds;

    /**
     * Task time each worker received in the current cycle, worker {@code i} at
     * {@code ARRAY_PAD + i}, with {@code ARRAY_PAD} unused elements on either side so that the
     * elements a submitter writes on every choice share no line with the objects beside the
     * array; grows (is replaced) only when {@code count()} grows. Elements are
     * read-modify-written without synchronisation: a lost update only shifts where a worker's
     * share in this cycle ends. Each call works on one array read into a local and checked to
     * hold {@code count()} padded slots, so indices are always in range.
     */
    long[] consumedNanos = NO_NANOS;

    /**
     * Index of the current round. Racy like {@link #cursor}: a stale value only moves the visit;
     * it is range-checked before use.
     */
    int round;

    /**
     * Worker the visit is at. Plain field, read-modify-written by several submitters: at worst two
     * submitters pick the same or a different available worker; values at or beyond
     * {@code count()} simply end the round, so an index is never invalid.
     */
    int cursor;
}

/** 128 bytes after the visit. */
abstract class InterleavedWeightedRoundRobinPadAfter extends InterleavedWeightedRoundRobinVisit {
    long p20, p21, p22, p23, p24, p25, p26, p27, p28, p29, p2a, p2b, p2c, p2d, p2e, p2f;
}
