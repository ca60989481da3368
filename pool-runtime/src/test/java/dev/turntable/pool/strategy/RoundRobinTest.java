package dev.turntable.pool.strategy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Where {@code ROUND_ROBIN} sends tasks; the shared contract runs too (inherited). */
final class RoundRobinTest extends WorkerChoiceStrategyContractTest {

    @Override
    WorkerChoiceStrategy newStrategy() {
        return new RoundRobin();
    }

    @Override
    String nameConstant() {
        return RoundRobin.NAME;
    }

    @Test
    void cyclesThroughTheWorkersInIndexOrderStartingAtTheFirst() {
        FakeWorkerView view = new FakeWorkerView(3);
        assertArrayEquals(new int[] {0, 1, 2, 0, 1, 2, 0}, dispatchAll(new RoundRobin(), view, 7, 0L));
    }

    @Test
    void burstSpreadsEvenlyOverAllWorkers() {
        FakeWorkerView view = new FakeWorkerView(4);
        assertArrayEquals(new int[] {3, 3, 3, 3}, perWorker(dispatchAll(new RoundRobin(), view, 12, 0L), 4));
    }

    @Test
    void ignoresLoadAndHistory() {
        FakeWorkerView view = new FakeWorkerView(3).setQueued(0, 100).setRunTimeTotalNanos(0, 60_000 * MS);
        assertArrayEquals(new int[] {0, 1, 2, 0}, dispatchAll(new RoundRobin(), view, 4, 0L));
    }

    @Test
    void skipsUnavailableWorkersAndReturnsToThemWhenTheyAreBack() {
        RoundRobin s = new RoundRobin();
        FakeWorkerView view = new FakeWorkerView(4).setAvailable(1, false);
        assertArrayEquals(new int[] {0, 2, 3, 0, 2}, dispatchAll(s, view, 5, 0L));
        view.setAvailable(1, true);
        assertArrayEquals(new int[] {3, 0, 1, 2}, dispatchAll(s, view, 4, 0L));
    }

    @Test
    void whenThePoolShrinksTheCycleContinuesWithinTheRemainingWorkers() {
        RoundRobin s = new RoundRobin();
        FakeWorkerView view = new FakeWorkerView(5);
        assertArrayEquals(new int[] {0, 1, 2, 3}, dispatchAll(s, view, 4, 0L));
        view.setCount(2);
        int[] picks = dispatchAll(s, view, 4, 0L);
        for (int p : picks) {
            assertTrue(p == 0 || p == 1, "picked " + p + " of 2 workers");
        }
        assertEquals(2, perWorker(picks, 2)[0]);
        assertEquals(2, perWorker(picks, 2)[1]);
        view.setCount(3);
        assertEquals(3, perWorker(dispatchAll(s, view, 9, 0L), 3)[2], "a worker added later gets its share");
    }

    @Test
    void needsNoStatisticsAndNoClock() {
        assertTrue(new RoundRobin().requiredStatistics().isEmpty());
        assertEquals(false, new RoundRobin().usesClock());
    }
}
