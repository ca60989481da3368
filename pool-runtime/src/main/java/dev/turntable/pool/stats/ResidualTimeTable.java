package dev.turntable.pool.stats;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * A worker's recent task times, sorted, for predicting how much longer a task that has already
 * run for a while will take: the <em>mean residual life</em> {@code E[T - elapsed | T > elapsed]}
 * over the samples of a {@link TaskTimeWindow}. One thread (the worker that owns the window)
 * rebuilds it; any number of threads (submitters choosing a worker) read it concurrently.
 *
 * <p>Why: an average alone says a task 30 µs into a 1 ms job, in a mix of 10 µs and 1 ms tasks
 * averaging 60 µs, is about to end, and a 10 µs task 5 µs in has 55 µs left; a placement on that
 * basis queues short tasks behind long ones. The samples longer than the elapsed time say which
 * kind of task is running: past every short sample, only the long ones are left.
 *
 * <p>Guarantees:
 * <ul>
 *   <li>{@link #remainingNanos} is lock-free, allocation-free and O(log n): the mean of the
 *       published samples longer than {@code elapsedNanos}, minus {@code elapsedNanos} (so at
 *       least 1), or {@link #UNKNOWN} when no published sample is that long or nothing is
 *       published. It answers from one complete table, never a mix of two: a read that overlaps a
 *       rebuild of the table it was reading answers {@link #UNKNOWN} instead.</li>
 *   <li>{@link #rebuild} and {@link #clear} are for the owning thread only, allocate nothing
 *       after construction, and publish with a release store; {@link #rebuild} costs a copy and a
 *       sort of the window, which is why the owner calls it only when {@link #rebuildDue} says.</li>
 *   <li>Sums cannot overflow: a window holds at most {@link TaskTimeWindows#MAX_WINDOW} samples of
 *       at most {@link TaskTimeWindow#MAX_SAMPLE_NANOS} each.</li>
 * </ul>
 */
public final class ResidualTimeTable {

    /** What {@link #remainingNanos} answers when the table cannot tell. */
    public static final long UNKNOWN = -1L;

    /** While a window fills up to this many samples, every sample rebuilds the table. */
    static final int REBUILD_EVERY_MIN = 16;

    private static final VarHandle VERSION;

    static {
        try {
            VERSION = MethodHandles.lookup().findVarHandle(Table.class, "version", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** One of two tables the owner alternates between; readers validate {@link #version}. */
    private static final class Table {
        final long[] sortedNanos;
        /** {@code tailSumNanos[k]} = sum of {@code sortedNanos[k..count)}. */
        final long[] tailSumNanos;
        int count;
        /**
         * {@link #remainingNanos}'s answer for an elapsed time of 0 (or {@link #UNKNOWN}), worked
         * out at rebuild: it is the common question once most running tasks' starts are unknown
         * (tiny tasks, timed only in a sample), and answered from this one field it reads one
         * cache line instead of a binary search's several.
         */
        long atStartNanos;
        /** Odd while the owner rewrites this table, even when complete. */
        @SuppressWarnings("unused") // accessed through VERSION
        long version;

        Table(int capacity) {
            sortedNanos = new long[capacity];
            tailSumNanos = new long[capacity];
            atStartNanos = UNKNOWN;
        }
    }

    private final Table first;
    private final Table second;
    /** Owner-private: samples since the last rebuild; starts due, so a new table builds at once. */
    private int samplesSinceRebuild = Integer.MAX_VALUE - 1;
    /** The table readers use; volatile so a new one is seen with its contents (release/acquire). */
    private volatile Table current;

    /** An empty table for windows of up to {@code capacity} samples. */
    public ResidualTimeTable(int capacity) {
        int n = TaskTimeWindows.checkWindowSize(capacity);
        first = new Table(n);
        second = new Table(n);
        current = first;
    }

    /**
     * Whether the owner should rebuild after its window took its {@code samplesSinceRebuild}-th
     * sample since the last rebuild: at every sample while the window holds at most
     * {@value #REBUILD_EVERY_MIN}, then each time as many samples have arrived as the window
     * holds (every {@code capacity} samples once it is full). One sort per window's worth of
     * samples: the JDK sorts windows of up to 64 by insertion, O(size²), so O(size) per sample
     * amortised. Rebuilt every quarter window, as it once was, the sort was 23% of FAIR_SHARE's
     * no-op CPU (async-profiler); the benchmark simulator's latencies did not move (short-task
     * p99 without stealing 1.13× / 1.51× TPE at 25% / 40% load, 1.13× / 1.52× after).
     * Owner thread.
     */
    public static boolean rebuildDue(int samplesSinceRebuild, TaskTimeWindow window) {
        return window.size() <= REBUILD_EVERY_MIN
                || samplesSinceRebuild >= window.size(); // past the first clause, size > 16
    }

    /**
     * Owner thread, after each sample {@code window} takes: rebuilds when {@link #rebuildDue}
     * says, and on the first call (switched on live, the window may already hold a full history).
     */
    public void sampleAdded(TaskTimeWindow window) {
        if (rebuildDue(++samplesSinceRebuild, window)) {
            samplesSinceRebuild = 0;
            rebuild(window);
        }
    }

    /** Replaces the table with {@code window}'s current samples. Owner thread only. */
    public void rebuild(TaskTimeWindow window) {
        Table t = beginRewrite();
        int n = Math.min(window.copySamples(t.sortedNanos), t.sortedNanos.length);
        Arrays.sort(t.sortedNanos, 0, n);
        long sum = 0;
        for (int i = n - 1; i >= 0; i--) {
            sum += t.sortedNanos[i];
            t.tailSumNanos[i] = sum;
        }
        t.count = n;
        t.atStartNanos = residual(t, n, 0L);
        publish(t);
    }

    /** Publishes an empty table (statistics reset, or a new window). Owner thread only. */
    public void clear() {
        Table t = beginRewrite();
        t.count = 0;
        t.atStartNanos = UNKNOWN;
        publish(t);
    }

    /** Owner: marks the table readers are not given now as being rewritten (odd), and returns it. */
    private Table beginRewrite() {
        Table t = current == first ? second : first; // readers may still hold it: version guards
        // Odd first, then a StoreStore fence: no write of the contents that follows can become
        // visible before a reader can see that the table is being rewritten.
        VERSION.setOpaque(t, (long) VERSION.get(t) + 1);
        VarHandle.storeStoreFence();
        return t;
    }

    /** Owner: completes {@code t} (even again) and hands it to readers. */
    private void publish(Table t) {
        // Release: the contents written before are visible to whoever reads this even version.
        VERSION.setRelease(t, (long) VERSION.get(t) + 1);
        current = t;
    }

    /**
     * The expected remaining time of a task that has run for {@code elapsedNanos}: the mean of
     * the published samples longer than that, minus it; or {@link #UNKNOWN}. Any thread.
     */
    public long remainingNanos(long elapsedNanos) {
        Table t = current;
        // Acquire pairs with the owner's release of this even version: the contents read below
        // are at least that complete table's.
        long v = (long) VERSION.getAcquire(t);
        if ((v & 1) != 0) {
            return UNKNOWN;
        }
        long answer = elapsedNanos == 0 ? t.atStartNanos
                : residual(t, Math.max(0, Math.min(t.count, t.sortedNanos.length)), elapsedNanos);
        // LoadLoad: the plain reads above are done before the version is read again; if the owner
        // began rewriting this table meanwhile, the version has moved and the answer is dropped.
        VarHandle.acquireFence();
        return (long) VERSION.getOpaque(t) != v ? UNKNOWN : answer;
    }

    /**
     * The mean of {@code t}'s first {@code n} sorted samples that are longer than
     * {@code elapsedNanos}, minus it; {@link #UNKNOWN} when none is. Plain reads: the caller
     * validates the version (a reader, {@code n} bounded by the array) or owns the table.
     */
    private static long residual(Table t, int n, long elapsedNanos) {
        long[] sorted = t.sortedNanos;
        int lo = 0;
        int hi = n;
        while (lo < hi) { // the first sample longer than elapsed
            int mid = (lo + hi) >>> 1;
            if (sorted[mid] > elapsedNanos) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return lo >= n ? UNKNOWN : t.tailSumNanos[lo] / (n - lo) - elapsedNanos;
    }

    /** Samples in the published table (for tests and monitoring). Any thread. */
    public int size() {
        return current.count;
    }
}
