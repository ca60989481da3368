package dev.turntable.pool.stats;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
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
public final class MovingAverage implements TaskTimeWindow {

    private static final VarHandle ESTIMATE;
    private static final VarHandle SIZE;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            ESTIMATE = lookup.findVarHandle(MovingAverage.class, "estimateNanos", long.class);
            SIZE = lookup.findVarHandle(MovingAverage.class, "publishedSize", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    // Writer-thread state: plain fields, only ever touched by the single writer.
    private final long[] samplesNanos;
    private int next;
    private int count;
    private long sumNanos;

    // Published state: written by the writer with setRelease, read by anyone with getAcquire.
    @SuppressWarnings("unused") // accessed through ESTIMATE
    private long estimateNanos;
    @SuppressWarnings("unused") // accessed through SIZE
    private int publishedSize;

    /**
     * An empty window; construct it on any thread and hand it to the writer.
     *
     * @param windowSize {@value TaskTimeWindows#MIN_WINDOW}..{@value TaskTimeWindows#MAX_WINDOW}
     * @throws IllegalArgumentException naming the value and the allowed range
     */
    public MovingAverage(int windowSize) {
        this.samplesNanos = new long[TaskTimeWindows.checkWindowSize(windowSize)];
    }

    @Override
    public void add(long sampleNanos) {
        long sample = TaskTimeWindow.clampSampleNanos(sampleNanos);
        int slot = next;
        if (count == samplesNanos.length) {
            sumNanos -= samplesNanos[slot];
        } else {
            count++;
            publishSize(count);
        }
        samplesNanos[slot] = sample;
        sumNanos += sample;
        next = slot + 1 == samplesNanos.length ? 0 : slot + 1;
        publishEstimate(sumNanos / count);
    }

    @Override
    public long estimateNanos() {
        // Acquire pairs with the writer's release store. A 64-bit VarHandle access in any mode
        // other than plain is atomic, so a reader never sees half of one estimate and half of
        // another (a plain long may tear on 32-bit JVMs, JLS 17.7), and the acquire read cannot be
        // hoisted out of a caller's loop, so a spinning reader does see new estimates.
        return (long) ESTIMATE.getAcquire(this);
    }

    @Override
    public int size() {
        // Acquire pairs with publishSize's release store; an int is never torn, acquire only
        // guarantees freshness (the read is not cached in a register across calls).
        return (int) SIZE.getAcquire(this);
    }

    @Override
    public int copySamples(long[] dest) {
        // Until the window is full the samples sit at [0, count); once full, every slot holds one.
        System.arraycopy(samplesNanos, 0, dest, 0, count);
        return count;
    }

    @Override
    public int capacity() {
        return samplesNanos.length;
    }

    @Override
    public void clear() {
        Arrays.fill(samplesNanos, 0L);
        next = 0;
        count = 0;
        sumNanos = 0;
        publishSize(0);
        publishEstimate(0);
    }

    /** The running sum of the samples held; writer thread only (for tests and diagnostics). */
    long sumNanos() {
        return sumNanos;
    }

    private void publishEstimate(long valueNanos) {
        // Release, not volatile: readers need only this one long, atomically and soon, with no
        // ordering against other shared fields (the ring and sum are never read by other threads).
        // Release gives atomicity and visibility while sparing the worker the StoreLoad fence a
        // volatile store costs on every task; on x86 it compiles to a plain store.
        ESTIMATE.setRelease(this, valueNanos);
    }

    private void publishSize(int size) {
        // Same reasoning as publishEstimate; written only while the window fills up or is cleared.
        SIZE.setRelease(this, size);
    }

    @Override
    public String toString() {
        return "MovingAverage{capacity=" + capacity() + ", size=" + size()
                + ", estimateNanos=" + estimateNanos() + '}';
    }
}
