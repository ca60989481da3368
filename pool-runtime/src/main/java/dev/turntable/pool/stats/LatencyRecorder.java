package dev.turntable.pool.stats;

import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.WriterReaderPhaser;

/**
 * Records one latency measurement (run time or wait time) of one pool's tasks into per-worker
 * histograms and summarises them per interval; each worker thread records into its own slot, any
 * thread may grow the slots, take interval snapshots or reset.
 *
 * <p>Each worker slot owns a pair of HdrHistograms flipped by a {@link WriterReaderPhaser}, the
 * design of HdrHistogram's {@code Recorder} (one writer each, merged only when read: a recorder
 * shared by several writers costs 100–540 ns per sample once they contend). Unlike
 * {@code SingleWriterRecorder}, whose two atomic phaser operations per sample cost about four
 * times the histogram update itself, a slot buffers up to {@value #BATCH} samples and enters the
 * phaser once per batch; the worker also flushes whenever it goes idle ({@link #flush}).
 *
 * <p>Guarantees:
 * <ul>
 *   <li>{@link #record} is wait-free and allocation-free: it never takes a lock and never waits
 *       for a reader, for {@link #ensureSlots} or for another worker.</li>
 *   <li>Each recorded sample appears in exactly one {@link #intervalSnapshot()}, unless
 *       {@link #reset()} discards it first: none is lost and none is counted twice. A sample is
 *       visible to snapshots once its slot is flushed: when {@value #BATCH} samples have
 *       accumulated, or when the owner calls {@link #flush} (the engine does whenever a worker
 *       goes idle or leaves the pool). A flushed sample whose flush finished before {@code intervalSnapshot()}
 *       began is in that snapshot; one flushed concurrently lands in that snapshot or the next.
 *       So a busy worker defers at most {@value #BATCH}{@code  - 1} samples to a later interval.</li>
 *   <li>The first snapshot covers everything since construction; each later one everything
 *       since the previous snapshot or {@code reset()}.</li>
 *   <li>{@link #ensureSlots} never discards a sample: existing slots keep their recorders, and a
 *       worker still holding the old slot array records into the same recorder as the new one.</li>
 *   <li>Values keep 3 significant decimal digits (at most 0.1% relative error). Samples are
 *       clamped to {@code [0, highestTrackableNanos]} rather than rejected, so an outlier shows
 *       up as the ceiling instead of throwing on the worker.</li>
 *   <li>{@code intervalSnapshot()} and {@code reset()} are serialised by a lock that workers never
 *       touch; they may wait briefly for in-flight {@code record} calls to finish (HdrHistogram's
 *       phaser flip), never the other way round.</li>
 *   <li>Interval histograms are recycled: once every slot has been snapshotted, a snapshot
 *       allocates only the returned {@link LatencySnapshot}.</li>
 * </ul>
 *
 * <p>Footprint: each slot holds three histograms (active, inactive, recycled) and the recorder
 * one merge target, each of about {@code 8 * 1024 * (log2(highestTrackableNanos / 2048) + 2)}
 * bytes: about 220 KiB each for a highest value of one minute.
 */
public final class LatencyRecorder {

    /** Decimal precision of every histogram. */
    public static final int SIGNIFICANT_DIGITS = 3;
    /** Samples a worker buffers before it enters the phaser once to record them all. */
    public static final int BATCH = 64;

    private final long highestTrackableNanos;
    /**
     * Copy-on-write: replaced (never mutated) under {@link #growthLock}, read without a lock.
     * Volatile so that a worker's read sees a fully built array whose new slots are published.
     */
    private volatile Slot[] slots;
    private final Object growthLock = new Object();

    private final ReentrantLock readerLock = new ReentrantLock();
    /** Merge target of {@link #intervalSnapshot()}; guarded by {@link #readerLock}. */
    private final Histogram merged;

    /**
     * A recorder with {@code initialSlots} worker slots; any thread.
     *
     * @param initialSlots          worker slots to create now, {@code >= 0}
     * @param highestTrackableNanos largest distinguishable sample, {@code >= 2}; larger ones are clamped
     * @throws IllegalArgumentException naming the bad value and the allowed range
     */
    public LatencyRecorder(int initialSlots, long highestTrackableNanos) {
        if (initialSlots < 0) {
            throw new IllegalArgumentException("initialSlots " + initialSlots + " must be >= 0");
        }
        if (highestTrackableNanos < 2) {
            throw new IllegalArgumentException("highestTrackableNanos " + highestTrackableNanos
                    + " must be >= 2");
        }
        this.highestTrackableNanos = highestTrackableNanos;
        // This constructor fixes the range: no auto-resize, so record never reallocates.
        this.merged = new Histogram(1, highestTrackableNanos, SIGNIFICANT_DIGITS);
        Slot[] initial = new Slot[initialSlots];
        for (int i = 0; i < initialSlots; i++) {
            initial[i] = new Slot(highestTrackableNanos);
        }
        this.slots = initial;
    }

    /**
     * Records one sample into {@code slot}. Only the worker thread that owns {@code slot} may call
     * this (one writer per slot at a time; a later owner needs a happens-before edge from the
     * earlier one, such as thread start). Wait-free, allocation-free.
     *
     * @param slot  the calling worker's slot, {@code 0 .. slotCount() - 1}
     * @param nanos the duration, clamped to {@code [0, highestTrackableNanos]}
     * @throws IndexOutOfBoundsException if {@code slot} has not been created by the constructor or
     *                                   {@link #ensureSlots}
     */
    public void record(int slot, long nanos) {
        // One volatile read (acquire) pairs with the volatile write in ensureSlots: the array and
        // the Slot objects it references (final fields, built before the write) are fully visible.
        // A stale array is harmless: every array shares the same Slot instance for a given index.
        Slot[] current = slots;
        Objects.checkIndex(slot, current.length);
        long value = nanos < 0 ? 0 : Math.min(nanos, highestTrackableNanos);
        Slot s = current[slot];
        s.pending[s.pendingCount++] = value; // owner-only fields: plain access is safe
        if (s.pendingCount == BATCH) {
            s.flush();
        }
    }

    /**
     * Makes the samples {@code slot} has buffered visible to the next snapshot. Only the worker
     * thread that owns {@code slot} may call this; cheap when nothing is buffered.
     */
    public void flush(int slot) {
        Slot[] current = slots;
        Objects.checkIndex(slot, current.length);
        Slot s = current[slot];
        if (s.pendingCount > 0) {
            s.flush();
        }
    }

    /**
     * Grows the recorder to at least {@code count} slots (never shrinks); any thread, and safe
     * while workers record and readers snapshot. Call it before a worker with a new slot starts.
     *
     * @throws IllegalArgumentException if {@code count} is negative
     */
    public void ensureSlots(int count) {
        if (count < 0) {
            throw new IllegalArgumentException("slot count " + count + " must be >= 0");
        }
        if (count <= slots.length) {
            return; // fast path: volatile read, no lock
        }
        synchronized (growthLock) {
            Slot[] old = slots;
            if (count <= old.length) {
                return; // another thread grew it while we waited
            }
            Slot[] grown = Arrays.copyOf(old, count);
            for (int i = old.length; i < count; i++) {
                grown[i] = new Slot(highestTrackableNanos);
            }
            // Volatile write (release) publishes the new Slots; readers and workers pick it up on
            // their next volatile read. Old slots are the same objects, so nothing is lost.
            slots = grown;
        }
    }

    /** Current number of slots; any thread. */
    public int slotCount() {
        return slots.length;
    }

    /** The ceiling samples are clamped to, nanoseconds. */
    public long highestTrackableNanos() {
        return highestTrackableNanos;
    }

    /**
     * Summarises every slot's samples recorded since the previous snapshot (or {@link #reset()},
     * or construction) and starts a new interval; any thread, concurrent callers are serialised.
     */
    public LatencySnapshot intervalSnapshot() {
        readerLock.lock();
        try {
            merged.reset();
            // Slots added after this volatile read are left for the next interval: nothing is lost.
            for (Slot s : slots) {
                s.takeInterval();
                merged.add(s.interval);
            }
            return LatencySnapshot.of(merged);
        } finally {
            readerLock.unlock();
        }
    }

    /** Discards every sample of the current interval; any thread, serialised with snapshots. */
    public void reset() {
        readerLock.lock();
        try {
            for (Slot s : slots) {
                // Flip and drop the interval: the same histograms keep being recycled.
                s.takeInterval();
            }
        } finally {
            readerLock.unlock();
        }
    }

    @Override
    public String toString() {
        return "LatencyRecorder{slots=" + slotCount() + ", highestTrackableNanos="
                + highestTrackableNanos + '}';
    }

    /**
     * One worker's histograms: the owner records into {@link #active} inside a phaser critical
     * section; the reader swaps it with {@link #interval} and flips the phaser, which waits for
     * any batch still being written into the old one. Then the old one is the interval.
     */
    private static final class Slot {
        final WriterReaderPhaser phaser = new WriterReaderPhaser();
        /** Volatile: a batch reads it once inside its critical section, after the reader's swap is published. */
        volatile Histogram active;
        /** The last interval taken, recycled as the next active one; guarded by readerLock. */
        Histogram interval;
        /** Owner-only buffer of samples not yet recorded. */
        final long[] pending = new long[BATCH];
        int pendingCount;

        Slot(long highestTrackableNanos) {
            this.active = new Histogram(1, highestTrackableNanos, SIGNIFICANT_DIGITS);
            this.interval = new Histogram(1, highestTrackableNanos, SIGNIFICANT_DIGITS);
        }

        /** Owner thread: records the buffered samples in one critical section. */
        void flush() {
            long phase = phaser.writerCriticalSectionEnter();
            try {
                Histogram h = active;
                for (int i = 0; i < pendingCount; i++) {
                    h.recordValue(pending[i]);
                }
            } finally {
                phaser.writerCriticalSectionExit(phase);
            }
            pendingCount = 0;
        }

        /** Reader, under readerLock: afterwards {@link #interval} holds what was flushed since the last call. */
        void takeInterval() {
            Histogram recycled = interval;
            recycled.reset();
            phaser.readerLock();
            try {
                interval = active;
                active = recycled;
                phaser.flipPhase(); // waits for batches that were writing into the old active
            } finally {
                phaser.readerUnlock();
            }
        }
    }
}
