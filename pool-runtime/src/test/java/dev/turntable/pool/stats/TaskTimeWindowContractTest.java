package dev.turntable.pool.stats;

import static dev.turntable.pool.testing.Waits.awaitGone;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The {@link TaskTimeWindow} contract, run once per implementation by its subclasses
 * ({@link MovingAverageTest}, {@link MovingMedianTest}).
 */
abstract class TaskTimeWindowContractTest {

    /** Whether the implementation under test is the median. */
    abstract boolean median();

    /** The implementation's class, to check that the factory returns it. */
    abstract Class<? extends TaskTimeWindow> implementation();

    TaskTimeWindow window(int windowSize) {
        return TaskTimeWindows.create(median(), windowSize);
    }

    @Test
    void factoryCreatesTheImplementation() {
        assertInstanceOf(implementation(), window(TaskTimeWindows.DEFAULT_WINDOW));
    }

    @Test
    void emptyWindowEstimatesZero() {
        TaskTimeWindow w = window(8);
        assertEquals(0, w.estimateNanos());
        assertEquals(0, w.size());
        assertEquals(8, w.capacity());
    }

    @Test
    void singleSampleIsTheEstimate() {
        TaskTimeWindow w = window(5);
        w.add(1234);
        assertEquals(1234, w.estimateNanos());
        assertEquals(1, w.size());
    }

    @Test
    void neverHoldsMoreThanCapacityAndEvictsOldestFirst() {
        TaskTimeWindow w = window(4);
        for (int i = 0; i < 6; i++) {
            w.add(1_000_000);
            assertEquals(Math.min(i + 1, 4), w.size());
        }
        for (int i = 0; i < 3; i++) {
            w.add(10);
            assertEquals(4, w.size());
        }
        w.add(10);
        assertEquals(10, w.estimateNanos(), "all old samples evicted, oldest first");
        assertEquals(4, w.size());
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 5, 16})
    void fullWindowEstimatesLikeAFreshWindowOfItsLastSamples(int windowSize) {
        Random random = new Random(42 + windowSize);
        long[] history = new long[500];
        TaskTimeWindow w = window(windowSize);
        for (int i = 0; i < history.length; i++) {
            history[i] = random.nextInt(1000);
            w.add(history[i]);
            TaskTimeWindow fresh = window(windowSize);
            for (int j = Math.max(0, i + 1 - windowSize); j <= i; j++) {
                fresh.add(history[j]);
            }
            assertEquals(fresh.estimateNanos(), w.estimateNanos(), "after sample " + i);
            assertEquals(fresh.size(), w.size());
        }
    }

    @Test
    void clearForgetsEverything() {
        TaskTimeWindow w = window(3);
        w.add(50);
        w.add(60);
        w.add(70);
        w.add(80);
        w.clear();
        assertEquals(0, w.estimateNanos());
        assertEquals(0, w.size());
        assertEquals(3, w.capacity());
        w.add(7);
        assertEquals(7, w.estimateNanos(), "no sample from before clear() survives");
        assertEquals(1, w.size());
    }

    @Test
    void samplesAreClampedToTheAllowedRange() {
        TaskTimeWindow w = window(1);
        w.add(-5);
        assertEquals(0, w.estimateNanos());
        w.add(Long.MAX_VALUE);
        assertEquals(TaskTimeWindow.MAX_SAMPLE_NANOS, w.estimateNanos());
        TaskTimeWindow full = window(TaskTimeWindows.MAX_WINDOW);
        for (int i = 0; i < 2 * TaskTimeWindows.MAX_WINDOW; i++) {
            full.add(Long.MAX_VALUE);
        }
        assertEquals(TaskTimeWindow.MAX_SAMPLE_NANOS, full.estimateNanos(), "no overflow");
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1, Integer.MIN_VALUE, 4097, Integer.MAX_VALUE})
    void rejectsWindowSizesOutsideTheRange(int windowSize) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> window(windowSize));
        assertTrue(e.getMessage().contains(String.valueOf(windowSize)), e.getMessage());
        assertTrue(e.getMessage().contains("1..4096"), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 64, 4096})
    void acceptsWindowSizesInsideTheRange(int windowSize) {
        assertEquals(windowSize, window(windowSize).capacity());
    }

    @Test
    void concurrentReadersNeverSeeATornEstimate() throws InterruptedException {
        // Two estimates differing in both 32-bit halves; a torn read would mix them.
        long a = (1L << 40) | 0xFFFF_FFFFL;
        long b = (2L << 40) | 0x1L;
        TaskTimeWindow w = window(1);
        CountDownLatch start = new CountDownLatch(1);
        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicReference<Long> bad = new AtomicReference<>();
        Thread writer = new Thread(() -> {
            awaitQuietly(start);
            for (int i = 0; i < 500_000; i++) {
                w.add((i & 1) == 0 ? a : b);
            }
            writing.set(false);
        });
        Thread reader = new Thread(() -> {
            awaitQuietly(start);
            while (writing.get()) {
                long seen = w.estimateNanos();
                if (seen != 0 && seen != a && seen != b) {
                    bad.compareAndSet(null, seen);
                }
            }
        });
        writer.start();
        reader.start();
        start.countDown();
        awaitGone(writer);
        awaitGone(reader);
        assertNull(bad.get(), "torn estimate read");
        assertTrue(w.estimateNanos() == a || w.estimateNanos() == b);
    }

    @Test
    void addAndEstimateDoNotAllocate() {
        java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        Assumptions.assumeTrue(bean instanceof com.sun.management.ThreadMXBean,
                "needs com.sun.management.ThreadMXBean");
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) bean;
        Assumptions.assumeTrue(threads.isThreadAllocatedMemorySupported());
        threads.setThreadAllocatedMemoryEnabled(true);
        TaskTimeWindow w = window(TaskTimeWindows.DEFAULT_WINDOW);
        long sink = exercise(w, 200_000); // warm up: link VarHandles, compile
        long before = threads.getCurrentThreadAllocatedBytes();
        sink += exercise(w, 200_000);
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        // 200k samples allocating even 8 bytes each would be 1.6 MB.
        assertTrue(allocated < 64 * 1024, "allocated " + allocated + " bytes (sink " + sink + ")");
    }

    private static long exercise(TaskTimeWindow w, int samples) {
        long sink = 0;
        for (int i = 0; i < samples; i++) {
            w.add((i * 7919L) % 100_000);
            sink += w.estimateNanos();
        }
        return sink;
    }

    static void awaitQuietly(CountDownLatch latch) {
        try {
            if (!latch.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("latch timed out");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
