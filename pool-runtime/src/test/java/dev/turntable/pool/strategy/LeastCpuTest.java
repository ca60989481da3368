package dev.turntable.pool.strategy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.Arrays;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

/** Where {@code LEAST_CPU} sends tasks; the shared contract runs too (inherited). */
final class LeastCpuTest extends WorkerChoiceStrategyContractTest {

    @Override
    WorkerChoiceStrategy newStrategy() {
        return new LeastCpu();
    }

    @Override
    String nameConstant() {
        return LeastCpu.NAME;
    }

    @Test
    void burstBeforeAnyTaskCompletesSpreadsEvenly() {
        FakeWorkerView view = new FakeWorkerView(4);
        assertArrayEquals(repeat(3, 0, 1, 2, 3), dispatchAll(new LeastCpu(), view, 12, 0L));
    }

    @Test
    void burstRightAfterSwitchingToItSpreadsEvenlyToo() {
        // tasks completed under an earlier strategy, but CPU time was not collected then
        FakeWorkerView view = new FakeWorkerView(3);
        for (int i = 0; i < 3; i++) {
            view.setCompleted(i, 50);
        }
        assertArrayEquals(new int[] {3, 3, 3}, perWorker(dispatchAll(new LeastCpu(), view, 9, 0L), 3));
    }

    @Test
    void sendsTheTaskToTheWorkerThatUsedTheLeastCpu() {
        FakeWorkerView view = new FakeWorkerView(3)
                .setCompleted(0, 10).setCpuTimeNanos(0, 30 * MS)
                .setCompleted(1, 10).setCpuTimeNanos(1, 20 * MS)
                .setCompleted(2, 10).setCpuTimeNanos(2, 10 * MS);
        assertEquals(2, new LeastCpu().choose(view, 0L));
    }

    @Test
    void wallClockAndWaitTimeDoNotCount() {
        // worker 0 spent long blocked (I/O) but little CPU; worker 1 burned CPU
        FakeWorkerView view = new FakeWorkerView(2)
                .setCompleted(0, 10).setRunTimeTotalNanos(0, 500 * MS).setWaitTimeTotalNanos(0, 100 * MS).setCpuTimeNanos(0, MS)
                .setCompleted(1, 10).setRunTimeTotalNanos(1, 10 * MS).setCpuTimeNanos(1, 10 * MS);
        assertEquals(0, new LeastCpu().choose(view, 0L));
    }

    /** As for LEAST_BUSY: a fresh worker in a long first task charges its tasks at the pool's average CPU. */
    @Test
    void aWorkerWithoutHistoryChargesItsTasksAtThePoolsAverage() {
        FakeWorkerView view = new FakeWorkerView(2)
                .setRunning(0, 1)
                .setCompleted(1, 1).setCpuTimeNanos(1, MS);
        assertArrayEquals(new int[] {10, 10}, perWorker(dispatchAll(new LeastCpu(), view, 20, 0L), 2));
    }

    /** As for LEAST_BUSY: CPU time since a reset is averaged over the tasks since, not the thread's life. */
    @Test
    void historyIsAveragedOverTheTasksItCoversNotTheThreadsLife() {
        FakeWorkerView view = new FakeWorkerView(2)
                .setCompleted(0, 111).setHistoryTasks(0, 3).setCpuTimeNanos(0, 3 * MS)
                .setCompleted(1, 1895).setHistoryTasks(1, 3).setCpuTimeNanos(1, 3 * MS);
        assertArrayEquals(new int[] {20, 20}, perWorker(dispatchAll(new LeastCpu(), view, 40, 0L), 2));
    }

    @Test
    void tasksInFlightAreChargedAtTheWorkersOwnAverageCpu() {
        FakeWorkerView view = new FakeWorkerView(2)
                .setCompleted(0, 20).setCpuTimeNanos(0, 20 * MS)
                .setCompleted(1, 10).setCpuTimeNanos(1, 20 * MS);
        assertArrayEquals(new int[] {20, 10}, perWorker(dispatchAll(new LeastCpu(), view, 30, 0L), 2));
    }

    @Test
    void realCpuTimesReplaceTheChargeWhenTasksComplete() {
        LeastCpu s = new LeastCpu();
        FakeWorkerView view = new FakeWorkerView(2);
        assertArrayEquals(new int[] {0, 1}, dispatchAll(s, view, 2, 0L));
        view.complete(0, 10 * MS, 0, 10 * MS).complete(1, 10 * MS, 0, MS);
        int[] expected = new int[10];
        Arrays.fill(expected, 0, 9, 1);
        assertArrayEquals(expected, dispatchAll(s, view, 10, 0L));
    }

    @Test
    void hugeTotalsSaturateInsteadOfWrappingAround() {
        FakeWorkerView view = new FakeWorkerView(2)
                .setCompleted(0, 1).setCpuTimeNanos(0, HUGE).setQueued(0, 5)
                .setCompleted(1, 1).setCpuTimeNanos(1, MS).setQueued(1, 3);
        assertEquals(1, new LeastCpu().choose(view, 0L));
    }

    @Test
    void readsCpuTimeButNotTheClock() {
        assertEquals(EnumSet.of(Statistic.CPU_TIME), new LeastCpu().requiredStatistics());
        assertFalse(new LeastCpu().usesClock());
    }
}
