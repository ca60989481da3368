package dev.turntable.pool.classes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Rebalancing: the spread, the over-threshold state carried between plans, and the stops. */
class RebalanceTest {

    private static final long D = TimeUnit.SECONDS.toNanos(30);
    private static final long T0 = 1_000_000_000_000L;
    private static final ClassConfig ISSUE =
            ClassConfig.parse("interactive:75;batch:25", "http-.*:interactive;report-.*:batch", 20, D);

    /** Interactive arrives while batch, alone before, holds every worker. */
    private static LoadSnapshot interactiveArrives(int workers) {
        return Fixture.snapshot(ISSUE, workers, "interactive", 2 * workers, 0, "batch", 3 * workers, workers);
    }

    @Test
    void issueScenarioStopsThreeBatchTasksOnlyAfterTheMinimumDuration() {
        LoadSnapshot s = interactiveArrives(4);

        LoadPlan first = LoadPlanner.plan(ISSUE, s, T0, RebalanceState.INITIAL);
        assertEquals(150, first.deltaSpreadPercent(), "interactive 75 - 0, batch 25 - 100");
        assertFalse(first.rebalanced());
        assertEquals(0, first.totalTasksToStop());
        assertEquals(0, first.totalTasksToStart(), "no idle worker");
        assertEquals(RebalanceState.overSince(T0), first.nextState());

        LoadPlan before = LoadPlanner.plan(ISSUE, s, T0 + D - 1, first.nextState());
        assertEquals(0, before.totalTasksToStop());
        assertSame(first.nextState(), before.nextState(), "still counting from the first plan over");

        LoadPlan after = LoadPlanner.plan(ISSUE, s, T0 + D, before.nextState());
        assertTrue(after.rebalanced());
        assertEquals(3, after.tasksToStop("batch"), "batch goes down to its entitlement of 1");
        assertEquals(3, after.tasksToStart("interactive"));
        assertEquals(0, after.tasksToStart("batch"));
        assertEquals(0, after.tasksToStop("interactive"));
        assertEquals(RebalanceState.INITIAL, after.nextState(), "the wait starts over after a rebalance");
    }

    @ParameterizedTest(name = "{0} workers")
    @CsvSource({"8, 6, 6", "16, 12, 12", "1000, 750, 750", "5000, 3750, 3750"})
    void issueScenarioAtOtherPoolSizes(int workers, int stops, int starts) {
        LoadSnapshot s = interactiveArrives(workers);
        LoadPlan first = LoadPlanner.plan(ISSUE, s, T0, RebalanceState.INITIAL);
        LoadPlan after = LoadPlanner.plan(ISSUE, s, T0 + D, first.nextState());
        assertEquals(stops, after.tasksToStop("batch"));
        assertEquals(starts, after.tasksToStart("interactive"));
    }

    @Test
    void belowTheThresholdNothingStopsAndTheStateStaysInitial() {
        // 16 workers: interactive runs 10 of its 12 (diff 75 - 62 = 13), batch 6 of 4 (25 - 37 = -12): spread 25
        ClassConfig loose = ISSUE.withRebalancing(25, D);
        LoadSnapshot s = Fixture.snapshot(loose, 16, "interactive", 5, 10, "batch", 5, 6);
        LoadPlan p = LoadPlanner.plan(loose, s, T0 + 10 * D, RebalanceState.overSince(T0));
        assertEquals(25, p.deltaSpreadPercent());
        assertFalse(p.rebalanced());
        assertEquals(0, p.totalTasksToStop());
        assertEquals(RebalanceState.INITIAL, p.nextState());
        // the same snapshot one point over a lower threshold starts the clock
        ClassConfig tight = ISSUE.withRebalancing(24, D);
        assertEquals(RebalanceState.overSince(T0), LoadPlanner.plan(tight, Fixture.snapshot(tight, 16, "interactive",
                5, 10, "batch", 5, 6), T0, RebalanceState.INITIAL).nextState());
    }

    @Test
    void spreadDroppingBelowTheThresholdResetsTheState() {
        LoadPlan first = LoadPlanner.plan(ISSUE, interactiveArrives(4), T0, RebalanceState.INITIAL);
        assertTrue(first.nextState().overThreshold());
        // two batch tasks finished and interactive got them: interactive 2 (75-50), batch 2 (25-50): spread 50
        // is still over 20; with 3 + 1 it is 0
        LoadSnapshot balanced = Fixture.snapshot(ISSUE, 4, "interactive", 5, 3, "batch", 5, 1);
        LoadPlan calm = LoadPlanner.plan(ISSUE, balanced, T0 + D / 2, first.nextState());
        assertEquals(0, calm.deltaSpreadPercent());
        assertEquals(RebalanceState.INITIAL, calm.nextState());
        // over again later: the clock starts from this new time, not from T0
        LoadPlan again = LoadPlanner.plan(ISSUE, interactiveArrives(4), T0 + D, calm.nextState());
        assertEquals(0, again.totalTasksToStop());
        assertEquals(RebalanceState.overSince(T0 + D), again.nextState());
    }

    @Test
    void thresholdZeroTurnsRebalancingOff() {
        ClassConfig off = ISSUE.withRebalancing(0, D);
        LoadSnapshot s = Fixture.snapshot(off, 4, "interactive", 8, 0, "batch", 12, 4);
        LoadPlan p = LoadPlanner.plan(off, s, T0 + 100 * D, RebalanceState.overSince(T0));
        assertEquals(150, p.deltaSpreadPercent());
        assertEquals(0, p.totalTasksToStop());
        assertEquals(RebalanceState.INITIAL, p.nextState());
    }

    @Test
    void zeroMinimumDurationRebalancesOnTheSecondPlanOverTheThreshold() {
        ClassConfig eager = ISSUE.withRebalancing(20, 0);
        LoadSnapshot s = Fixture.snapshot(eager, 4, "interactive", 8, 0, "batch", 12, 4);
        LoadPlan first = LoadPlanner.plan(eager, s, T0, RebalanceState.INITIAL);
        assertEquals(0, first.totalTasksToStop(), "one observation never stops tasks");
        assertEquals(3, LoadPlanner.plan(eager, s, T0, first.nextState()).tasksToStop("batch"));
    }

    @Test
    void timeComparisonSurvivesNanoTimeWrapAround() {
        long since = Long.MAX_VALUE - 5;
        LoadPlan p = LoadPlanner.plan(ISSUE, interactiveArrives(4), since + D, RebalanceState.overSince(since));
        assertEquals(3, p.tasksToStop("batch"));
    }

    @Test
    void rebalanceStopsOnlyDownToTheEntitlementAndKeepsClassesWithinIt() {
        // 16 workers, a:50 b:25 c:25 (entitled 8/4/4); a runs 2, b runs 12 (8 over), c runs 2 with 1 waiting
        ClassConfig c = ClassConfig.parse("a:50;b:25;c:25", ".*:a", 20, D);
        LoadSnapshot s = Fixture.snapshot(c, 16, "a", 30, 2, "b", 30, 12, "c", 1, 2);
        LoadPlan p = LoadPlanner.plan(c, s, T0 + D, RebalanceState.overSince(T0));
        assertTrue(p.rebalanced());
        assertEquals(8, p.tasksToStop("b"));
        assertEquals(1, p.tasksToStart("c"), "c starts all it has");
        // c leaves 1 worker of its 4 unused: loaned to a and b by share (2:1 -> 67%:33%): a takes it first
        assertEquals(7, p.tasksToStart("a"));
        assertEquals(0, p.tasksToStop("a") + p.tasksToStop("c"));
        assertEquals(p.totalTasksToStart(), s.idleWorkers() + p.totalTasksToStop());
    }

    @Test
    void rebalanceNeverStartsMoreThanIdlePlusStoppedWhenAZeroPercentClassHoldsWorkers() {
        // z was at 0% after a reconfiguration but still runs 4 tasks; its workers are not free
        ClassConfig c = ClassConfig.parse("a:50;b:50;z:0", ".*:a", 20, D);
        LoadSnapshot s = Fixture.snapshot(c, 10, "a", 10, 6, "b", 10, 0, "z", 10, 4);
        LoadPlan p = LoadPlanner.plan(c, s, T0 + D, RebalanceState.overSince(T0));
        assertTrue(p.rebalanced());
        assertEquals(1, p.tasksToStop("a"));
        assertEquals(0, p.tasksToStop("z"), "a 0% class's running tasks are never stopped");
        assertEquals(1, p.tasksToStart("b"), "cut from 5 to the 1 worker a frees");
    }

    /**
     * The design notes take the spread over the classes with waiting tasks. A class borrowing
     * every worker while no other class waits is a loan, not an imbalance: counted, it kept the
     * over-threshold time running, and the first task of a class coming back long after was
     * met with an immediate rebalance.
     */
    @Test
    void aClassBorrowingWorkersNobodyElseWantsIsNoSpreadAndStartsNoClock() {
        LoadSnapshot batchAlone = Fixture.snapshot(ISSUE, 4, "interactive", 0, 0, "batch", 0, 4);
        LoadPlan p = LoadPlanner.plan(ISSUE, batchAlone, T0, RebalanceState.INITIAL);
        assertEquals(0, p.deltaSpreadPercent(), "nothing waits: nothing is short of its share");
        assertEquals(RebalanceState.INITIAL, p.nextState());

        LoadSnapshot interactiveBack = Fixture.snapshot(ISSUE, 4, "interactive", 1, 0, "batch", 0, 4);
        LoadPlan back = LoadPlanner.plan(ISSUE, interactiveBack, T0 + 10 * D, p.nextState());
        assertFalse(back.rebalanced(), "the wait starts when interactive starts waiting, not before");
        assertEquals(75, back.deltaSpreadPercent(), "interactive 75 - 0; batch, with nothing waiting, not counted");
        assertEquals(RebalanceState.overSince(T0 + 10 * D), back.nextState());
    }

    /**
     * Stops free workers for the classes that wait; a worker no waiting task of another class
     * would take is lent back to the task on it. Stopping it anyway interrupted restartable
     * work only to start it again at once.
     */
    @Test
    void rebalanceStopsOnlyTheTasksWhoseWorkersAnotherClassWillUse() {
        // one interactive task, one idle worker, batch on the other three: nothing needs stopping
        LoadSnapshot one = Fixture.snapshot(ISSUE, 4, "interactive", 1, 0, "batch", 0, 3);
        LoadPlan p = LoadPlanner.plan(ISSUE, one, T0 + D, RebalanceState.overSince(T0));
        assertTrue(p.rebalanced());
        assertEquals(0, p.tasksToStop("batch"), "the idle worker is enough for interactive's one task");
        assertEquals(1, p.tasksToStart("interactive"));
        assertEquals(0, p.tasksToStart("batch"));

        // two interactive tasks, batch on all four: two stops, not three (its entitlement of 1)
        LoadSnapshot two = Fixture.snapshot(ISSUE, 4, "interactive", 2, 0, "batch", 0, 4);
        LoadPlan q = LoadPlanner.plan(ISSUE, two, T0 + D, RebalanceState.overSince(T0));
        assertTrue(q.rebalanced());
        assertEquals(2, q.tasksToStop("batch"));
        assertEquals(2, q.tasksToStart("interactive"));
        assertEquals(0, q.tasksToStart("batch"));
    }

    /**
     * Workers left after the entitlements go first to classes with tasks really waiting; only
     * those none of them takes are lent back to tasks that would be stopped. Lent back first,
     * c kept a borrowed worker while b's tasks still waited (b started 5, c stopped 3).
     */
    @Test
    void aClassKeepsNoBorrowedWorkerThatAnotherClassesWaitingTaskWouldTake() {
        ClassConfig c = ClassConfig.parse("a:50;b:30;c:20", null, 10, D);
        // c borrowed 6 of 10 workers and has nothing waiting; b has 10 waiting; a has 2
        LoadSnapshot s = Fixture.snapshot(c, 10, "a", 2, 0, "b", 10, 0, "c", 0, 6);
        LoadPlan p = LoadPlanner.plan(c, s, T0 + D, RebalanceState.overSince(T0));
        assertTrue(p.rebalanced());
        assertEquals(2, p.tasksToStart("a"));
        assertEquals(6, p.tasksToStart("b"));
        assertEquals(4, p.tasksToStop("c"), "down to its entitlement of 2: b takes every worker freed");
    }

    @Test
    void stateRejectsATimeWithoutBeingOver() {
        assertThrows(IllegalArgumentException.class, () -> new RebalanceState(false, 5));
        assertEquals(0, RebalanceState.INITIAL.overThresholdForNanos(T0));
        assertEquals(7, RebalanceState.overSince(T0).overThresholdForNanos(T0 + 7));
    }

    @Test
    void aRebalanceStartsAWaitingTaskOnAnIdleWorkerEvenInAClassOverItsEntitlement() {
        // c is entitled to 0 of 5 workers and runs 4; nothing else wants a worker. The loan for
        // c's waiting task used to cancel one of c's stops instead, and the stops left were lent
        // back: nothing started, and the fifth worker stayed idle beside c's waiting task.
        ClassConfig config = ClassConfig.parse("a:82;c:18", "x:a").withRebalancing(10, 0);
        LoadSnapshot s = new LoadSnapshot(config).workers(5, 1).classLoad("c", 1, 4);
        LoadPlan p = LoadPlanner.plan(config, s, T0 + 1, RebalanceState.overSince(T0));
        assertTrue(p.rebalanced(), p::toString);
        assertEquals(0, p.totalTasksToStop(), p::toString);
        assertEquals(1, p.tasksToStart("c"), p::toString);
    }
}
