package dev.turntable.pool.classes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The scenarios and expected numbers published with Scoot's load-based algorithm
 * (scheduler/server/load_based_sched_alg_test.go), as facts our planner must reproduce. Each
 * row is {class, percent, running, waiting, expected starts, expected stops}; idle workers are
 * the pool minus every running task (0% classes included), as in Scoot's tests.
 */
class ScootScenariosTest {

    private static final long MINUTE = TimeUnit.MINUTES.toNanos(1);

    @Test
    void startCountsFivePercentClassesOneAtZeroPercent() {
        check(1000, 0, null,
                row("c0", 30, 200, 290, 94, 0),
                row("c1", 25, 300, 230, 0, 0),
                row("c2", 20, 0, 150, 150, 0),
                row("c3", 15, 100, 150, 46, 0),
                row("c4", 10, 110, 90, 0, 0),
                row("c5", 0, 0, 328, 0, 0));
    }

    /**
     * Scoot publishes c0 167 / c1 53 here: its entitlement round rounds c0's share of 150 up to
     * 101 (one past its entitlement) and cuts c3 to 49, which the loans later top up. We give the
     * rounding excess back to the class still under its entitlement within the round (see
     * LoadPlanner), so one loaned worker lands on c1 instead of c0: c0 166 / c1 54.
     */
    @Test
    void startCountsWithAnEmptyClassLoaningItsWorkers() {
        check(1000, 0, null,
                row("c0", 30, 200, 290, 166, 0),
                row("c1", 25, 300, 230, 54, 0),
                row("c2", 20, 0, 0, 0, 0),
                row("c3", 15, 100, 50, 50, 0),
                row("c4", 10, 110, 90, 20, 0));
    }

    @Test
    void startCountsWhenTheLargestClassHasFewTasks() {
        check(1000, 0, null,
                row("c0", 30, 200, 10, 10, 0),
                row("c1", 25, 300, 230, 166, 0),
                row("c2", 20, 0, 0, 0, 0),
                row("c3", 15, 100, 50, 50, 0),
                row("c4", 10, 110, 90, 64, 0));
    }

    @Test
    void startCountsWhenTheSmallestClassHoldsMostWorkers() {
        check(1000, 0, null,
                row("c0", 30, 0, 300, 105, 0),
                row("c1", 25, 0, 230, 81, 0),
                row("c2", 20, 0, 400, 66, 0),
                row("c3", 15, 0, 650, 48, 0),
                row("c4", 10, 700, 800, 0, 0));
    }

    @Test
    void startCountsWithAZeroPercentClassStillRunningTasks() {
        check(1000, 0, null,
                row("c0", 35, 200, 100, 100, 0),
                row("c1", 30, 300, 50, 0, 0),
                row("c2", 20, 0, 200, 159, 0),
                row("c3", 0, 100, 300, 0, 0),
                row("c4", 15, 110, 500, 31, 0));
    }

    @Test
    void startCountsEightClassesTenThousandWorkers() {
        Object[][] rows = {
                row("c0", 30, 1660, 14220, 830, 0),
                row("c1", 25, 101, 9401, 1282, 0),
                row("c2", 16, 420, 16542, 641, 0),
                row("c3", 14, 14, 4194, 754, 0),
                row("c4", 6, 404, 15944, 76, 0),
                row("c5", 4, 42, 11136, 187, 0),
                row("c6", 3, 977, 9145, 0, 0),
                row("c7", 2, 2612, 16781, 0, 0)};
        check(10000, 0, null, rows);
        // Scoot's next case: same but far more waiting in c1, c3, c6, c7: same starts
        rows[1][3] = 29401;
        rows[3][3] = 104194;
        rows[6][3] = 209145;
        rows[7][3] = 416781;
        check(10000, 0, null, rows);
    }

    @Test
    void noWorkersStartsNothing() {
        LoadPlan p = Fixture.plan(ClassConfig.defaults(), 0, "c0", 215, 0);
        assertEquals(0, p.totalTasksToStart());
        assertEquals(0, p.totalTasksToStop());
    }

    @Test
    void rebalanceTenWorkersStopsTheOverEntitledClasses() {
        LoadPlan p = check(10, 50, RebalanceState.overSince(-2 * MINUTE),
                row("c0", 70, 2, 20, 5, 0),
                row("c1", 20, 4, 10, 0, 2),
                row("c2", 10, 4, 30, 0, 3));
        assertTrue(p.rebalanced());
        assertEquals(80, p.deltaSpreadPercent());
        assertEquals(RebalanceState.INITIAL, p.nextState());
    }

    @Test
    void noRebalanceWhenTheSpreadIsWithinTheThreshold() {
        LoadPlan p = check(10000, 50, RebalanceState.overSince(-2 * MINUTE),
                row("c0", 30, 1660, 14220, 830, 0),
                row("c1", 25, 101, 9401, 1282, 0),
                row("c2", 16, 420, 16542, 641, 0),
                row("c3", 14, 14, 104194, 754, 0),
                row("c4", 6, 404, 5944, 76, 0),
                row("c5", 4, 42, 11136, 187, 0),
                row("c6", 3, 977, 9145, 0, 0),
                row("c7", 2, 2612, 16781, 0, 0));
        assertFalse(p.rebalanced());
        assertTrue(p.deltaSpreadPercent() <= 50, p.toString());
    }

    @Test
    void rebalanceWithoutLoans() {
        LoadPlan p = check(10000, 50, RebalanceState.overSince(-2 * MINUTE),
                row("c0", 30, 166, 14220, 2834, 0),
                row("c1", 25, 101, 9401, 2399, 0),
                row("c2", 16, 420, 16542, 1180, 0),
                row("c3", 14, 14, 104194, 1386, 0),
                row("c4", 6, 404, 15944, 196, 0),
                row("c5", 4, 42, 11136, 358, 0),
                row("c6", 3, 977, 209145, 0, 677),
                row("c7", 2, 2612, 416781, 0, 2412));
        assertTrue(p.rebalanced());
        assertEquals(53, p.deltaSpreadPercent());
    }

    @Test
    void rebalanceLoaningTheWorkersOfClassesWithNothingWaiting() {
        LoadPlan p = check(10000, 50, RebalanceState.overSince(-2 * MINUTE),
                row("c0", 30, 166, 14220, 3034, 0),
                row("c1", 25, 101, 9401, 2549, 0),
                row("c2", 16, 420, 16542, 1275, 0),
                row("c3", 14, 14, 104194, 1470, 0),
                row("c4", 6, 404, 0, 0, 0),
                row("c5", 4, 42, 0, 0, 0),
                row("c6", 3, 977, 209145, 0, 660),
                row("c7", 2, 2612, 416781, 0, 2404));
        assertTrue(p.rebalanced());
        // the loans lowered the stops (677 -> 660, 2412 -> 2404) and the starts fill the pool exactly
        assertEquals(p.totalTasksToStart(), 10000 - 4736 + p.totalTasksToStop());
    }

    private static Object[] row(String name, int pct, int running, int waiting, int starts, int stops) {
        return new Object[] {name, pct, running, waiting, starts, stops};
    }

    private static LoadPlan check(int workers, int threshold, RebalanceState previous, Object[]... rows) {
        StringBuilder shares = new StringBuilder();
        for (Object[] r : rows) {
            shares.append(r[0]).append(':').append(r[1]).append(';');
        }
        ClassConfig config = ClassConfig.parse(shares.toString(), "requestor-c0:c0", threshold, MINUTE);
        Object[] loads = new Object[rows.length * 3];
        for (int i = 0; i < rows.length; i++) {
            loads[3 * i] = rows[i][0];
            loads[3 * i + 1] = rows[i][3];
            loads[3 * i + 2] = rows[i][2];
        }
        LoadPlan p = LoadPlanner.plan(config, Fixture.snapshot(config, workers, loads), 0,
                previous == null ? RebalanceState.INITIAL : previous);
        for (Object[] r : rows) {
            assertEquals(r[4], p.tasksToStart((String) r[0]), r[0] + " starts in " + p);
            assertEquals(r[5], p.tasksToStop((String) r[0]), r[0] + " stops in " + p);
        }
        return p;
    }
}
