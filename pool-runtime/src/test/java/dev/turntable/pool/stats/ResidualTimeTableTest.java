package dev.turntable.pool.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link ResidualTimeTable}: the expected remaining time of a running task from a worker's recent
 * task times, what a FAIR_SHARE submitter reads to avoid queueing behind a long task. Checked
 * against the definition on hand-made and random windows (average and median windows alike), for
 * resets and rebuild timing, and with readers racing a rebuilding owner.
 */
class ResidualTimeTableTest {

    private static final long US = 1_000L;

    private static TaskTimeWindow window(boolean median, long... samplesNanos) {
        TaskTimeWindow w = TaskTimeWindows.create(median, TaskTimeWindows.DEFAULT_WINDOW);
        for (long s : samplesNanos) {
            w.add(s);
        }
        return w;
    }

    private static ResidualTimeTable built(TaskTimeWindow w) {
        ResidualTimeTable t = new ResidualTimeTable(w.capacity());
        t.rebuild(w);
        return t;
    }

    @ParameterizedTest(name = "median window {0}")
    @ValueSource(booleans = {false, true})
    void aTaskPastEveryShortSampleHasTheLongOnesLeft(boolean median) {
        long[] mix = new long[20];
        java.util.Arrays.fill(mix, 10 * US);
        mix[7] = 1_000 * US;
        ResidualTimeTable t = built(window(median, mix));
        // 5 us in, every sample is still possible: their mean (59.5 us) minus 5 us
        assertEquals(59_500 - 5 * US, t.remainingNanos(5 * US));
        // 10 us in, only the 1 ms task is longer
        assertEquals(990 * US, t.remainingNanos(10 * US));
        assertEquals(700 * US, t.remainingNanos(300 * US));
        assertEquals(ResidualTimeTable.UNKNOWN, t.remainingNanos(1_000 * US), "as long as the longest: nothing longer");
        assertEquals(ResidualTimeTable.UNKNOWN, t.remainingNanos(5_000 * US));
    }

    @Test
    void anEmptyOrClearedTableCannotTell() {
        ResidualTimeTable t = new ResidualTimeTable(64);
        assertEquals(ResidualTimeTable.UNKNOWN, t.remainingNanos(0), "never built");
        t.rebuild(window(false));
        assertEquals(ResidualTimeTable.UNKNOWN, t.remainingNanos(0), "built from an empty window");
        t.rebuild(window(false, 5 * US));
        assertEquals(5 * US, t.remainingNanos(0));
        t.clear();
        assertEquals(ResidualTimeTable.UNKNOWN, t.remainingNanos(0), "cleared");
        assertEquals(0, t.size());
    }

    @Test
    void aRebuildReplacesTheOldSamplesEntirely() {
        TaskTimeWindow w = TaskTimeWindows.create(false, 4);
        ResidualTimeTable t = new ResidualTimeTable(4);
        for (int i = 0; i < 4; i++) {
            w.add(100 * US);
        }
        t.rebuild(w);
        assertEquals(100 * US, t.remainingNanos(0));
        for (int i = 0; i < 4; i++) {
            w.add(10 * US); // evicts every 100 us sample
        }
        assertEquals(100 * US, t.remainingNanos(0), "not rebuilt yet: the published table stands");
        t.rebuild(w);
        assertEquals(10 * US, t.remainingNanos(0));
        assertEquals(ResidualTimeTable.UNKNOWN, t.remainingNanos(10 * US));
        assertEquals(4, t.size());
    }

    @ParameterizedTest(name = "median window {0}")
    @ValueSource(booleans = {false, true})
    void agreesWithTheDefinitionOnRandomWindows(boolean median) {
        Random rnd = new Random(25L);
        for (int round = 0; round < 2_000; round++) {
            int capacity = 1 + rnd.nextInt(100);
            TaskTimeWindow w = TaskTimeWindows.create(median, capacity);
            ResidualTimeTable t = new ResidualTimeTable(capacity);
            int added = rnd.nextInt(3 * capacity);
            long[] ring = new long[capacity];
            for (int i = 0; i < added; i++) {
                // some 0 ns samples (a task shorter than the clock's resolution)
                long s = rnd.nextInt(10) == 0 ? 0 : rnd.nextInt(4) == 0 ? rnd.nextInt(1_000_000) : rnd.nextInt(1_000);
                w.add(s);
                ring[i % capacity] = s;
            }
            t.rebuild(w);
            int held = Math.min(added, capacity);
            for (int q = 0; q < 20; q++) {
                long elapsed = q < 2 ? 0 : rnd.nextInt(1_100_000); // 0: a start FAIR_SHARE does not know
                long sum = 0;
                int longer = 0;
                for (int i = 0; i < held; i++) {
                    if (ring[i] > elapsed) {
                        sum += ring[i];
                        longer++;
                    }
                }
                long expected = longer == 0 ? ResidualTimeTable.UNKNOWN : sum / longer - elapsed;
                assertEquals(expected, t.remainingNanos(elapsed), "round " + round + ", elapsed " + elapsed);
                if (expected != ResidualTimeTable.UNKNOWN) {
                    assertTrue(expected >= 1, "a task that is still running has at least 1 ns left");
                }
            }
        }
    }

    @Test
    void rebuildsAtEverySampleWhileTheWindowFillsThenOncePerWindowsWorthOfSamples() {
        TaskTimeWindow w = TaskTimeWindows.create(false, 256);
        for (int i = 1; i <= 16; i++) {
            w.add(US);
            assertTrue(ResidualTimeTable.rebuildDue(1, w), "sample " + i + ": a small window is rebuilt every time");
        }
        w.add(US);
        assertFalse(ResidualTimeTable.rebuildDue(1, w));
        assertFalse(ResidualTimeTable.rebuildDue(16, w));
        assertTrue(ResidualTimeTable.rebuildDue(17, w), "17 samples held: rebuilt after 17 new ones");
        while (w.size() < 256) {
            w.add(US);
        }
        assertFalse(ResidualTimeTable.rebuildDue(255, w));
        assertTrue(ResidualTimeTable.rebuildDue(256, w), "a full window: once per 256 samples");
    }

    @Test
    void sampleAddedBuildsAtOnceThenOnTheRebuildSchedule() {
        TaskTimeWindow w = TaskTimeWindows.create(false, 64);
        for (int i = 0; i < 40; i++) {
            w.add(100 * US); // a history before the table exists: switched on live
        }
        ResidualTimeTable t = new ResidualTimeTable(64);
        t.sampleAdded(w);
        assertEquals(40, t.size(), "the first sample after creation builds the table");
        for (int i = 0; i < 63; i++) {
            w.add(100 * US);
            t.sampleAdded(w);
        }
        assertEquals(40, t.size(), "63 samples later (the window is full at 64 now): not rebuilt yet");
        w.add(100 * US);
        t.sampleAdded(w);
        assertEquals(64, t.size(), "as many new samples as the window holds: rebuilt, from the full window");
    }

    /**
     * The owner alternates between two windows (every sample 100 us, or every sample 200 us) as
     * fast as it can while readers ask 0 ns in: each answer must be one table's (100 or 200 us)
     * or UNKNOWN, never a mix of the two tables' contents.
     */
    @Test
    void readersRacingARebuildingOwnerGetOneTablesAnswerOrUnknown() throws InterruptedException {
        TaskTimeWindow hundreds = TaskTimeWindows.create(false, 64);
        TaskTimeWindow twoHundreds = TaskTimeWindows.create(false, 64);
        for (int i = 0; i < 63; i++) {
            hundreds.add(100 * US);
            twoHundreds.add(200 * US);
        }
        // one odd sample each, so a half-copied table would also move the mean off both values
        hundreds.add(100 * US + 6_400);
        twoHundreds.add(200 * US + 12_800);
        long a = (64 * 100 * US + 6_400) / 64;  // 100.1 us
        long b = (64 * 200 * US + 12_800) / 64; // 200.2 us
        ResidualTimeTable t = new ResidualTimeTable(64);
        t.rebuild(hundreds);
        AtomicBoolean stop = new AtomicBoolean();
        Set<Long> seen = ConcurrentHashMap.newKeySet();
        AtomicLong answers = new AtomicLong();
        int readers = 2;
        CountDownLatch done = new CountDownLatch(readers);
        for (int r = 0; r < readers; r++) {
            Thread reader = new Thread(() -> {
                try {
                    while (!stop.get()) {
                        seen.add(t.remainingNanos(0));
                        answers.incrementAndGet();
                    }
                } finally {
                    done.countDown();
                }
            }, "residual-reader-" + r);
            reader.setDaemon(true);
            reader.start();
        }
        for (int i = 0; i < 200_000 || answers.get() < 200_000; i++) {
            t.rebuild((i & 1) == 0 ? twoHundreds : hundreds);
        }
        stop.set(true);
        assertTrue(done.await(10, TimeUnit.SECONDS), "readers stopped");
        Set<Long> allowed = Set.of(a, b, ResidualTimeTable.UNKNOWN);
        assertTrue(allowed.containsAll(seen), () -> "answers " + seen + ", allowed " + allowed);
        assertTrue(seen.contains(a) || seen.contains(b), () -> "readers got real answers too: " + seen);
    }
}
