package dev.turntable.pool.strategy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code LIFETIME_FIRST} on hand-built views: the reference document's examples, the margin over
 * existing workers, ties, stuck/draining workers, and a simulated run that shows the staircase
 * and one retirement at a time.
 */
final class LifetimeFirstTest extends WorkerChoiceStrategyContractTest {

    @Override
    WorkerChoiceStrategy newStrategy() {
        return new LifetimeFirst();
    }

    @Override
    String nameConstant() {
        return LifetimeFirst.NAME;
    }

    private final LifetimeFirst strategy = new LifetimeFirst();

    @Test
    void documentExamplePicksTheHighestLifetimeBelowTheMargin() {
        // limit 20, 4 workers: margin 5, safe zone 0..14; 16 is in the margin, 12 is picked.
        FakeWorkerView view = new FakeWorkerView(4).setMaxLifetimeTasks(20).setLifetimes(16, 12, 8, 3);
        assertEquals(1, strategy.choose(view, 0L));
    }

    @Test
    void marginIsTheLimitOverTheWorkersWithAFloorOfOne() {
        assertEquals(12, LifetimeFirst.margin(50, 4));
        assertEquals(25, LifetimeFirst.margin(50, 2));
        assertEquals(10, LifetimeFirst.margin(100, 10));
        assertEquals(1, LifetimeFirst.margin(3, 8));
    }

    @Test
    void allInTheMarginFallsBackToTheHighestThatCanTakeOneMore() {
        FakeWorkerView view = new FakeWorkerView(3).setMaxLifetimeTasks(20).setLifetimes(18, 17, 16);
        assertEquals(0, strategy.choose(view, 0L));
        view.setLifetimes(20, 19, 16); // worker 0 at the limit: 19 is the highest that fits
        assertEquals(1, strategy.choose(view, 0L));
    }

    @Test
    void allAtTheLimitChoosesNone() {
        FakeWorkerView view = new FakeWorkerView(2).setMaxLifetimeTasks(20).setLifetimes(20, 20);
        assertEquals(WorkerChoiceStrategy.NONE, strategy.choose(view, 0L));
    }

    @Test
    void equalLifetimesGoToTheFewestInFlightThenTheLowestIndex() {
        FakeWorkerView view = new FakeWorkerView(3).setMaxLifetimeTasks(50).setLifetimes(10, 10, 10);
        view.setRunning(0, 1).setQueued(1, 1);
        assertEquals(2, strategy.choose(view, 0L));
        view.setRunning(0, 0);
        assertEquals(0, strategy.choose(view, 0L));
    }

    @Test
    void stuckOrDrainingWorkersAreSkippedButStillCountForTheMargin() {
        // limit 20, 4 workers exist: margin 5. Worker 1 (12) is stuck: 8 is the next best.
        FakeWorkerView view = new FakeWorkerView(4).setMaxLifetimeTasks(20).setLifetimes(16, 12, 8, 3);
        view.setAvailable(1, false);
        assertEquals(2, strategy.choose(view, 0L));
    }

    @Test
    void freeSlotsDoNotCountForTheMargin() {
        // limit 20 over 2 live workers of 4 slots: margin 10, safe below 10. 12 is in the margin
        // now (with stale slots counted it would be safe and picked).
        FakeWorkerView view = new FakeWorkerView(4).setMaxLifetimeTasks(20).setLifetimes(0, 12, 0, 3);
        view.setAvailable(0, false).setExists(0, false).setAvailable(2, false).setExists(2, false);
        assertEquals(3, strategy.choose(view, 0L));
    }

    @Test
    void singleWorkerIsUsedUpToItsLimitThenNone() {
        FakeWorkerView view = new FakeWorkerView(1).setMaxLifetimeTasks(5);
        for (int k = 0; k < 5; k++) {
            assertEquals(0, strategy.choose(view, 0L), "task " + k);
            view.dispatch(0);
        }
        assertEquals(WorkerChoiceStrategy.NONE, strategy.choose(view, 0L));
    }

    @Test
    void zeroWorkersChoosesNone() {
        assertEquals(WorkerChoiceStrategy.NONE, strategy.choose(new FakeWorkerView(0).setMaxLifetimeTasks(10), 0L));
    }

    @Test
    void withoutALimitItPicksTheFewestInFlight() {
        FakeWorkerView view = new FakeWorkerView(3).setLifetimes(100, 5, 7);
        view.setRunning(0, 1).setRunning(1, 1);
        assertEquals(2, strategy.choose(view, 0L));
    }

    /**
     * The document's picture, simulated: 4 workers, limit 50, at most 2 tasks in flight per
     * worker, a task every step lasting 6 steps. A worker that reaches the limit drains (takes
     * nothing) and its replacement starts at 0 once its tasks are done. Lifetimes spread into a
     * staircase, every worker takes its turn, and retirements are staggered.
     */
    @Test
    void simulatedRunStaggersRetirementsAndShowsTheStaircase() {
        int limit = 50;
        int workers = 4;
        int maxInFlight = 2;
        int taskSteps = 6;
        FakeWorkerView view = new FakeWorkerView(workers).setMaxLifetimeTasks(limit);
        java.util.ArrayDeque<long[]> inFlight = new java.util.ArrayDeque<>(); // {worker, endStep}
        List<Integer> retirements = new ArrayList<>();
        boolean sawStaircase = false;
        int maxDraining = 0;
        int stepsTwoDraining = 0;
        int lastRetirementStep = -1;
        int minStepsBetweenRetirements = Integer.MAX_VALUE;
        for (int step = 0; step < 4_000; step++) {
            while (!inFlight.isEmpty() && inFlight.peekFirst()[1] <= step) {
                int w = (int) inFlight.pollFirst()[0];
                view.complete(w, 1L);
            }
            int draining = 0;
            for (int i = 0; i < workers; i++) {
                boolean atLimit = view.lifetimeTasks(i) >= limit;
                if (atLimit && view.running(i) == 0 && view.queued(i) == 0) {
                    retirements.add(i);
                    if (lastRetirementStep >= 0) {
                        minStepsBetweenRetirements = Math.min(minStepsBetweenRetirements, step - lastRetirementStep);
                    }
                    lastRetirementStep = step;
                    view.setLifetimeTasks(i, 0); // the replacement starts at 0
                    atLimit = false;
                }
                draining += atLimit ? 1 : 0;
                view.setAvailable(i, !atLimit && view.running(i) + view.queued(i) < maxInFlight);
            }
            maxDraining = Math.max(maxDraining, draining);
            stepsTwoDraining += draining > 1 ? 1 : 0;
            int w = strategy.choose(view, 0L);
            if (w >= 0) {
                view.dispatch(w).start(w, step);
                inFlight.addLast(new long[] {w, step + taskSteps});
            }
            long[] l = new long[workers];
            for (int i = 0; i < workers; i++) {
                l[i] = view.lifetimeTasks(i);
            }
            java.util.Arrays.sort(l);
            if (l[0] < l[1] && l[1] < l[2] && l[2] < l[3]) {
                sawStaircase = true; // four distinct lifetimes: staggered
            }
        }
        assertTrue(sawStaircase, "lifetimes never spread into a staircase");
        // The selection alone staggers retirements: never two in one step, and two workers
        // overlap in draining only briefly (here 3 of 4,000 steps), when the fallback pushes
        // the next worker while the last one's tasks still run. (The engine goes further: it
        // lets only one worker retire at a time.)
        assertTrue(minStepsBetweenRetirements >= 1, "two workers retired in the same step");
        assertTrue(stepsTwoDraining < 4_000 / 100, "workers drained together in " + stepsTwoDraining + " steps");
        assertTrue(maxDraining <= 2, "more than two workers drained together");
        // 4,000 tasks over a limit of 50: every worker lifetime but the last few is used up.
        assertTrue(retirements.size() >= 4_000 / limit - workers, "too few retirements: " + retirements.size());
        for (int i = 0; i < workers; i++) {
            assertTrue(retirements.contains(i), "worker " + i + " never retired: " + retirements);
        }
    }
}
