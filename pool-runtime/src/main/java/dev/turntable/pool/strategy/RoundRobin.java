package dev.turntable.pool.strategy;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * {@code ROUND_ROBIN}: gives each task to the next available worker after the one that received
 * the previous task, cyclically in index order, skipping unavailable workers.
 *
 * <p>Threads: any, concurrently (submitting threads); no locks. The first task goes to the lowest
 * available index; there are no ties, since the order is fixed. Cost: O(1) when the worker after
 * the cursor is available, at most {@code count()} availability checks otherwise; no allocation.
 * Measures nothing: it reads only {@link WorkerView#count()} and {@link WorkerView#isAvailable}.
 */
public final class RoundRobin extends RoundRobinPadAfter implements WorkerChoiceStrategy {

    /** The name this strategy is registered under. */
    public static final String NAME = "ROUND_ROBIN";

    private static final Set<Statistic> REQUIRED = Collections.unmodifiableSet(EnumSet.noneOf(Statistic.class));

    /** A fresh strategy whose first pick is the lowest available index. */
    public RoundRobin() {
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
        int start = nextIndex;
        if (start < 0 || start >= n) {
            start = start < 0 ? 0 : start % n; // the pool shrank since the last call
        }
        int i = start;
        for (int step = 0; step < n; step++) {
            if (workers.isAvailable(i)) {
                nextIndex = i + 1 < n ? i + 1 : 0;
                return i;
            }
            i = i + 1 < n ? i + 1 : 0;
        }
        return NONE;
    }

    @Override
    public String toString() {
        return NAME;
    }
}

/*
 * The cursor has a cache line to itself: a submitter writes it on every choice, and on the
 * 16-byte object it was it shared its line with whatever the heap put beside it. When the queue's
 * constructor began allocating five more objects (the split of TurntableQueue), its neighbours
 * changed and ROUND_ROBIN's no-op dispatch fell ~17% (6 of 6 same-minute rounds, 6.10 -> 5.03 M
 * ops/s, benchmarks/RESULTS.md); padded, 6.06. Superclasses, because HotSpot lays out a class's
 * own fields in an order of its choosing but a superclass's fields always first; the padding
 * before, and why it is ints and 128 bytes, is StatePadBefore's.
 */

/** {@link RoundRobin}'s cursor. */
abstract class RoundRobinCursor extends StatePadBefore {
    /**
     * Index to try first on the next call. Plain field, read and written without synchronisation
     * by several submitters: a lost or stale update only makes two submitters pick the same or a
     * different available worker; it is reduced into {@code [0, count())} before use, so a value
     * left over from a larger pool never yields an invalid index.
     */
    int nextIndex;
}

/** 128 bytes after the cursor. */
abstract class RoundRobinPadAfter extends RoundRobinCursor {
    long p20, p21, p22, p23, p24, p25, p26, p27, p28, p29, p2a, p2b, p2c, p2d, p2e, p2f;
}
