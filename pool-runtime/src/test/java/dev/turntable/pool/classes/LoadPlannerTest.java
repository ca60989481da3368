package dev.turntable.pool.classes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** Start planning without rebalancing: the issue's scenario at several pool sizes and the edge cases. */
class LoadPlannerTest {

    private static final ClassConfig ISSUE =
            ClassConfig.parse("interactive:75;batch:25", "http-.*:interactive;report-.*:batch");

    @ParameterizedTest(name = "{0} workers: {1} interactive + {2} batch")
    @CsvSource({"4, 3, 1", "8, 6, 2", "16, 12, 4", "1000, 750, 250", "5000, 3750, 1250"})
    void bothClassesFloodedSplitByShare(int workers, int interactive, int batch) {
        LoadPlan p = Fixture.plan(ISSUE, workers, "interactive", 10 * workers, 0, "batch", 10 * workers, 0);
        assertEquals(interactive, p.tasksToStart("interactive"));
        assertEquals(batch, p.tasksToStart("batch"));
        assertEquals(interactive, p.entitledWorkers(ISSUE.classIndex("interactive")));
        assertEquals(batch, p.entitledWorkers(ISSUE.classIndex("batch")));
    }

    @ParameterizedTest(name = "{0} workers")
    @CsvSource({"2", "4", "8", "16", "1000", "5000"})
    void aClassAloneBorrowsEveryWorker(int workers) {
        LoadPlan p = Fixture.plan(ISSUE, workers, "batch", 3 * workers, 0);
        assertEquals(workers, p.tasksToStart("batch"));
        assertEquals(0, p.tasksToStart("interactive"));
    }

    @Test
    void twoWorkersRoundTheSmallClassDownToNoEntitlementButItStillBorrows() {
        LoadPlan flooded = Fixture.plan(ISSUE, 2, "interactive", 9, 0, "batch", 9, 0);
        assertEquals(0, flooded.entitledWorkers(ISSUE.classIndex("batch")), "floor(2 * 25 / 100)");
        assertEquals(2, flooded.tasksToStart("interactive"));
        assertEquals(0, flooded.tasksToStart("batch"));
        LoadPlan oneInteractive = Fixture.plan(ISSUE, 2, "interactive", 1, 0, "batch", 9, 0);
        assertEquals(1, oneInteractive.tasksToStart("interactive"));
        assertEquals(1, oneInteractive.tasksToStart("batch"), "the unused entitlement is loaned");
    }

    @Test
    void aWorkerTheSharesSplitGoesToTheClassWithTheLargerFractionOfIt() {
        // 3 workers at 75:25 are 2.25 and 0.75 workers: the whole ones give 2 and 0, and the
        // worker left goes to batch, which has the larger fraction of it (a review: with it
        // given to the first class, 3:0, batch started none of the first 200 tasks on a pool
        // whose both classes were backlogged).
        LoadPlan p = Fixture.plan(ISSUE, 3, "interactive", 30, 0, "batch", 30, 0);
        assertEquals(2, p.entitledWorkers(ISSUE.classIndex("interactive")));
        assertEquals(1, p.entitledWorkers(ISSUE.classIndex("batch")));
        assertEquals(2, p.tasksToStart("interactive"));
        assertEquals(1, p.tasksToStart("batch"));
    }

    @Test
    void aWorkerTheSharesSplitGoesToTheClassFurthestBehindItsShareOfStarts() {
        ClassConfig halves = ClassConfig.parse("a:50;b:50", "a-.*:a;b-.*:b");
        LoadSnapshot fresh = new LoadSnapshot(halves).workers(1, 1).classLoad("a", 9, 0).classLoad("b", 9, 0);
        assertEquals(1, LoadPlanner.plan(halves, fresh, 0L, RebalanceState.INITIAL).tasksToStart("a"),
                "no starts yet: an exact tie, to the first class in planner order");
        LoadSnapshot aStartedOnce = new LoadSnapshot(halves).workers(1, 1).classLoad("a", 9, 0).classLoad("b", 9, 0)
                .classUsage(halves.classIndex("a"), 1);
        LoadPlan next = LoadPlanner.plan(halves, aStartedOnce, 0L, RebalanceState.INITIAL);
        assertEquals(1, next.tasksToStart("b"));
        assertEquals(0, next.tasksToStart("a"));
    }

    /**
     * Passes over a pool whose every class is backlogged and whose workers all come free at
     * each pass, the starts fed back as the pool does: each class starts its share of the tasks,
     * within one, where whole workers cannot give it (a worker at 50:50, 60:40, 75:25 over 3
     * workers, thirds over 2).
     */
    @ParameterizedTest(name = "{0} on {1} workers")
    @CsvSource({"'a:50;b:50', 1", "'a:60;b:40', 1", "'interactive:75;batch:25', 3", "'a:34;b:33;c:33', 2",
            "'a:70;b:20;c:10', 4"})
    void overManyPassesEachClassStartsItsShareOfTheWorkers(String shares, int workers) {
        ClassConfig c = ClassConfig.parse(shares, ".*:" + shares.substring(0, shares.indexOf(':')));
        int n = c.classCount();
        long[] started = new long[n];
        int passes = 200;
        for (int pass = 0; pass < passes; pass++) {
            LoadSnapshot s = new LoadSnapshot(c).workers(workers, workers);
            for (int i = 0; i < n; i++) {
                s.classLoad(i, 1_000, 0).classUsage(i, started[i]);
            }
            LoadPlan p = LoadPlanner.plan(c, s, 0L, RebalanceState.INITIAL);
            for (int i = 0; i < n; i++) {
                started[i] += p.tasksToStart(i);
            }
        }
        for (int i = 0; i < n; i++) {
            double share = (double) passes * workers * c.normalisedPercent(i) / 100;
            assertEquals(share, started[i], 1.0, c.className(i) + " started " + started[i] + " of "
                    + passes * workers + ", its share " + share + ": " + java.util.Arrays.toString(started));
        }
    }

    @Test
    void aNegativeStartCountIsRefusedNamingIt() {
        LoadSnapshot s = new LoadSnapshot(ISSUE);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> s.classUsage(ISSUE.classIndex("batch"), -1));
        assertEquals("usage -1 of class 'batch' is not allowed: at least 0", e.getMessage());
        assertEquals(0, s.usage(ISSUE.classIndex("batch")));
    }

    @Test
    void theEntitlementPassNeverGivesAClassMoreThanItStillWants() {
        // Found by the pool test: 4 workers, interactive runs 1 of its 3, 3 idle. Rounding its
        // 67% of 3 up gave it all 3 (4 running), leaving batch's entitled worker to nobody.
        LoadPlan p = Fixture.plan(ISSUE, 4, "interactive", 7, 1, "batch", 8, 0);
        assertEquals(2, p.tasksToStart("interactive"));
        assertEquals(1, p.tasksToStart("batch"));
    }

    @Test
    void noIdleWorkersStartsNothing() {
        LoadPlan p = Fixture.plan(ISSUE, 8, "interactive", 50, 0, "batch", 50, 8);
        assertEquals(0, p.totalTasksToStart());
        assertEquals(0, p.totalTasksToStop(), "rebalancing is off");
    }

    @Test
    void runningTasksCountAgainstTheEntitlement() {
        // 16 workers: interactive entitled 12 and runs 10, batch entitled 4 and runs 4; 2 idle
        LoadPlan p = Fixture.plan(ISSUE, 16, "interactive", 20, 10, "batch", 20, 4);
        assertEquals(2, p.tasksToStart("interactive"));
        assertEquals(0, p.tasksToStart("batch"));
    }

    @Test
    void fewerWaitingThanEntitlementLoansTheRest() {
        LoadPlan p = Fixture.plan(ISSUE, 8, "interactive", 2, 0, "batch", 100, 0);
        assertEquals(2, p.tasksToStart("interactive"));
        assertEquals(6, p.tasksToStart("batch"), "2 entitled + 4 loaned from interactive");
    }

    @Test
    void loansAreSplitByNormalisedShareAmongClassesThatWait() {
        ClassConfig c = ClassConfig.parse("a:50;b:30;c:20", ".*:a");
        LoadPlan p = Fixture.plan(c, 100, "a", 0, 0, "b", 500, 0, "c", 500, 0);
        // entitlements b 30, c 20; a's 50 loaned 30:20 renormalised to 60%:40%
        assertEquals(60, p.tasksToStart("b"));
        assertEquals(40, p.tasksToStart("c"));
        assertEquals(0, p.tasksToStart("a"));
    }

    @Test
    void sharesNotSummingTo100PlanLikeTheirPercents() {
        ClassConfig ratio = ClassConfig.parse("interactive:3;batch:1", ".*:batch");
        LoadPlan p = Fixture.plan(ratio, 1000, "interactive", 5000, 0, "batch", 5000, 0);
        assertEquals(750, p.tasksToStart("interactive"));
        assertEquals(250, p.tasksToStart("batch"));
        ClassConfig thirds = ClassConfig.parse("a:1;b:1;c:1", ".*:a");
        LoadPlan t = Fixture.plan(thirds, 100, "a", 500, 0, "b", 500, 0, "c", 500, 0);
        assertEquals(34, t.tasksToStart("a"));
        assertEquals(33, t.tasksToStart("b"));
        assertEquals(33, t.tasksToStart("c"));
    }

    @Test
    void allSharesZeroButOneRunsOnlyThatClass() {
        ClassConfig c = ClassConfig.parse("a:0;b:0;c:10", ".*:c");
        LoadPlan p = Fixture.plan(c, 16, "a", 50, 0, "b", 50, 0, "c", 10, 0);
        assertEquals(10, p.tasksToStart("c"));
        assertEquals(0, p.tasksToStart("a"));
        assertEquals(0, p.tasksToStart("b"), "6 workers stay idle rather than run 0% classes");
    }

    @Test
    void zeroPercentClassNeverStartsEvenWithEveryWorkerIdleAndNothingElseWaiting() {
        ClassConfig c = ClassConfig.parse("interactive:100;paused:0", ".*:interactive");
        LoadPlan p = Fixture.plan(c, 8, "paused", 100, 0);
        assertEquals(0, p.totalTasksToStart());
    }

    @Test
    void roundingNeverTakesAClassPastItsEntitlementWhileAnotherWantsAndNeverExceedsIdleOrWaiting() {
        // 7 workers, 34/33/33: entitlements 3/2/2; want percents 44/28/28; Scoot's ceil(7*44%)
        // gives a 4 and cuts c to the 1 worker left; the excess goes back to c, under its own.
        ClassConfig c = ClassConfig.parse("a:34;b:33;c:33", ".*:a");
        LoadPlan p = Fixture.plan(c, 7, "a", 50, 0, "b", 50, 0, "c", 50, 0);
        assertEquals(3, p.tasksToStart("a"));
        assertEquals(2, p.tasksToStart("b"));
        assertEquals(2, p.tasksToStart("c"));
        LoadPlan few = Fixture.plan(c, 7, "a", 1, 0, "b", 1, 0, "c", 1, 0);
        assertEquals(3, few.totalTasksToStart(), "never more than waiting");
        LoadPlan oneIdle = Fixture.plan(c, 7, "a", 50, 6, "b", 50, 0, "c", 50, 0);
        assertEquals(1, oneIdle.totalTasksToStart(), "never more than idle");
        assertEquals(1, oneIdle.tasksToStart("b"), "b is the first class under its entitlement");
    }

    @Test
    void aClassOverItsEntitlementGetsNoRoundingLeftoverWhileOthersAreUnder() {
        // 10 workers a:50 b:30 c:20 (entitled 5/3/2); a runs 6, b 2, c 0; 2 idle. Wants b 1, c 2 ->
        // percents 34/66. Scoot gives the rounding leftover (1%) to the largest class even with no
        // want, so a would take a worker and c none; here it goes to b, the first class that wants.
        ClassConfig c = ClassConfig.parse("a:50;b:30;c:20", ".*:a");
        LoadPlan p = Fixture.plan(c, 10, "a", 10, 6, "b", 10, 2, "c", 10, 0);
        assertEquals(0, p.tasksToStart("a"));
        assertEquals(1, p.tasksToStart("b"));
        assertEquals(1, p.tasksToStart("c"));
    }

    @Test
    void unknownRequestorLandsInTheSmallestClassAndIsPlannedThere() {
        int batch = ISSUE.classIndexFor("cron-nightly");
        assertEquals("batch", ISSUE.className(batch));
        LoadSnapshot s = new LoadSnapshot(ISSUE).classLoad(batch, 5, 0).workers(4, 4);
        assertEquals(4, LoadPlanner.plan(ISSUE, s, 0, RebalanceState.INITIAL).tasksToStart(batch));
    }

    @Test
    void reusingAPlanGivesTheSameAnswerAsAFreshOne() {
        LoadPlan reused = new LoadPlan(ISSUE);
        LoadSnapshot s = Fixture.snapshot(ISSUE, 16, "interactive", 3, 0, "batch", 40, 0);
        LoadPlanner.plan(ISSUE, Fixture.snapshot(ISSUE, 16, "batch", 40, 16), 0, RebalanceState.INITIAL, reused);
        assertSame(reused, LoadPlanner.plan(ISSUE, s, 0, RebalanceState.INITIAL, reused));
        LoadPlan fresh = LoadPlanner.plan(ISSUE, s, 0, RebalanceState.INITIAL);
        assertEquals(fresh.toString(), reused.toString());
        assertEquals(3, reused.tasksToStart("interactive"));
        assertEquals(13, reused.tasksToStart("batch"));
    }

    @Test
    void aSnapshotForAnotherConfigurationIsRejected() {
        ClassConfig other = ClassConfig.parse("a:50;b:50", ".*:a");
        LoadSnapshot s = new LoadSnapshot(other).workers(4, 4);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> LoadPlanner.plan(ISSUE, s, 0, RebalanceState.INITIAL));
        assertEquals(true, e.getMessage().startsWith("the snapshot was made for configuration"), e.getMessage());
        // an equal configuration parsed separately is fine
        ClassConfig same = ClassConfig.parse(ISSUE.classLoadPercentsText(), ISSUE.requestorMapText());
        assertEquals(4, LoadPlanner.plan(same, new LoadSnapshot(ISSUE).workers(4, 4).classLoad("batch", 9, 0), 0,
                RebalanceState.INITIAL).tasksToStart("batch"));
    }

    @Test
    void snapshotRejectsImpossibleCounts() {
        LoadSnapshot s = new LoadSnapshot(ISSUE);
        assertThrows(IllegalArgumentException.class, () -> s.workers(4, 5));
        assertThrows(IllegalArgumentException.class, () -> s.workers(-1, 0));
        assertThrows(IllegalArgumentException.class, () -> s.classLoad("batch", -1, 0));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> s.classLoad("gpu", 1, 0));
        assertEquals("class 'gpu' is not configured; allowed: [interactive, batch]", e.getMessage());
    }
}
