package dev.turntable.pool.strategy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Where {@code INTERLEAVED_WEIGHTED_ROUND_ROBIN} sends tasks; the shared contract runs too (inherited). */
final class InterleavedWeightedRoundRobinTest extends WorkerChoiceStrategyContractTest {

    @Override
    WorkerChoiceStrategy newStrategy() {
        return new InterleavedWeightedRoundRobin();
    }

    @Override
    String nameConstant() {
        return InterleavedWeightedRoundRobin.NAME;
    }

    /**
     * The top worker's thread is replaced every sixth task, so the view's count() drops from 4
     * to 3 for one choice and comes back (it ends at the highest slot a thread holds). That
     * worker is then treated as an unavailable one is: the shares are exactly those of a view
     * that keeps it counted but unavailable for those choices (worker 3, weighing 4 ms against
     * 1 ms, gets 3,499 of 7,000 tasks). Rebuilding the rounds at each change restarted the cycle
     * at worker 0 each time, and worker 3 got 2,333.
     */
    @Test
    void aTopWorkerWhoseThreadIsReplacedIsTreatedAsUnavailableMeanwhile() {
        int tasks = 7_000;
        InterleavedWeightedRoundRobin leaving = new InterleavedWeightedRoundRobin();
        FakeWorkerView shrinking = new FakeWorkerView(4).setAllTaskTimeEstimateNanos(MS).setWeightNanos(3, 4 * MS);
        int[] got = new int[4];
        InterleavedWeightedRoundRobin unavailable = new InterleavedWeightedRoundRobin();
        FakeWorkerView unavailableView = new FakeWorkerView(4).setAllTaskTimeEstimateNanos(MS).setWeightNanos(3, 4 * MS);
        int[] expected = new int[4];
        for (int t = 0; t < tasks; t++) {
            if (t % 6 == 5) {
                shrinking.setCount(3); // the top worker's thread left ...
                got[leaving.choose(shrinking, 0L)]++;
                shrinking.setCount(4).setTaskTimeEstimateNanos(3, MS).setWeightNanos(3, 4 * MS); // ... and came back
                unavailableView.setAvailable(3, false);
                expected[unavailable.choose(unavailableView, 0L)]++;
                unavailableView.setAvailable(3, true);
            } else {
                got[leaving.choose(shrinking, 0L)]++;
                expected[unavailable.choose(unavailableView, 0L)]++;
            }
        }
        assertArrayEquals(expected, got, "shares " + java.util.Arrays.toString(got));
        assertTrue(got[3] > tasks * 2 / 5, "worker 3 keeps the larger share: " + java.util.Arrays.toString(got));
    }

    @Test
    void heavierWorkersGetTheirExtraShareInterleavedInLaterRounds() {
        FakeWorkerView view = new FakeWorkerView(3)
                .setWeightNanos(0, MS).setWeightNanos(1, 2 * MS).setWeightNanos(2, 2 * MS)
                .setAllTaskTimeEstimateNanos(MS / 2);
        // rounds {1 ms, 2 ms}: round 1 gives every worker 1 ms (two 0.5 ms tasks each),
        // round 2 gives workers 1 and 2 their remaining 1 ms; then a new cycle
        assertArrayEquals(repeat(3, 0, 0, 1, 1, 2, 2, 1, 1, 2, 2),
                dispatchAll(new InterleavedWeightedRoundRobin(), view, 30, 0L));
    }

    @Test
    void overACycleEachWorkerGetsItsWeightOfTaskTime() {
        FakeWorkerView view = new FakeWorkerView(4)
                .setWeightNanos(0, 3 * MS).setWeightNanos(1, MS).setWeightNanos(2, 2 * MS).setWeightNanos(3, 3 * MS)
                .setAllTaskTimeEstimateNanos(MS / 4);
        // one cycle = (3 + 1 + 2 + 3) ms / 0.25 ms = 36 tasks; two cycles
        assertArrayEquals(new int[] {24, 8, 16, 24},
                perWorker(dispatchAll(new InterleavedWeightedRoundRobin(), view, 72, 0L), 4));
    }

    @Test
    void burstWithNoHistorySpreadsOneTaskPerEligibleWorkerPerRound() {
        FakeWorkerView view = new FakeWorkerView(3)
                .setWeightNanos(0, MS).setWeightNanos(1, 2 * MS).setWeightNanos(2, 2 * MS);
        // unknown tasks are charged the round's increment (1 ms each round here)
        assertArrayEquals(repeat(3, 0, 1, 2, 1, 2), dispatchAll(new InterleavedWeightedRoundRobin(), view, 15, 0L));
    }

    @Test
    void aBurstChargesOnlyEachRoundsIncrementSoHeavyWorkersKeepTheRestOfTheirShare() {
        InterleavedWeightedRoundRobin s = new InterleavedWeightedRoundRobin();
        FakeWorkerView view = new FakeWorkerView(3)
                .setWeightNanos(0, MS).setWeightNanos(1, 2 * MS).setWeightNanos(2, 4 * MS);
        // rounds {1, 2, 4} ms: unknown tasks are charged 1 ms, 1 ms, then 2 ms
        assertArrayEquals(new int[] {0, 1, 2, 1, 2}, dispatchAll(s, view, 5, 0L));
        // the first tasks complete: 0.5 ms each. Worker 2 was charged 2 ms so far and still
        // has 2 ms of this cycle left: four tasks, then a new cycle
        view.setAllTaskTimeEstimateNanos(MS / 2);
        int[] restOfCycle = {2, 2, 2, 2};
        int[] nextCycle = {0, 0, 1, 1, 2, 2, /* round 2 */ 1, 1, 2, 2, /* round 3 */ 2, 2, 2, 2};
        assertArrayEquals(restOfCycle, dispatchAll(s, view, 4, 0L));
        assertArrayEquals(nextCycle, dispatchAll(s, view, nextCycle.length, 0L));
    }

    @Test
    void burstWithEqualWeightsAndNoHistoryGoesRoundRobin() {
        FakeWorkerView view = new FakeWorkerView(4);
        assertArrayEquals(repeat(3, 0, 1, 2, 3), dispatchAll(new InterleavedWeightedRoundRobin(), view, 12, 0L));
    }

    @Test
    void withEqualWeightsItBehavesLikeWeightedRoundRobin() {
        Random rnd = new Random(11L);
        long[] estimates = {0L, MS / 4, MS / 3, MS / 2, MS, 3 * MS};
        FakeWorkerView view = new FakeWorkerView(5);
        WorkerChoiceStrategy iwrr = new InterleavedWeightedRoundRobin();
        WorkerChoiceStrategy wrr = new WeightedRoundRobin();
        for (int k = 0; k < 2_000; k++) {
            view.setTaskTimeEstimateNanos(rnd.nextInt(5), estimates[rnd.nextInt(estimates.length)]);
            if (rnd.nextInt(10) == 0) {
                view.setPoolTaskTimeEstimateNanos(estimates[rnd.nextInt(estimates.length)]);
            }
            if (rnd.nextInt(8) == 0) {
                view.setAvailable(rnd.nextInt(5), rnd.nextBoolean()).setAvailable(rnd.nextInt(5), true);
            }
            int chosen = wrr.choose(view, 0L);
            assertEquals(chosen, iwrr.choose(view, 0L), "task " + k);
            view.dispatch(chosen);
        }
    }

    @Test
    void unavailableWorkersAreSkippedWithoutOthersGettingMoreThanTheirWeight() {
        FakeWorkerView view = new FakeWorkerView(3)
                .setWeightNanos(0, MS).setWeightNanos(1, 2 * MS).setWeightNanos(2, 2 * MS)
                .setAllTaskTimeEstimateNanos(MS / 2)
                .setAvailable(1, false);
        assertArrayEquals(repeat(2, 0, 0, 2, 2, 2, 2), dispatchAll(new InterleavedWeightedRoundRobin(), view, 12, 0L));
    }

    @Test
    void changedWeightsTakeEffectWithANewCycle() {
        InterleavedWeightedRoundRobin s = new InterleavedWeightedRoundRobin();
        FakeWorkerView view = new FakeWorkerView(2).setAllTaskTimeEstimateNanos(MS / 2);
        assertArrayEquals(new int[] {0, 0, 1, 1, 0, 0, 1}, dispatchAll(s, view, 7, 0L));
        view.setWeightNanos(1, 2 * MS);
        assertArrayEquals(repeat(2, 0, 0, 1, 1, 1, 1), dispatchAll(s, view, 12, 0L));
    }

    @Test
    void aWorkerAddedToThePoolGetsItsShare() {
        InterleavedWeightedRoundRobin s = new InterleavedWeightedRoundRobin();
        FakeWorkerView view = new FakeWorkerView(2).setAllTaskTimeEstimateNanos(MS / 2);
        dispatchAll(s, view, 3, 0L);
        view.setCount(3).setTaskTimeEstimateNanos(2, MS / 2);
        assertArrayEquals(repeat(2, 0, 0, 1, 1, 2, 2), dispatchAll(s, view, 12, 0L));
    }

    @Test
    void readsTheEstimateButNotTheClock() {
        assertEquals(EnumSet.of(Statistic.TASK_TIME_ESTIMATE), new InterleavedWeightedRoundRobin().requiredStatistics());
        assertFalse(new InterleavedWeightedRoundRobin().usesClock());
    }
}
