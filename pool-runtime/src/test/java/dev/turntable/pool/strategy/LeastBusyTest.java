package dev.turntable.pool.strategy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.Arrays;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

/** Where {@code LEAST_BUSY} sends tasks; the shared contract runs too (inherited). */
final class LeastBusyTest extends WorkerChoiceStrategyContractTest {

    @Override
    WorkerChoiceStrategy newStrategy() {
        return new LeastBusy();
    }

    @Override
    String nameConstant() {
        return LeastBusy.NAME;
    }

    @Test
    void burstBeforeAnyTaskCompletesSpreadsEvenly() {
        FakeWorkerView view = new FakeWorkerView(4);
        assertArrayEquals(repeat(3, 0, 1, 2, 3), dispatchAll(new LeastBusy(), view, 12, 0L));
    }

    @Test
    void burstRightAfterSwitchingToItSpreadsEvenlyToo() {
        // tasks completed under an earlier strategy, but run and wait times were not collected then
        FakeWorkerView view = new FakeWorkerView(3);
        for (int i = 0; i < 3; i++) {
            view.setCompleted(i, 50);
        }
        assertArrayEquals(new int[] {3, 3, 3}, perWorker(dispatchAll(new LeastBusy(), view, 9, 0L), 3));
    }

    /**
     * A fresh pool's started task whose wait fell in the 1-in-8 sample carries 8 times that wait
     * before any task has completed. With no history anywhere there is no time to weigh it
     * against, so tasks are counted: charged against a 1 ns placeholder per task, 400 µs of wait
     * read as 400,000 tasks and the whole burst went to the other worker (a review: 10 of 30
     * fresh two-worker pools, stealing off, queued 100 of 100 on one worker).
     */
    @Test
    void beforeAnyTaskCompletesASampledWaitDoesNotOutweighTheTaskCounts() {
        FakeWorkerView view = new FakeWorkerView(2).setRunning(0, 1).setWaitTimeTotalNanos(0, 8 * 50_000L)
                .setRunning(1, 1);
        assertArrayEquals(new int[] {50, 50}, perWorker(dispatchAll(new LeastBusy(), view, 100, 0L), 2));
    }

    @Test
    void sendsTheTaskToTheWorkerThatHasBeenBusyTheLeast() {
        FakeWorkerView view = new FakeWorkerView(3)
                .setCompleted(0, 10).setRunTimeTotalNanos(0, 30 * MS)
                .setCompleted(1, 10).setRunTimeTotalNanos(1, 10 * MS)
                .setCompleted(2, 10).setRunTimeTotalNanos(2, 20 * MS);
        assertEquals(1, new LeastBusy().choose(view, 0L));
    }

    @Test
    void waitTimeCountsAsBusyTime() {
        FakeWorkerView view = new FakeWorkerView(2)
                .setCompleted(0, 1).setRunTimeTotalNanos(0, 5 * MS).setWaitTimeTotalNanos(0, 10 * MS)
                .setCompleted(1, 1).setRunTimeTotalNanos(1, 10 * MS);
        assertEquals(1, new LeastBusy().choose(view, 0L));
    }

    @Test
    void tasksInFlightAreChargedAtTheWorkersOwnAverage() {
        // equally busy so far, but worker 0's tasks take 1 ms and worker 1's take 2 ms:
        // worker 0 absorbs twice as many new tasks
        FakeWorkerView view = new FakeWorkerView(2)
                .setCompleted(0, 20).setRunTimeTotalNanos(0, 20 * MS)
                .setCompleted(1, 10).setRunTimeTotalNanos(1, 20 * MS);
        assertArrayEquals(new int[] {20, 10}, perWorker(dispatchAll(new LeastBusy(), view, 30, 0L), 2));
    }

    /**
     * A fresh worker deep in its first (long) task, and an idle one with 1 ms of history: the
     * fresh one's tasks are charged at the pool's 1 ms average, so the two share a burst. At
     * 1 ns a task (its own empty history), all 20 went behind the long task.
     */
    @Test
    void aWorkerWithoutHistoryChargesItsTasksAtThePoolsAverage() {
        FakeWorkerView view = new FakeWorkerView(2)
                .setRunning(0, 1)
                .setCompleted(1, 1).setRunTimeTotalNanos(1, MS);
        assertArrayEquals(new int[] {10, 10}, perWorker(dispatchAll(new LeastBusy(), view, 20, 0L), 2));
    }

    /**
     * Among workers without history of their own, the cheapest at the pool's average, not the one
     * holding the fewest: worker 0 holds one task but already 40 ms of sampled wait, worker 1
     * holds two and nothing else; at 1 ms a task, worker 1 (2 ms) is cheaper than worker 0 (41 ms)
     * and than worker 2, with 10 ms of history.
     */
    @Test
    void theCheapestWorkerWithoutHistoryIsChosenNotTheOneHoldingFewest() {
        FakeWorkerView view = new FakeWorkerView(3)
                .setRunning(0, 1).setWaitTimeTotalNanos(0, 40 * MS)
                .setRunning(1, 1).setQueued(1, 1)
                .setCompleted(2, 10).setRunTimeTotalNanos(2, 10 * MS);
        assertEquals(1, new LeastBusy().choose(view, 0L));
    }

    /**
     * After a reset the totals cover only the tasks since, while a worker's completed count
     * covers its thread's life: dividing by that made the longest-lived worker's tasks look
     * nearly free (3 ms over 1,895 tasks), and it took the whole burst. Divided by the tasks the
     * totals cover, the two equal workers share it.
     */
    @Test
    void historyIsAveragedOverTheTasksItCoversNotTheThreadsLife() {
        FakeWorkerView view = new FakeWorkerView(2)
                .setCompleted(0, 111).setHistoryTasks(0, 3).setRunTimeTotalNanos(0, 3 * MS)
                .setCompleted(1, 1895).setHistoryTasks(1, 3).setRunTimeTotalNanos(1, 3 * MS);
        assertArrayEquals(new int[] {20, 20}, perWorker(dispatchAll(new LeastBusy(), view, 40, 0L), 2));
    }

    @Test
    void realTimesReplaceTheChargeWhenTasksComplete() {
        LeastBusy s = new LeastBusy();
        FakeWorkerView view = new FakeWorkerView(2);
        assertArrayEquals(new int[] {0, 1}, dispatchAll(s, view, 2, 0L));
        view.complete(0, 10 * MS, 0, 0).complete(1, MS, 0, 0);
        // worker 1 has been busy 1 ms against 10 ms: it takes tasks until it catches up
        int[] expected = new int[10];
        Arrays.fill(expected, 0, 9, 1);
        assertArrayEquals(expected, dispatchAll(s, view, 10, 0L));
    }

    @Test
    void hugeTotalsSaturateInsteadOfWrappingAround() {
        FakeWorkerView view = new FakeWorkerView(3)
                // run + wait overflows a long
                .setCompleted(0, 1).setRunTimeTotalNanos(0, Long.MAX_VALUE / 2).setWaitTimeTotalNanos(0, Long.MAX_VALUE / 2 + 10)
                // in-flight * per-task overflows a long
                .setCompleted(1, 1).setRunTimeTotalNanos(1, HUGE).setQueued(1, 5)
                .setCompleted(2, 1).setRunTimeTotalNanos(2, MS).setQueued(2, 3);
        assertEquals(2, new LeastBusy().choose(view, 0L));
    }

    @Test
    void readsRunAndWaitTimeButNotTheClock() {
        assertEquals(EnumSet.of(Statistic.RUN_TIME, Statistic.WAIT_TIME), new LeastBusy().requiredStatistics());
        assertFalse(new LeastBusy().usesClock());
    }
}
