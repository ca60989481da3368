package dev.turntable.pool.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link MovingAverage}: the {@link TaskTimeWindowContractTest contract} plus exact arithmetic. */
class MovingAverageTest extends TaskTimeWindowContractTest {

    @Override
    boolean median() {
        return false;
    }

    @Override
    Class<? extends TaskTimeWindow> implementation() {
        return MovingAverage.class;
    }

    @Test
    void exactValues() {
        MovingAverage w = new MovingAverage(3);
        w.add(10);
        assertEquals(10, w.estimateNanos());
        w.add(20);
        assertEquals(15, w.estimateNanos());
        w.add(60);
        assertEquals(30, w.estimateNanos());
        assertEquals(90, w.sumNanos());
    }

    @Test
    void roundsDown() {
        MovingAverage w = new MovingAverage(4);
        w.add(1);
        w.add(2);
        assertEquals(1, w.estimateNanos(), "3 / 2");
        w.add(2);
        assertEquals(1, w.estimateNanos(), "5 / 3");
        w.add(2);
        assertEquals(1, w.estimateNanos(), "7 / 4");
        w.add(4); // evicts 1
        assertEquals(2, w.estimateNanos(), "10 / 4");
        assertEquals(10, w.sumNanos());
    }

    @Test
    void evictsTheOldestSample() {
        MovingAverage w = new MovingAverage(3);
        w.add(3);
        w.add(6);
        w.add(9);
        assertEquals(6, w.estimateNanos());
        w.add(12); // evicts 3
        assertEquals(9, w.estimateNanos());
        assertEquals(27, w.sumNanos());
        w.add(0); // evicts 6
        assertEquals(7, w.estimateNanos());
        assertEquals(3, w.size());
    }

    @Test
    void outlierPullsTheAverage() {
        MovingAverage w = new MovingAverage(3);
        w.add(1);
        w.add(1);
        w.add(100);
        assertEquals(34, w.estimateNanos());
    }

    @Test
    void runningSumNeverDriftsAfterMillionsOfSamples() {
        int windowSize = 64;
        MovingAverage w = new MovingAverage(windowSize);
        long[] lastSamples = new long[windowSize];
        Random random = new Random(7);
        for (int i = 0; i < 3_000_000; i++) {
            // Mostly large samples near the clamp, so a drifting or overflowing sum would show.
            long sample = random.nextInt(10) == 0
                    ? random.nextInt(1000)
                    : TaskTimeWindow.MAX_SAMPLE_NANOS - random.nextInt(1_000_000);
            w.add(sample);
            lastSamples[i % windowSize] = sample;
            if (i % 100_003 == 0 || i == 2_999_999) {
                int held = Math.min(i + 1, windowSize);
                long recomputed = 0;
                for (int j = 0; j < held; j++) {
                    recomputed += lastSamples[j];
                }
                assertEquals(recomputed, w.sumNanos(), "after " + (i + 1) + " samples");
                assertEquals(recomputed / held, w.estimateNanos());
            }
        }
    }
}
