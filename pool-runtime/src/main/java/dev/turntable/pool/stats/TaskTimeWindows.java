package dev.turntable.pool.stats;

/**
 * Static factory for {@link TaskTimeWindow}s: a moving average or a moving median over a window of
 * a validated size; stateless, any thread may call it.
 */
public final class TaskTimeWindows {

    /**
     * The window size used unless configured otherwise: 64 samples.
     *
     * <ul>
     *   <li>Stable enough: one outlier moves a 64-sample average by 1/64 of its excess, and cannot
     *       move the median at all until about half the window (32 samples) are outliers.</li>
     *   <li>Responsive enough: after a workload change a worker's estimate has fully caught up
     *       within 64 of its own tasks, i.e. within milliseconds for short tasks.</li>
     *   <li>Cheap: 512 bytes of samples for the average and about 1.5 KiB for the median per
     *       worker, small enough to stay in the writer's L1/L2 cache; median updates cost about
     *       2 x log2(64) = 12 heap sift steps.</li>
     * </ul>
     */
    public static final int DEFAULT_WINDOW = 64;

    /** Smallest allowed window size. */
    public static final int MIN_WINDOW = 1;

    /**
     * Largest allowed window size: bounds per-worker memory (32 KiB of samples) and, through
     * {@link TaskTimeWindow#MAX_SAMPLE_NANOS}, keeps a full window's sum inside a {@code long}.
     */
    public static final int MAX_WINDOW = 4096;

    private TaskTimeWindows() {
    }

    /**
     * A new, empty window.
     *
     * @param median     {@code true} for a {@link MovingMedian}, {@code false} for a {@link MovingAverage}
     * @param windowSize number of samples kept, {@value #MIN_WINDOW}..{@value #MAX_WINDOW}
     * @throws IllegalArgumentException naming the value and the allowed range
     */
    public static TaskTimeWindow create(boolean median, int windowSize) {
        return median ? new MovingMedian(windowSize) : new MovingAverage(windowSize);
    }

    /**
     * Checks a window size.
     *
     * @return {@code windowSize}
     * @throws IllegalArgumentException naming the value and the allowed range
     */
    static int checkWindowSize(int windowSize) {
        if (windowSize < MIN_WINDOW || windowSize > MAX_WINDOW) {
            throw new IllegalArgumentException("task time window size " + windowSize
                    + " is outside the allowed range " + MIN_WINDOW + ".." + MAX_WINDOW);
        }
        return windowSize;
    }
}
