package dev.turntable.pool.stats;

import java.util.Arrays;

/**
 * A {@link TaskTimeWindow} whose estimate is the simple moving median of its samples; one writer
 * thread adds samples, any number of threads read the estimate.
 *
 * <p>Unlike the average, the median ignores rare outliers: samples 1, 1, 100 estimate 1, not 34.
 * With an even number of samples the estimate is the <em>lower</em> of the two middle samples
 * (samples 1, 2, 3, 4 estimate 2): always one of the recorded samples, deterministic, and never
 * a rounded mean.
 *
 * <p>Algorithm: the samples live in a ring buffer. Each ring slot is also an element of one of
 * two indexed binary heaps: a max-heap holding the lower half ({@code ceil(n/2)} samples) and a
 * min-heap holding the upper half ({@code floor(n/2)} samples), so the median is the max-heap's
 * root. Each heap records every slot's position in it, so when the window is full the oldest slot
 * is overwritten in place with the new sample and re-sifted, followed by at most one exchange of
 * the two roots: O(log N) per sample, no rebalancing, and all arrays preallocated at construction.
 */
public final class MovingMedian extends RingWindow {

    // Writer-thread state: plain fields, only ever touched by the single writer.
    private final IndexedHeap lower;
    private final IndexedHeap upper;

    /**
     * An empty window; construct it on any thread and hand it to the writer.
     *
     * @param windowSize {@value TaskTimeWindows#MIN_WINDOW}..{@value TaskTimeWindows#MAX_WINDOW}
     * @throws IllegalArgumentException naming the value and the allowed range
     */
    public MovingMedian(int windowSize) {
        super(windowSize);
        int n = samplesNanos.length;
        this.lower = new IndexedHeap(samplesNanos, (n + 1) / 2, true);
        this.upper = new IndexedHeap(samplesNanos, n / 2, false);
    }

    @Override
    public void add(long sampleNanos) {
        long sample = TaskTimeWindow.clampSampleNanos(sampleNanos);
        boolean full = isFull();
        int slot = takeSlot();
        samplesNanos[slot] = sample;
        if (full) {
            replace(slot);
        } else {
            insert(slot, sample);
            grow();
        }
        publishEstimate(samplesNanos[lower.root()]);
    }

    /** Full window: {@code slot} (the evicted oldest) already holds the new sample. */
    private void replace(int slot) {
        if (lower.contains(slot)) {
            lower.update(slot);
        } else {
            upper.update(slot);
        }
        // Only one value changed, so at most one element is on the wrong side: swapping the roots
        // restores "every lower sample <= every upper sample" with the halves' sizes unchanged.
        if (upper.size() > 0 && samplesNanos[lower.root()] > samplesNanos[upper.root()]) {
            int fromLower = lower.root();
            int fromUpper = upper.root();
            lower.replaceRoot(fromUpper);
            upper.replaceRoot(fromLower);
        }
    }

    /**
     * Growing window: the lower half gains the sample when the halves are equal in size, else the
     * upper half does; if the sample belongs on the other side, that side's root crosses over
     * instead. Neither heap ever exceeds its final capacity.
     */
    private void insert(int slot, long sample) {
        if (lower.size() == upper.size()) {
            if (upper.size() > 0 && sample > samplesNanos[upper.root()]) {
                int crossing = upper.root();
                upper.replaceRoot(slot);
                lower.push(crossing);
            } else {
                lower.push(slot);
            }
        } else if (sample < samplesNanos[lower.root()]) {
            int crossing = lower.root();
            lower.replaceRoot(slot);
            upper.push(crossing);
        } else {
            upper.push(slot);
        }
    }

    @Override
    public void clear() {
        lower.clear();
        upper.clear();
        empty();
    }

    /**
     * A binary heap of ring-slot indices ordered by the samples in those slots, which knows each
     * slot's position so any slot can be re-sifted in O(log N). Writer thread only.
     */
    private static final class IndexedHeap {
        private final long[] values;
        private final int[] heap;
        private final int[] position; // position[slot] = index in heap, or -1 when absent
        private final boolean maxHeap;
        private int size;

        IndexedHeap(long[] values, int capacity, boolean maxHeap) {
            this.values = values;
            this.heap = new int[capacity];
            this.position = new int[values.length];
            this.maxHeap = maxHeap;
            Arrays.fill(position, -1);
        }

        int size() {
            return size;
        }

        int root() {
            return heap[0];
        }

        boolean contains(int slot) {
            return position[slot] >= 0;
        }

        void push(int slot) {
            place(slot, size++);
            siftUp(size - 1);
        }

        int pop() {
            int top = heap[0];
            position[top] = -1;
            size--;
            if (size > 0) {
                place(heap[size], 0);
                siftDown(0);
            }
            return top;
        }

        /** Removes the root and puts {@code slot} (not in this heap) in its place. */
        void replaceRoot(int slot) {
            position[heap[0]] = -1;
            place(slot, 0);
            siftDown(0);
        }

        /** Restores heap order after the value of {@code slot} (in this heap) changed. */
        void update(int slot) {
            int i = position[slot];
            siftUp(i);
            if (position[slot] == i) {
                siftDown(i);
            }
        }

        void clear() {
            for (int i = 0; i < size; i++) {
                position[heap[i]] = -1;
            }
            size = 0;
        }

        /** Whether slot {@code a} belongs above slot {@code b}. */
        private boolean above(int a, int b) {
            return maxHeap ? values[a] > values[b] : values[a] < values[b];
        }

        private void place(int slot, int i) {
            heap[i] = slot;
            position[slot] = i;
        }

        private void siftUp(int i) {
            int slot = heap[i];
            while (i > 0) {
                int parent = (i - 1) >>> 1;
                if (!above(slot, heap[parent])) {
                    break;
                }
                place(heap[parent], i);
                i = parent;
            }
            place(slot, i);
        }

        private void siftDown(int i) {
            int slot = heap[i];
            int half = size >>> 1;
            while (i < half) {
                int child = 2 * i + 1;
                int right = child + 1;
                if (right < size && above(heap[right], heap[child])) {
                    child = right;
                }
                if (!above(heap[child], slot)) {
                    break;
                }
                place(heap[child], i);
                i = child;
            }
            place(slot, i);
        }
    }
}
