package dev.turntable.pool.stats;

import java.util.Arrays;

/**
 * A {@link TaskTimeWindow} whose estimate is the simple moving average of its samples; one writer
 * thread adds samples, any number of threads read the estimate.
 *
 * <p>A ring buffer of the last {@code capacity} samples plus a running sum: each {@link #add} is
 * O(1) (add the new sample, subtract the evicted one) and allocation-free. The sum is exact: samples
 * are clamped to {@link TaskTimeWindow#MAX_SAMPLE_NANOS}, so even a full window of the largest size
 * cannot overflow, and integer arithmetic never drifts however many samples pass through.
 *
 * <p>The estimate is {@code floor(sum / size)}; for example samples 1, 1, 100 estimate 34.
 */
public final class MovingAverage extends RingWindow {

    // Writer-thread state: a plain field, only ever touched by the single writer.
    private long sumNanos;

    /**
     * An empty window; construct it on any thread and hand it to the writer.
     *
     * @param windowSize {@value TaskTimeWindows#MIN_WINDOW}..{@value TaskTimeWindows#MAX_WINDOW}
     * @throws IllegalArgumentException naming the value and the allowed range
     */
    public MovingAverage(int windowSize) {
        super(windowSize);
    }

    @Override
    public void add(long sampleNanos) {
        long sample = TaskTimeWindow.clampSampleNanos(sampleNanos);
        boolean full = isFull();
        int slot = takeSlot();
        if (full) {
            sumNanos -= samplesNanos[slot];
        } else {
            grow();
        }
        samplesNanos[slot] = sample;
        sumNanos += sample;
        publishEstimate(sumNanos / count());
    }

    @Override
    public void clear() {
        Arrays.fill(samplesNanos, 0L);
        sumNanos = 0;
        empty();
    }

    /** The running sum of the samples held; writer thread only (for tests and diagnostics). */
    long sumNanos() {
        return sumNanos;
    }
}
