package dev.turntable.pool.strategy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.EnumSet;
import org.junit.jupiter.api.Test;

/** Where {@code WEIGHTED_ROUND_ROBIN} sends tasks; the shared contract runs too (inherited). */
final class WeightedRoundRobinTest extends WorkerChoiceStrategyContractTest {

    @Override
    WorkerChoiceStrategy newStrategy() {
        return new WeightedRoundRobin();
    }

    @Override
    String nameConstant() {
        return WeightedRoundRobin.NAME;
    }

    @Test
    void eachWorkerGetsItsWeightOfTaskTimePerTurn() {
        FakeWorkerView view = new FakeWorkerView(2)
                .setWeightNanos(0, 2 * MS).setWeightNanos(1, MS)
                .setAllTaskTimeEstimateNanos(MS / 2);
        assertArrayEquals(repeat(3, 0, 0, 0, 0, 1, 1), dispatchAll(new WeightedRoundRobin(), view, 18, 0L));
    }

    @Test
    void burstWithNoHistoryGoesRoundRobin() {
        FakeWorkerView view = new FakeWorkerView(3).setWeightNanos(0, 5 * MS).setWeightNanos(2, 3 * MS);
        assertArrayEquals(repeat(3, 0, 1, 2), dispatchAll(new WeightedRoundRobin(), view, 9, 0L));
    }

    @Test
    void workersWithoutAnEstimateAreChargedThePoolEstimate() {
        FakeWorkerView view = new FakeWorkerView(2).setPoolTaskTimeEstimateNanos(MS / 2)
                .setTaskTimeEstimateNanos(1, MS / 4);
        // worker 0: two 0.5 ms tasks fill its 1 ms; worker 1's own estimate is 0.25 ms: four tasks
        assertArrayEquals(repeat(2, 0, 0, 1, 1, 1, 1), dispatchAll(new WeightedRoundRobin(), view, 12, 0L));
    }

    @Test
    void anUnavailableCurrentWorkerIsLeftImmediately() {
        WeightedRoundRobin s = new WeightedRoundRobin();
        FakeWorkerView view = new FakeWorkerView(3).setAllTaskTimeEstimateNanos(MS / 4);
        assertArrayEquals(new int[] {0}, dispatchAll(s, view, 1, 0L));
        view.setAvailable(0, false);
        // worker 1 gets a full turn of four 0.25 ms tasks, then worker 2, then worker 0 is still skipped
        assertArrayEquals(new int[] {1, 1, 1, 1, 2, 2, 2, 2, 1}, dispatchAll(s, view, 9, 0L));
        view.setAvailable(0, true);
        assertArrayEquals(new int[] {1, 1, 1, 2, 2, 2, 2, 0, 0, 0, 0}, dispatchAll(s, view, 11, 0L));
    }

    @Test
    void longerEstimatesShortenTheTurn() {
        WeightedRoundRobin s = new WeightedRoundRobin();
        FakeWorkerView view = new FakeWorkerView(2).setAllTaskTimeEstimateNanos(MS / 4);
        assertArrayEquals(new int[] {0, 0, 0, 0, 1, 1, 1, 1}, dispatchAll(s, view, 8, 0L));
        view.setAllTaskTimeEstimateNanos(MS);
        assertArrayEquals(new int[] {0, 1, 0, 1}, dispatchAll(s, view, 4, 0L));
    }

    @Test
    void readsTheEstimateButNotTheClock() {
        assertEquals(EnumSet.of(Statistic.TASK_TIME_ESTIMATE), new WeightedRoundRobin().requiredStatistics());
        assertFalse(new WeightedRoundRobin().usesClock());
    }
}
