package dev.turntable.pool.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link MovingMedian}: the {@link TaskTimeWindowContractTest contract} plus a brute-force oracle. */
class MovingMedianTest extends TaskTimeWindowContractTest {

    @Override
    boolean median() {
        return true;
    }

    @Override
    Class<? extends TaskTimeWindow> implementation() {
        return MovingMedian.class;
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 7, 64})
    void matchesBruteForceMedian(int windowSize) {
        for (long seed = 1; seed <= 4; seed++) {
            Random random = new Random(seed * 1_000 + windowSize);
            MovingMedian w = new MovingMedian(windowSize);
            ArrayDeque<Long> held = new ArrayDeque<>();
            for (int i = 0; i < 5_000; i++) {
                if (random.nextInt(1_000) == 0) {
                    w.clear();
                    held.clear();
                    assertEquals(0, w.estimateNanos());
                }
                long sample = sample(random, seed);
                w.add(sample);
                held.addLast(sample);
                if (held.size() > windowSize) {
                    held.removeFirst();
                }
                assertEquals(bruteForceMedian(held), w.estimateNanos(),
                        "seed " + seed + ", sample " + i + ", window " + held);
                assertEquals(held.size(), w.size());
            }
        }
    }

    /** Per seed a different mix, most of them full of duplicates. */
    private static long sample(Random random, long seed) {
        switch ((int) seed) {
            case 1:
                return random.nextInt(3); // almost all duplicates
            case 2:
                return random.nextInt(20);
            case 3:
                // A steady value with outliers in both directions.
                int roll = random.nextInt(10);
                return roll == 0 ? 0 : roll == 1 ? 1_000_000_000L : 5_000;
            default:
                return (long) (random.nextDouble() * 1e9);
        }
    }

    /** The lower-middle element of a sorted copy. */
    private static long bruteForceMedian(ArrayDeque<Long> held) {
        long[] sorted = held.stream().mapToLong(Long::longValue).toArray();
        Arrays.sort(sorted);
        return sorted[(sorted.length - 1) / 2];
    }

    @Test
    void medianIgnoresTheOutlierThatPullsTheAverage() {
        TaskTimeWindow median = new MovingMedian(3);
        TaskTimeWindow average = new MovingAverage(3);
        for (long sample : new long[] {1, 1, 100}) {
            median.add(sample);
            average.add(sample);
        }
        assertEquals(1, median.estimateNanos());
        assertEquals(34, average.estimateNanos());
    }

    @Test
    void evenCountTakesTheLowerMiddle() {
        MovingMedian w = new MovingMedian(4);
        w.add(4);
        w.add(1);
        assertEquals(1, w.estimateNanos(), "{1, 4}");
        w.add(3);
        assertEquals(3, w.estimateNanos(), "{1, 3, 4}");
        w.add(2);
        assertEquals(2, w.estimateNanos(), "{1, 2, 3, 4}");
        w.add(10); // evicts 4
        assertEquals(2, w.estimateNanos(), "{1, 2, 3, 10}");
        w.add(10); // evicts 1
        assertEquals(3, w.estimateNanos(), "{2, 3, 10, 10}");
    }

    @Test
    void followsAShiftInTheWorkload() {
        MovingMedian w = new MovingMedian(5);
        for (int i = 0; i < 5; i++) {
            w.add(100);
        }
        w.add(900);
        w.add(900);
        assertEquals(100, w.estimateNanos(), "two of five samples changed");
        w.add(900);
        assertEquals(900, w.estimateNanos(), "three of five samples changed");
    }
}
