package dev.turntable.pool.stats;

/**
 * A bounded window of the last {@link #capacity()} task-duration samples of one worker, and the
 * estimate of that worker's next task duration derived from them; {@link #add} and {@link #clear}
 * belong to the worker's own thread (single writer), {@link #estimateNanos()}, {@link #size()} and
 * {@link #capacity()} may be called from any thread.
 *
 * <p>Threading contract:
 * <ul>
 *   <li>{@link #add} and {@link #clear} are called by one thread at a time, normally the worker
 *       that owns the window. Handing the window to another writer (a replacement worker thread)
 *       needs a happens-before edge, which thread start and pool hand-over already provide.</li>
 *   <li>{@link #estimateNanos()} is called by any number of submitting threads concurrently with
 *       the writer. It never blocks, never allocates and never tears: it returns the estimate
 *       published by some completed {@code add}/{@code clear}, or 0 before the first sample.</li>
 *   <li>{@link #size()} may lag the writer by the samples it is adding at that moment.</li>
 * </ul>
 *
 * <p>Samples are clamped to {@code [0, MAX_SAMPLE_NANOS]}: a negative sample (a clock oddity) counts
 * as 0, and the upper bound keeps a full window's sum inside a {@code long}.
 */
public interface TaskTimeWindow {

    /**
     * The largest sample a window stores, about 26 days: {@code Long.MAX_VALUE / MAX_WINDOW}, so
     * the sum of a full window of the largest size can never overflow. Larger samples are clamped.
     */
    long MAX_SAMPLE_NANOS = Long.MAX_VALUE / TaskTimeWindows.MAX_WINDOW;

    /**
     * Adds one sample, evicting the oldest once the window holds {@link #capacity()} samples,
     * and publishes the new estimate. Writer thread only; O(1) or O(log N); does not allocate.
     *
     * @param sampleNanos a task duration in nanoseconds; clamped to {@code [0, MAX_SAMPLE_NANOS]}
     */
    void add(long sampleNanos);

    /**
     * The current estimate of the next task's duration in nanoseconds, or {@code 0} while the
     * window is empty. Any thread; lock-free, allocation-free, never torn.
     */
    long estimateNanos();

    /** Number of samples held now, {@code 0 .. capacity()}. Any thread (a recent value). */
    int size();

    /** Maximum number of samples held: the window size given at construction. Any thread. */
    int capacity();

    /** Forgets every sample; the estimate reads {@code 0} afterwards. Writer thread only. */
    void clear();

    /**
     * Copies the samples held now, in no particular order, into {@code dest} (at least
     * {@link #capacity()} long) and returns how many; what {@link ResidualTimeTable} is built
     * from. Writer thread only; allocates nothing. A window that cannot share its samples returns 0.
     */
    default int copySamples(long[] dest) {
        return 0;
    }

    /** Clamps a raw sample into {@code [0, MAX_SAMPLE_NANOS]}. */
    static long clampSampleNanos(long sampleNanos) {
        if (sampleNanos < 0) {
            return 0;
        }
        return Math.min(sampleNanos, MAX_SAMPLE_NANOS);
    }
}
