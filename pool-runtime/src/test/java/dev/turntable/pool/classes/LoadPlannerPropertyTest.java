package dev.turntable.pool.classes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** Seeded random inputs: the planner's guarantees hold for every one of them. */
class LoadPlannerPropertyTest {

    private static final int CASES = 20_000;

    @Test
    void guaranteesHoldForRandomInputs() {
        Random random = new Random(20240611L);
        int rebalances = 0;
        int zeroClassesWithWaiting = 0;
        for (int n = 0; n < CASES; n++) {
            ClassConfig config = randomConfig(random);
            int classes = config.classCount();
            int total = random.nextInt(5) == 0 ? random.nextInt(17) : random.nextInt(5001);
            LoadSnapshot s = new LoadSnapshot(config);
            boolean withUsage = n % 2 == 1; // half the cases with each class's usage so far, as the engine gives it
            int free = total;
            for (int i = 0; i < classes; i++) {
                int running = random.nextBoolean() && free > 0 ? random.nextInt(free + 1) : 0;
                free -= running;
                int waiting = random.nextInt(4) == 0 ? 0 : random.nextInt(2 * total + 3);
                s.classLoad(i, waiting, running);
                if (withUsage) { // none, small, large and up to 2^55 (the planner reads up to 2^50)
                    int magnitude = random.nextInt(4);
                    s.classUsage(i, magnitude == 0 ? 0 : magnitude == 1 ? random.nextInt(10)
                            : magnitude == 2 ? random.nextInt(100_000) : random.nextLong() & ((1L << 55) - 1));
                }
            }
            s.workers(total, free);
            long now = random.nextLong();
            RebalanceState previous = random.nextBoolean() ? RebalanceState.INITIAL
                    : RebalanceState.overSince(now - random.nextInt(3) * config.rebalanceMinimumDurationNanos());
            String context = "case " + n + ": " + config + " / " + s;

            LoadPlan p = LoadPlanner.plan(config, s, now, previous);
            int waitingInActive = 0;
            for (int i = 0; i < classes; i++) {
                assertTrue(p.tasksToStart(i) >= 0 && p.tasksToStop(i) >= 0, context);
                assertTrue(p.tasksToStart(i) <= s.waitingTasks(i), "starts within waiting; " + context);
                if (config.normalisedPercent(i) == 0) {
                    assertEquals(0, p.tasksToStart(i) + p.tasksToStop(i), "0% class untouched; " + context);
                    zeroClassesWithWaiting += s.waitingTasks(i) > 0 ? 1 : 0;
                } else {
                    waitingInActive += s.waitingTasks(i);
                }
                assertTrue(p.tasksToStop(i) <= Math.max(0, s.runningTasks(i) - p.entitledWorkers(i)),
                        "stops only down to the entitlement; " + context);
            }
            assertTrue(p.totalTasksToStart() <= s.idleWorkers() + p.totalTasksToStop(), context);
            if (p.rebalanced()) {
                rebalances++;
                assertEquals(RebalanceState.INITIAL, p.nextState(), context);
                assertTrue(p.totalTasksToStart() >= Math.min(s.idleWorkers(), waitingInActive),
                        "a rebalance uses every idle worker a waiting task could; " + context);
            } else {
                assertEquals(0, p.totalTasksToStop(), context);
                assertEquals(Math.min(s.idleWorkers(), waitingInActive), p.totalTasksToStart(),
                        "every idle worker used while tasks wait; " + context);
            }
            LoadPlan again = LoadPlanner.plan(config, s, now, previous, new LoadPlan(config));
            assertEquals(p.toString(), again.toString(), "deterministic; " + context);
            assertEquals(p.nextState(), again.nextState(), context);
        }
        assertTrue(rebalances > CASES / 20, "the random inputs exercise rebalancing: " + rebalances);
        assertTrue(zeroClassesWithWaiting > CASES / 20, "and 0% classes with work: " + zeroClassesWithWaiting);
    }

    private static ClassConfig randomConfig(Random random) {
        int classes = 1 + random.nextInt(6);
        StringBuilder shares = new StringBuilder();
        for (int i = 0; i < classes; i++) {
            int share = i == 0 ? 1 + random.nextInt(10) : random.nextInt(11);
            shares.append("c").append(i).append(':').append(share).append(';');
        }
        int threshold = random.nextBoolean() ? 0 : 1 + random.nextInt(100);
        return ClassConfig.parse(shares.toString(), "c0-.*:c0", threshold, 1 + random.nextInt(1_000_000));
    }
}
