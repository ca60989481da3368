package dev.turntable.pool.strategy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Where {@code LEAST_USED} sends tasks; the shared contract runs too (inherited). */
final class LeastUsedTest extends WorkerChoiceStrategyContractTest {

    @Override
    WorkerChoiceStrategy newStrategy() {
        return new LeastUsed();
    }

    @Override
    String nameConstant() {
        return LeastUsed.NAME;
    }

    @Test
    void isThePoolsDefault() {
        assertEquals(LeastUsed.NAME, StrategyRegistry.defaultName());
    }

    @Test
    void sendsTheTaskToTheWorkerWithFewestTasksQueuedOrRunning() {
        FakeWorkerView view = new FakeWorkerView(3)
                .setQueued(0, 2)
                .setRunning(1, 1)
                .setQueued(2, 1).setRunning(2, 1);
        assertEquals(1, new LeastUsed().choose(view, 0L));
    }

    @Test
    void runningTasksCountAsMuchAsQueuedOnes() {
        FakeWorkerView view = new FakeWorkerView(2).setRunning(0, 1).setQueued(1, 2);
        assertEquals(0, new LeastUsed().choose(view, 0L));
    }

    @Test
    void tiesGoToTheLowestIndex() {
        FakeWorkerView view = new FakeWorkerView(4).setQueued(0, 1).setQueued(2, 1);
        assertEquals(1, new LeastUsed().choose(view, 0L));
    }

    @Test
    void burstBeforeAnyTaskCompletesSpreadsEvenly() {
        FakeWorkerView view = new FakeWorkerView(4);
        int[] picks = dispatchAll(new LeastUsed(), view, 12, 0L);
        assertArrayEquals(repeat(3, 0, 1, 2, 3), picks);
    }

    @Test
    void aWorkerThatFinishesItsTasksGetsTheNextOnes() {
        LeastUsed s = new LeastUsed();
        FakeWorkerView view = new FakeWorkerView(3);
        dispatchAll(s, view, 9, 0L); // 3 each
        view.complete(2, MS).complete(2, MS);
        assertArrayEquals(new int[] {2, 2, 0}, dispatchAll(s, view, 3, 0L));
    }

    @Test
    void neverSendsToAnUnavailableWorkerEvenIfItIsIdle() {
        FakeWorkerView view = new FakeWorkerView(3).setQueued(1, 5).setQueued(2, 3).setAvailable(0, false);
        assertEquals(2, new LeastUsed().choose(view, 0L));
    }

    @Test
    void needsNoStatisticsAndNoClock() {
        assertTrue(new LeastUsed().requiredStatistics().isEmpty());
        assertFalse(new LeastUsed().usesClock());
    }
}
