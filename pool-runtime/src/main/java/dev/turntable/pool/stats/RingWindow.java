package dev.turntable.pool.stats;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * What {@link MovingAverage} and {@link MovingMedian} share: a ring buffer of the last
 * {@code capacity} samples, written by one thread, and the estimate and size that any thread
 * reads. A subclass adds each sample to its own running state ({@link #add}) and publishes the
 * estimate that state gives.
 */
abstract class RingWindow implements TaskTimeWindow {

    private static final VarHandle ESTIMATE;
    private static final VarHandle SIZE;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            ESTIMATE = lookup.findVarHandle(RingWindow.class, "estimateNanos", long.class);
            SIZE = lookup.findVarHandle(RingWindow.class, "publishedSize", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    // Writer-thread state: plain fields, only ever touched by the single writer.
    /** The samples: at [0, count) until the window is full, then in every slot. */
    final long[] samplesNanos;
    private int next;
    private int count;

    // Published state: written by the writer with setRelease, read by anyone with getAcquire.
    @SuppressWarnings("unused") // accessed through ESTIMATE
    private long estimateNanos;
    @SuppressWarnings("unused") // accessed through SIZE
    private int publishedSize;

    /**
     * @param windowSize {@value TaskTimeWindows#MIN_WINDOW}..{@value TaskTimeWindows#MAX_WINDOW}
     * @throws IllegalArgumentException naming the value and the allowed range
     */
    RingWindow(int windowSize) {
        this.samplesNanos = new long[TaskTimeWindows.checkWindowSize(windowSize)];
    }

    /** Writer: whether every slot holds a sample, so that the next one evicts the oldest. */
    final boolean isFull() {
        return count == samplesNanos.length;
    }

    /** Writer: the slot the next sample goes in (the oldest, once full); the one after it is next. */
    final int takeSlot() {
        int slot = next;
        next = slot + 1 == samplesNanos.length ? 0 : slot + 1;
        return slot;
    }

    /** Writer, while not full: one more sample is held. */
    final void grow() {
        count++;
        publishSize(count);
    }

    /** Writer: no samples, estimate 0; a subclass clears its own state too. */
    final void empty() {
        next = 0;
        count = 0;
        publishSize(0);
        publishEstimate(0);
    }

    /** Writer: how many samples are held. */
    final int count() {
        return count;
    }

    @Override
    public final long estimateNanos() {
        // Acquire pairs with the writer's release store. A 64-bit VarHandle access in any mode
        // other than plain is atomic, so a reader never sees half of one estimate and half of
        // another (a plain long may tear on 32-bit JVMs, JLS 17.7), and the acquire read cannot be
        // hoisted out of a caller's loop, so a spinning reader does see new estimates.
        return (long) ESTIMATE.getAcquire(this);
    }

    @Override
    public final int size() {
        // Acquire pairs with publishSize's release store; an int is never torn, acquire only
        // guarantees freshness (the read is not cached in a register across calls).
        return (int) SIZE.getAcquire(this);
    }

    @Override
    public final int copySamples(long[] dest) {
        // Until the window is full the samples sit at [0, count); once full, every slot holds one.
        System.arraycopy(samplesNanos, 0, dest, 0, count);
        return count;
    }

    @Override
    public final int capacity() {
        return samplesNanos.length;
    }

    final void publishEstimate(long valueNanos) {
        // Release, not volatile: readers need only this one long, atomically and soon, with no
        // ordering against other shared fields (the ring and a subclass's state are never read by
        // other threads). Release gives atomicity and visibility while sparing the worker the
        // StoreLoad fence a volatile store costs on every task; on x86 it compiles to a plain store.
        ESTIMATE.setRelease(this, valueNanos);
    }

    private void publishSize(int size) {
        // Same reasoning as publishEstimate; written only while the window fills up or is cleared.
        SIZE.setRelease(this, size);
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "{capacity=" + capacity() + ", size=" + size()
                + ", estimateNanos=" + estimateNanos() + '}';
    }
}
