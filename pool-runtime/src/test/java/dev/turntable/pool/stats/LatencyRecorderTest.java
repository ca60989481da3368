package dev.turntable.pool.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

class LatencyRecorderTest {

    private static final long TEN_SECONDS_NANOS = TimeUnit.SECONDS.toNanos(10);

    /** Within HdrHistogram's 3-significant-digit precision (0.1%), plus one unit. */
    private static void assertClose(long expected, long actual, String what) {
        long tolerance = expected / 1000 + 1;
        assertTrue(Math.abs(actual - expected) <= tolerance,
                what + ": expected ~" + expected + " but was " + actual);
    }

    /** Records as a worker that flushes after every sample would. */
    private static void recordFlushed(LatencyRecorder recorder, int slot, long nanos) {
        recorder.record(slot, nanos);
        recorder.flush(slot);
    }

    @Test
    void bufferedSamplesAppearOnceFlushedOrOnceABatchIsFull() {
        LatencyRecorder recorder = new LatencyRecorder(1, TEN_SECONDS_NANOS);
        for (int i = 0; i < LatencyRecorder.BATCH - 1; i++) {
            recorder.record(0, 1_000);
        }
        assertSame(LatencySnapshot.EMPTY, recorder.intervalSnapshot(), "still buffered by the worker");
        recorder.record(0, 2_000); // the batch is full: recorded
        assertEquals(LatencyRecorder.BATCH, recorder.intervalSnapshot().count());
        recorder.record(0, 3_000);
        recorder.flush(0); // what a worker does when it goes idle
        LatencySnapshot s = recorder.intervalSnapshot();
        assertEquals(1, s.count());
        assertClose(3_000, s.maxNanos(), "the flushed sample");
    }

    @Test
    void knownSamplesGiveTheirPercentiles() {
        LatencyRecorder recorder = new LatencyRecorder(1, TEN_SECONDS_NANOS);
        for (int i = 1; i <= 10_000; i++) {
            recordFlushed(recorder, 0, i * 1_000L);
        }
        LatencySnapshot s = recorder.intervalSnapshot();
        assertEquals(10_000, s.count());
        assertClose(5_000_000, s.p50Nanos(), "p50");
        assertClose(9_000_000, s.p90Nanos(), "p90");
        assertClose(9_900_000, s.p99Nanos(), "p99");
        assertClose(9_990_000, s.p999Nanos(), "p99.9");
        assertClose(10_000_000, s.maxNanos(), "max");
    }

    @Test
    void emptyIntervalIsEmpty() {
        LatencyRecorder recorder = new LatencyRecorder(3, TEN_SECONDS_NANOS);
        assertSame(LatencySnapshot.EMPTY, recorder.intervalSnapshot());
        assertSame(LatencySnapshot.EMPTY, new LatencyRecorder(0, 2).intervalSnapshot());
    }

    @Test
    void intervalCoversOnlySamplesSinceThePreviousSnapshot() {
        LatencyRecorder recorder = new LatencyRecorder(2, TEN_SECONDS_NANOS);
        for (int i = 0; i < 100; i++) {
            recordFlushed(recorder, 0, 1_000);
        }
        LatencySnapshot first = recorder.intervalSnapshot();
        assertEquals(100, first.count());
        assertClose(1_000, first.maxNanos(), "first max");

        for (int i = 0; i < 10; i++) {
            recordFlushed(recorder, 1, 5_000_000);
        }
        LatencySnapshot second = recorder.intervalSnapshot();
        assertEquals(10, second.count(), "only the second interval's samples");
        assertClose(5_000_000, second.p50Nanos(), "second p50");

        assertSame(LatencySnapshot.EMPTY, recorder.intervalSnapshot(), "nothing since");
        for (int round = 0; round < 5; round++) { // recycled histograms stay correct
            recordFlushed(recorder, round % 2, 7_000);
            LatencySnapshot s = recorder.intervalSnapshot();
            assertEquals(1, s.count());
            assertClose(7_000, s.maxNanos(), "round " + round);
        }
    }

    @Test
    void resetDiscardsTheCurrentInterval() {
        LatencyRecorder recorder = new LatencyRecorder(1, TEN_SECONDS_NANOS);
        recordFlushed(recorder, 0, 123);
        recorder.reset();
        assertSame(LatencySnapshot.EMPTY, recorder.intervalSnapshot());
        recordFlushed(recorder, 0, 456);
        recorder.intervalSnapshot();
        recordFlushed(recorder, 0, 789);
        recorder.reset();
        recordFlushed(recorder, 0, 1_000);
        LatencySnapshot s = recorder.intervalSnapshot();
        assertEquals(1, s.count());
        assertClose(1_000, s.maxNanos(), "max");
    }

    @Test
    void clampsOutOfRangeSamples() {
        LatencyRecorder recorder = new LatencyRecorder(1, 1_000_000);
        recordFlushed(recorder, 0, -5);
        recordFlushed(recorder, 0, Long.MAX_VALUE);
        LatencySnapshot s = recorder.intervalSnapshot();
        assertEquals(2, s.count());
        assertEquals(0, s.p50Nanos());
        assertClose(1_000_000, s.maxNanos(), "clamped max");
    }

    @Test
    void validatesArguments() {
        assertThrows(IllegalArgumentException.class, () -> new LatencyRecorder(-1, 1_000));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new LatencyRecorder(1, 1));
        assertTrue(e.getMessage().contains("1") && e.getMessage().contains(">= 2"), e.getMessage());
        LatencyRecorder recorder = new LatencyRecorder(2, 1_000);
        assertThrows(IndexOutOfBoundsException.class, () -> recorder.record(2, 1));
        assertThrows(IndexOutOfBoundsException.class, () -> recorder.record(-1, 1));
        assertThrows(IllegalArgumentException.class, () -> recorder.ensureSlots(-1));
        recorder.ensureSlots(1);
        assertEquals(2, recorder.slotCount(), "never shrinks");
    }

    @Test
    void twoWorkersRecordingConcurrentlyAllAppearInTheMergedSnapshots() throws Exception {
        int perWorker = 300_000;
        LatencyRecorder recorder = new LatencyRecorder(2, TEN_SECONDS_NANOS);
        CountDownLatch start = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(2);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int slot = 0; slot < 2; slot++) {
            long base = slot == 0 ? 1_000 : 1_000_000;
            int mySlot = slot;
            startWorker(() -> {
                TaskTimeWindowContractTest.awaitQuietly(start);
                for (int i = 0; i < perWorker; i++) {
                    recorder.record(mySlot, base + i % 1_000);
                }
                recorder.flush(mySlot); // as the engine's worker does when it goes idle
            }, done, failure);
        }
        start.countDown();
        long total = 0;
        long max = 0;
        // Snapshot concurrently with the writers until both finish, then once more.
        while (!done.await(0, TimeUnit.MILLISECONDS)) {
            LatencySnapshot s = recorder.intervalSnapshot();
            total += s.count();
            max = Math.max(max, s.maxNanos());
        }
        LatencySnapshot last = recorder.intervalSnapshot();
        total += last.count();
        max = Math.max(max, last.maxNanos());
        assertNull(failure.get());
        assertEquals(2L * perWorker, total, "every sample in exactly one interval");
        assertClose(1_000_999, max, "max of the second worker");
    }

    @Test
    void ensureSlotsWhileRecordingLosesNothing() throws Exception {
        int firstWorkerSamples = 300_000;
        int slots = 64;
        int perNewSlot = 2_000;
        LatencyRecorder recorder = new LatencyRecorder(1, TEN_SECONDS_NANOS);
        CountDownLatch start = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(3);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        startWorker(() -> { // the original worker keeps recording into slot 0
            TaskTimeWindowContractTest.awaitQuietly(start);
            for (int i = 0; i < firstWorkerSamples; i++) {
                recorder.record(0, 500 + i % 100);
            }
            recorder.flush(0);
        }, done, failure);
        startWorker(() -> { // the pool grows; each new slot's worker records into it
            TaskTimeWindowContractTest.awaitQuietly(start);
            for (int n = 2; n <= slots; n++) {
                recorder.ensureSlots(n);
                for (int i = 0; i < perNewSlot; i++) {
                    recorder.record(n - 1, 700);
                }
                recorder.flush(n - 1);
            }
        }, done, failure);
        startWorker(() -> { // a racing grower
            TaskTimeWindowContractTest.awaitQuietly(start);
            for (int n = 1; n <= slots; n++) {
                recorder.ensureSlots(n);
            }
        }, done, failure);
        start.countDown();
        long total = 0;
        while (!done.await(0, TimeUnit.MILLISECONDS)) {
            total += recorder.intervalSnapshot().count();
        }
        total += recorder.intervalSnapshot().count();
        assertNull(failure.get());
        assertEquals(slots, recorder.slotCount());
        assertEquals(firstWorkerSamples + (long) (slots - 1) * perNewSlot, total);
    }

    @Test
    void recordDoesNotAllocate() {
        java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        Assumptions.assumeTrue(bean instanceof com.sun.management.ThreadMXBean);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) bean;
        Assumptions.assumeTrue(threads.isThreadAllocatedMemorySupported());
        threads.setThreadAllocatedMemoryEnabled(true);
        LatencyRecorder recorder = new LatencyRecorder(1, TEN_SECONDS_NANOS);
        for (int i = 0; i < 200_000; i++) {
            recorder.record(0, i);
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 200_000; i++) {
            recorder.record(0, i * 31L);
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertTrue(allocated < 64 * 1024, "allocated " + allocated + " bytes");
    }

    @Test
    void snapshotOfAHistogram() {
        Histogram h = new Histogram(1, TEN_SECONDS_NANOS, 3);
        assertSame(LatencySnapshot.EMPTY, LatencySnapshot.of(h));
        h.recordValue(42);
        LatencySnapshot s = LatencySnapshot.of(h);
        assertEquals(1, s.count());
        assertEquals(42, s.p50Nanos());
        assertEquals(s, LatencySnapshot.of(h.copy()));
        assertEquals(s.hashCode(), LatencySnapshot.of(h.copy()).hashCode());
        assertTrue(s.toString().contains("p99Nanos=42"), s.toString());
        assertTrue(s.toString().contains("count=1"), s.toString());
    }

    private static void startWorker(Runnable body, CountDownLatch done,
                                    AtomicReference<Throwable> failure) {
        Thread t = new Thread(() -> {
            try {
                body.run();
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
            } finally {
                done.countDown();
            }
        }, "latency-recorder-test-worker");
        t.setDaemon(true);
        t.start();
    }
}
