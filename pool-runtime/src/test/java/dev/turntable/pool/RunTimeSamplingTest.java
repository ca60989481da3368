package dev.turntable.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.strategy.WorkerView;
import org.junit.jupiter.api.Test;

/**
 * Sampled run-time measurement: while a worker's recent tasks are shorter than
 * {@link StatisticsCollector#SAMPLE_BELOW_NANOS}, only one task in
 * {@link StatisticsCollector#SAMPLE_RUN_EVERY} reads the clock, and the totals still stand for
 * every task; longer tasks are each timed. The collector is driven directly on the test thread,
 * as a worker drives it (start, run, finish), so no pool thread or scheduling is involved.
 */
class RunTimeSamplingTest {

    private static final int TASKS = 100_000;

    private final TurntableQueue queue = TurntableQueue.builder().build();
    private final StatisticsCollector collector = queue.statistics;
    private final WorkerSlot slot = new WorkerSlot(0, 64);

    RunTimeSamplingTest() {
        collector.adopt(slot);
    }

    /** Runs one task as a worker would (start, run, finish); returns whether its end read the clock. */
    private boolean runOne(long busyNanos) {
        collector.taskStarted(slot, 0L, 0L);
        busy(busyNanos);
        return collector.taskFinished(slot) != 0L;
    }

    /** The task's own work: a busy loop of known length. */
    private static void busy(long nanos) {
        long until = System.nanoTime() + nanos;
        while (System.nanoTime() < until) {
            Thread.onSpinWait();
        }
    }

    /** Under LEAST_BUSY (run time, no histograms), runs tiny tasks until the worker samples. */
    private void sampleTinyTasks() {
        queue.setStrategy("LEAST_BUSY");
        // a preempted tiny task ends sampling for a few dozen tasks: run until it is on again
        for (int i = 0; i < 10_000 || (!StatisticsCollector.sampling(slot) && i < 1_000_000); i++) {
            runOne(0);
        }
        assertTrue(StatisticsCollector.sampling(slot), "tiny tasks: sampled");
    }

    @Test
    void tinyTasksAreTimedInASampleYetTheTotalsStandForEveryTask() {
        queue.setStrategy("LEAST_BUSY");
        int timed = 0;
        for (int i = 0; i < TASKS; i++) {
            if (runOne(0)) {
                timed++;
            }
        }
        assertASampleStandsForEveryTask(TASKS, timed);
    }

    /** {@code tasks} tiny tasks ran, {@code timed} of them read the clock at their end. */
    private void assertASampleStandsForEveryTask(int tasks, int timed) {
        // 1 in 16 once sampling starts; what runs timed before it and after a preempted task adds a little
        assertTrue(timed < tasks / 4, "tasks of a few ns must not each read the clock; timed: " + timed);
        assertTrue(timed > tasks / 32, "but a sample of them must, or nothing is measured; timed: " + timed);
        // each timed task counts for the 16 it stands for: within 10% of every task (σ ≈ 1.3%)
        long represented = slot.runTimeSamples;
        assertTrue(Math.abs(represented - tasks) < tasks / 10,
                "run-time samples must stand for all " + tasks + " tasks, not only the timed ones: " + represented);
        assertTrue(slot.runTimeTotalNanos > 0, "the sample's run time is in the total");
    }

    @Test
    void tasksLongerThanTheThresholdAreEachTimed() {
        queue.setStrategy("LEAST_BUSY");
        int tasks = 300;
        long busyNanos = 3 * StatisticsCollector.SAMPLE_BELOW_NANOS / 2;
        int timed = 0;
        for (int i = 0; i < tasks; i++) {
            if (runOne(busyNanos)) {
                timed++;
            }
        }
        assertEquals(tasks, timed, "every task of 3 µs is timed");
        assertEquals(tasks, slot.runTimeSamples, "and counted once");
        assertTrue(slot.runTimeTotalNanos >= tasks * busyNanos, "each at its full length: " + slot.runTimeTotalNanos);
    }

    @Test
    void oneLongTaskAmongTinyOnesEndsSamplingAtOnce() {
        sampleTinyTasks();
        // a long task is timed only if drawn; once one is, sampling stops before the next task
        int untilTimed = 0;
        while (!runOne(StatisticsCollector.SAMPLE_BELOW_NANOS * 20)) {
            untilTimed++;
        }
        assertFalse(StatisticsCollector.sampling(slot), "one 40 µs task among tiny ones turns sampling off; "
                + untilTimed + " long tasks ran untimed first");
        // the average moved 1/8 of the way to 40 µs (≥ 5 µs): it takes 7 tiny tasks to fall below 2 µs
        for (int i = 0; i < 5; i++) {
            assertTrue(runOne(0), "the next tiny tasks are each timed until the average is short again");
        }
    }

    @Test
    void aSampledTaskThatRanLongIsChargedOnceNotForEveryTaskItStandsFor() {
        sampleTinyTasks();
        // the next task drawn for timing is held 1 ms, as a preempted no-op would be
        long msNanos = 1_000_000;
        while (true) {
            collector.taskStarted(slot, 0L, 0L);
            if (slot.timedTaskWeight == StatisticsCollector.SAMPLE_RUN_EVERY) {
                break;
            }
            collector.taskFinished(slot);
        }
        long before = slot.runTimeTotalNanos;
        long recentNanos = slot.recentRunNanos; // the tiny tasks' average, before this one moves it
        long startNanos = slot.runningSinceNanos;
        busy(msNanos);
        long ranAtLeastNanos = System.nanoTime() - startNanos; // its end is read after this
        collector.taskFinished(slot);
        long ranAtMostNanos = System.nanoTime() - startNanos; // preempted on a busy machine, more than 1 ms
        long charged = slot.runTimeTotalNanos - before;
        assertTrue(charged >= msNanos, "its own millisecond is in the total: " + charged);
        // and the 15 tasks it stands for: charged its own time alone, LEAST_BUSY would see this
        // worker's tiny tasks as free and the totals would miss 15 in 16 of them
        long least = ranAtLeastNanos + (StatisticsCollector.SAMPLE_RUN_EVERY - 1) * recentNanos;
        assertTrue(charged >= least, "its own time and the 15 tasks it stands for at the recent average ("
                + recentNanos + " ns), at least " + least + " ns, not " + charged + " ns");
        // Scaled by 16 it would be 16 ms or more, and LEAST_BUSY would keep tasks off this worker that long.
        long most = ranAtMostNanos + (StatisticsCollector.SAMPLE_RUN_EVERY - 1) * recentNanos;
        assertTrue(charged <= most, "its own time and the 15 tasks it stands for at the recent average ("
                + recentNanos + " ns), at most " + most + " ns, not " + charged + " ns");
    }

    @Test
    void latencyHistogramsTimeEveryTaskHoweverShort() {
        queue.setStrategy("LEAST_BUSY");
        queue.setLatencyHistograms(true);
        int timed = 0;
        for (int i = 0; i < 20_000; i++) {
            if (runOne(0)) {
                timed++;
            }
        }
        assertEquals(20_000, timed, "histograms count every task, so every task is timed");
    }

    /**
     * Without stealing, FAIR_SHARE's prediction is all that keeps short tasks from queueing behind
     * a long one: a long task among tiny ones, left untimed, would read as just started for its
     * whole run. So every task is timed there, however short, and switching stealing live
     * switches between the two.
     */
    @Test
    void fairShareWithoutStealingTimesEveryTaskAndKnowsEveryStart() {
        queue.setStrategy("FAIR_SHARE");
        queue.setTaskStealing(false);
        int tasks = 20_000;
        for (int i = 0; i < tasks; i++) {
            long before = System.nanoTime();
            collector.taskStarted(slot, 0L, 0L);
            assertTrue(slot.runningSinceNanos >= before, "each start read from the clock, none unknown or an older task's");
            assertTrue(collector.taskFinished(slot) != 0L, "and each task timed");
        }
        assertEquals(tasks, slot.runTimeSamples, "each counted once");
        queue.setTaskStealing(true);
        int timed = 0;
        for (int i = 0; i < tasks; i++) {
            collector.taskStarted(slot, 0L, 0L);
            if (collector.taskFinished(slot) != 0L) {
                timed++;
            }
        }
        assertTrue(timed < tasks / 4, "stealing on again: tiny tasks are sampled; timed: " + timed);
    }

    /**
     * A worker going idle forgets its last task's start: waking, it claims its next task (running
     * reads 1) a moment before it publishes that task's start, and FAIR_SHARE must not read the
     * old one meanwhile as a task running all through the idle spell.
     */
    @Test
    void aWorkerGoingIdleLeavesNoStartBehindForFairShare() {
        queue.setStrategy("FAIR_SHARE");
        queue.setTaskStealing(false); // every start known
        collector.taskStarted(slot, 0L, 0L);
        assertTrue(slot.runningSinceNanos != WorkerView.START_UNKNOWN, "a running task's start is known");
        collector.taskFinished(slot);
        collector.workerIdle(slot);
        assertEquals(WorkerView.START_UNKNOWN, slot.runningSinceNanos, "no start left for the next claim to show");
    }

    @Test
    void fairShareWithStealingSamplesTinyTasksAndNeverShowsAnOlderTasksStart() {
        queue.setStrategy("FAIR_SHARE"); // REMAINING_TIME: it ages each running task from its start
        assertTrue(queue.isTaskStealing(), "stealing is on by default");
        int tasks = 50_000;
        int timed = 0;
        int unknown = 0;
        for (int i = 0; i < tasks; i++) {
            long before = System.nanoTime();
            collector.taskStarted(slot, 0L, 0L);
            long started = slot.runningSinceNanos;
            if (started == WorkerView.START_UNKNOWN) {
                unknown++;
            } else {
                // an older task's start would make this tiny one look long-running to FAIR_SHARE
                assertTrue(started >= before, "a known start is this task's own, read as it started");
            }
            if (collector.taskFinished(slot) != 0L) {
                timed++;
            }
        }
        assertASampleStandsForEveryTask(tasks, timed); // as under the other strategies
        assertTrue(unknown > tasks / 2, "the untimed ones' starts read as unknown: " + unknown);
    }

    @Test
    void fairShareTimesEveryTaskLongerThanTheThresholdWithStealingOn() {
        queue.setStrategy("FAIR_SHARE");
        int tasks = 300;
        long busyNanos = 3 * StatisticsCollector.SAMPLE_BELOW_NANOS / 2;
        for (int i = 0; i < tasks; i++) {
            long before = System.nanoTime();
            collector.taskStarted(slot, 0L, 0L);
            assertTrue(slot.runningSinceNanos >= before, "each 3 µs task's start is known");
            busy(busyNanos);
            assertTrue(collector.taskFinished(slot) != 0L, "and each is timed");
        }
        assertEquals(tasks, slot.runTimeSamples, "each counted once");
    }

    @Test
    void theSampleIsOneTaskInSixteenWithoutLongGaps() {
        int draws = 16 * 10_000;
        int picked = 0;
        int gap = 0;
        int longestGap = 0;
        for (int i = 0; i < draws; i++) {
            if (StatisticsCollector.sampleThisTask(slot)) {
                picked++;
                gap = 0;
            } else {
                longestGap = Math.max(longestGap, ++gap);
            }
        }
        assertTrue(Math.abs(picked - 10_000) < 500, "1 in 16 of 160,000 (σ ≈ 97): " + picked);
        assertTrue(longestGap < 400, "no run of untimed tasks long enough to hide a change: " + longestGap);
    }
}
