package dev.turntable.pool;

import static dev.turntable.pool.TurntableQueueTest.awaitAttached;
import static dev.turntable.pool.testing.Waits.eventually;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.TurntableQueueTest.AlwaysLast;
import dev.turntable.pool.TurntableQueueTest.LoopWorkers;
import dev.turntable.pool.TurntableQueueTest.Runs;
import dev.turntable.pool.strategy.Measurement;
import dev.turntable.pool.strategy.Statistic;
import dev.turntable.pool.strategy.WorkerChoiceStrategy;
import dev.turntable.pool.strategy.WorkerView;
import dev.turntable.pool.testing.CountingThreadFactory;
import dev.turntable.pool.testing.PoolCleanup;
import dev.turntable.pool.testing.Waits;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Per-worker statistics and the settings behind them, as a user sees them in
 * {@link TurntableQueue#workers()} and the latency snapshots: collected only while the active
 * strategy (or the histograms) need them, switched live, reset, averaged or medianed; FAIR_SHARE
 * spreading a burst before any statistic exists; the offer-time stamps that wait-time statistics
 * put in the queue never escaping it (drainTo, remove, iterator, toArray); and bad settings
 * rejected without changing anything. Durations come from busy loops and are checked loosely
 * (a lower bound, or a wide margin), never against a deadline.
 */
class TurntableQueueStatisticsTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();

    private TurntableQueue start(TurntableExecutor.Builder builder, int workers) {
        TurntableExecutor pool = cleanup.track(builder.workers(workers).threadFactory(new CountingThreadFactory("stats")).build());
        awaitAttached(pool.getTurntableQueue(), workers);
        return pool.getTurntableQueue();
    }

    /** Runs {@code tasks[from, to)} and waits until every worker has also done its bookkeeping for them. */
    private static void run(TurntableQueue queue, List<Runs.Task> tasks, int from, int to) {
        for (int i = from; i < to; i++) {
            queue.offer(tasks.get(i));
        }
        // a worker records a task's times as it comes back for the next one, then counts it completed
        eventually("tasks up to " + to + " completed", () -> completed(queue) == to);
    }

    private static long completed(TurntableQueue queue) {
        return queue.workers().stream().mapToLong(WorkerInfo::completed).sum();
    }

    private static WorkerInfo only(TurntableQueue queue) {
        return queue.workers().get(0);
    }

    // ---------------------------------------------------------------- what is collected, live

    @Test
    void timesAreCollectedOnlyWhileTheActiveStrategyNeedsThem() {
        TurntableQueue queue = start(TurntableExecutor.builder().strategy("LEAST_USED"), 1);
        Runs runs = new Runs(30);
        List<Runs.Task> tasks = new ArrayList<>();
        for (int i = 0; i < runs.size(); i++) {
            tasks.add(runs.busy(i, MS));
        }
        run(queue, tasks, 0, 10);
        WorkerInfo w = only(queue);
        assertEquals(List.of(0L, 0L, 0L, 0L), times(w), () -> "LEAST_USED measures nothing: " + w);

        queue.setStrategy("FAIR_SHARE");
        run(queue, tasks, 10, 20);
        WorkerInfo fair = only(queue);
        assertTrue(fair.runTimeTotalNanos() >= 10 * MS, () -> "ten tasks of at least 1 ms each: " + fair);
        assertTrue(fair.taskTimeEstimateNanos() >= MS, () -> "their average: " + fair);
        assertEquals(0, fair.waitTimeTotalNanos(), "FAIR_SHARE on run time does not stamp tasks");
        assertEquals(0, fair.cpuTimeNanos(), "nor read the CPU clock");

        queue.setStrategy("LEAST_USED");
        run(queue, tasks, 20, 30);
        assertEquals(List.of(0L, 0L, 0L, 0L), times(only(queue)), "switched back: not collected, so read as 0");
        queue.setStrategy("FAIR_SHARE");
        assertEquals(List.of(0L, 0L, 0L, 0L), times(only(queue)),
                "collected again: from zero, as the ten tasks in between went unmeasured");
        runs.assertEachRanOnce();
    }

    private static List<Long> times(WorkerInfo w) {
        return List.of(w.runTimeTotalNanos(), w.waitTimeTotalNanos(), w.cpuTimeNanos(), w.taskTimeEstimateNanos());
    }

    @Test
    void aRegisteredStrategyGetsTheStatisticsItDeclaresAndNoOthers() {
        TurntableQueue queue = TurntableQueue.builder()
                .registerStrategy("RUN_TIME_READER", () -> new Declaring("RUN_TIME_READER", Set.of(Statistic.RUN_TIME)))
                .strategy("RUN_TIME_READER")
                .build();
        ThreadPoolExecutor pool = cleanup.track(new ThreadPoolExecutor(1, 1, 0, MILLISECONDS, queue,
                new CountingThreadFactory("declaring")));
        pool.prestartAllCoreThreads();
        awaitAttached(queue, 1);
        Runs runs = new Runs(3);
        run(queue, List.of(runs.busy(0, MS), runs.busy(1, MS), runs.busy(2, MS)), 0, 3);
        WorkerInfo w = only(queue);
        assertTrue(w.runTimeTotalNanos() >= 3 * MS, w::toString);
        assertEquals(List.of(0L, 0L, 0L), List.of(w.waitTimeTotalNanos(), w.cpuTimeNanos(), w.taskTimeEstimateNanos()),
                () -> "only run time was declared: " + w);
        runs.assertEachRanOnce();
    }

    @Test
    void resetStatisticsClearsWhatWorkersReport() {
        TurntableQueue queue = start(TurntableExecutor.builder().strategy("FAIR_SHARE"), 2);
        Runs runs = new Runs(10);
        List<Runs.Task> tasks = new ArrayList<>();
        for (int i = 0; i < runs.size(); i++) {
            tasks.add(runs.busy(i, MS));
        }
        run(queue, tasks, 0, 10);
        runs.assertEachRanOnce();
        assertTrue(queue.workers().stream().mapToLong(WorkerInfo::runTimeTotalNanos).sum() >= 10 * MS);

        queue.resetStatistics();
        // the workers are idle now; what a monitoring user reads must not be the pre-reset figures
        eventually("every worker reports cleared times", () -> queue.workers().stream()
                .allMatch(w -> w.runTimeTotalNanos() == 0 && w.taskTimeEstimateNanos() == 0));
        assertEquals(10, completed(queue), "counts are kept");
    }

    /**
     * What LEAST_BUSY and LEAST_CPU divide a worker's totals by: the tasks those totals cover.
     * After a reset that is the tasks since, not the thread's whole life, which made a long-lived
     * worker's tasks look nearly free and sent it whole bursts.
     */
    @Test
    void afterResetStatisticsTheHistoryCoversOnlyTheTasksSince() {
        TurntableQueue queue = start(TurntableExecutor.builder().strategy("LEAST_BUSY"), 1);
        Runs runs = new Runs(12);
        List<Runs.Task> tasks = new ArrayList<>();
        for (int i = 0; i < runs.size(); i++) {
            tasks.add(runs.busy(i, MS));
        }
        run(queue, tasks, 0, 10);
        SlotView submitters = new SlotView(queue, false);
        assertEquals(10, submitters.historyTasks(0));

        queue.resetStatistics();
        run(queue, tasks, 10, 12);
        // the worker records a task's times as it comes back for the next: wait for both
        eventually("both tasks since the reset in the totals", () -> submitters.historyTasks(0) == 2);
        assertEquals(12, submitters.completed(0), "counts are kept");
        assertTrue(submitters.runTimeTotalNanos(0) < 10 * MS, () -> "only the two tasks since: " + only(queue));
        runs.assertEachRanOnce();
    }

    /**
     * A monitoring user reads 0 for a time the active strategy does not collect, as WorkerInfo
     * says: after a switch from FAIR_SHARE to ROUND_ROBIN the run-time figures stopped moving
     * but still read as if current. Switched back, they start again from the tasks since.
     */
    @Test
    void timesNotCollectedNowReadZeroInWorkerInfo() {
        TurntableQueue queue = start(TurntableExecutor.builder().strategy("FAIR_SHARE"), 1);
        Runs runs = new Runs(4);
        List<Runs.Task> tasks = new ArrayList<>();
        for (int i = 0; i < runs.size(); i++) {
            tasks.add(runs.busy(i, MS));
        }
        run(queue, tasks, 0, 2);
        assertTrue(only(queue).runTimeTotalNanos() >= 2 * MS && only(queue).taskTimeEstimateNanos() > 0, () -> only(queue).toString());

        queue.setStrategy("ROUND_ROBIN");
        run(queue, tasks, 2, 4);
        WorkerInfo w = only(queue);
        assertEquals(0, w.runTimeTotalNanos(), w::toString);
        assertEquals(0, w.runTimeSamples(), w::toString);
        assertEquals(0, w.taskTimeEstimateNanos(), w::toString);
        assertEquals(4, w.completed(), "counts go on");

        queue.setStrategy("FAIR_SHARE");
        assertEquals(0, only(queue).runTimeTotalNanos(), () -> "the tasks in between went unmeasured: " + only(queue));
        runs.assertEachRanOnce();
    }

    /**
     * The same after a live switch that starts collecting run and wait time: LEAST_USED
     * measured nothing for its 10 tasks, so LEAST_BUSY's totals cover only the 2 after the
     * switch. Counted over all 12, each task looked a sixth of its cost (a reviewer's 1,000 tasks
     * before the switch: 250 times too cheap).
     */
    @Test
    void afterASwitchThatStartsCollectingTheHistoryCoversOnlyTheTasksSince() {
        TurntableQueue queue = start(TurntableExecutor.builder().strategy("LEAST_USED"), 1);
        Runs runs = new Runs(12);
        List<Runs.Task> tasks = new ArrayList<>();
        for (int i = 0; i < runs.size(); i++) {
            tasks.add(runs.busy(i, MS));
        }
        run(queue, tasks, 0, 10);
        queue.setStrategy("LEAST_BUSY");
        run(queue, tasks, 10, 12);
        SlotView submitters = new SlotView(queue, false);
        eventually("both tasks since the switch in the totals", () -> submitters.historyTasks(0) == 2);
        assertTrue(submitters.runTimeTotalNanos(0) >= 2 * MS, () -> "the two tasks' run time: " + only(queue));
        runs.assertEachRanOnce();
    }

    @Test
    void afterResetStatisticsTheEstimateForgetsEarlierTasks() {
        TurntableQueue queue = start(TurntableExecutor.builder().strategy("FAIR_SHARE"), 1);
        Runs runs = new Runs(2);
        List<Runs.Task> tasks = List.of(runs.busy(0, 200 * MS), runs.busy(1, MS));
        run(queue, tasks, 0, 1);
        assertTrue(only(queue).taskTimeEstimateNanos() >= 200 * MS, () -> only(queue).toString());

        queue.resetStatistics();
        run(queue, tasks, 1, 2);
        WorkerInfo w = only(queue);
        // had the 200 ms task been kept: an estimate of at least 100.5 ms and a total of at least 201 ms
        assertTrue(w.taskTimeEstimateNanos() < 100 * MS, () -> "only the 1 ms task counts: " + w);
        assertTrue(w.runTimeTotalNanos() < 100 * MS, () -> "only the 1 ms task counts: " + w);
        assertEquals(2, w.completed(), "counts are kept");
        runs.assertEachRanOnce();
    }

    @Test
    void fairShareSeesHowLongARunningTaskHasLeftFromTheWorkersOwnHistory() {
        TurntableQueue queue = start(TurntableExecutor.builder().strategy("FAIR_SHARE"), 1);
        assertTrue(queue.collectedStatistics().contains(Statistic.REMAINING_TIME), queue.collectedStatistics()::toString);
        Runs runs = new Runs(7);
        // Real busy loops, timed by the engine's clock: the margins (a short task would have to be
        // preempted for 100 ms to look long, the long one may overrun by up to 100 ms) keep this
        // true on a loaded machine, where 20 ms thresholds once failed.
        List<Runs.Task> tasks = shortTasksAndOneLong(runs, 2, 150 * MS); // 1, 1, 150, 1, 1, 1, 1 ms
        run(queue, tasks, 0, 6);
        SlotView submitters = new SlotView(queue, false);
        long pastTheShortOnes = submitters.remainingTimeNanos(0, 100 * MS);
        // only the 150 ms task is longer than 100 ms: about 50 ms left (the busy loop may overrun)
        assertTrue(pastTheShortOnes >= 50 * MS - MS && pastTheShortOnes < 150 * MS,
                () -> "100 ms into a task, with one earlier task of 150 ms: " + pastTheShortOnes + " ns left");
        assertEquals(-1, submitters.remainingTimeNanos(0, 10_000 * MS), "longer than every sample: unknown");

        queue.resetStatistics();
        assertEquals(-1, submitters.remainingTimeNanos(0, 100 * MS), "reset: the earlier tasks no longer count");
        run(queue, tasks, 6, 7);
        assertEquals(-1, submitters.remainingTimeNanos(0, 100 * MS), "only a 1 ms task since the reset");

        queue.setStrategy("LEAST_USED");
        assertFalse(queue.collectedStatistics().contains(Statistic.REMAINING_TIME), queue.collectedStatistics()::toString);
        runs.assertEachRanOnce();
    }

    @Test
    void switchedToFairShareLiveTheRemainingTimesUseTheHistoryAlreadyMeasured() {
        // WEIGHTED_ROUND_ROBIN keeps the estimate's window but no remaining-time table
        TurntableQueue queue = start(TurntableExecutor.builder().strategy("WEIGHTED_ROUND_ROBIN"), 1);
        Runs runs = new Runs(21);
        // Margins as in the test above: robust to preemption on a loaded machine.
        List<Runs.Task> tasks = shortTasksAndOneLong(runs, 5, 150 * MS); // 20 tasks of 1 ms, one of 150 ms
        run(queue, tasks, 0, 20);
        queue.setStrategy("FAIR_SHARE");
        run(queue, tasks, 20, 21); // one task under FAIR_SHARE: the table is built from all 21
        long left = new SlotView(queue, false).remainingTimeNanos(0, 100 * MS);
        assertTrue(left >= 50 * MS - MS && left < 150 * MS,
                () -> "100 ms into a task, with the 150 ms one measured before the switch: " + left + " ns left");
        runs.assertEachRanOnce();
    }

    /** One busy task per run of {@code runs}: 1 ms each, but {@code longNanos} for the one at {@code longAt}. */
    private static List<Runs.Task> shortTasksAndOneLong(Runs runs, int longAt, long longNanos) {
        List<Runs.Task> tasks = new ArrayList<>();
        for (int i = 0; i < runs.size(); i++) {
            tasks.add(runs.busy(i, i == longAt ? longNanos : MS));
        }
        return tasks;
    }

    @Test
    void aMedianEstimateIgnoresARareLongTaskWhereTheAverageDoesNot() {
        TurntableQueue queue = start(TurntableExecutor.builder().strategy("FAIR_SHARE"), 1);
        Runs runs = new Runs(9);
        List<Runs.Task> tasks = new ArrayList<>();
        for (int i = 0; i < runs.size(); i++) {
            tasks.add(runs.busy(i, i % 3 == 2 ? 100 * MS : MS)); // 1 ms, 1 ms, 100 ms, three times
        }
        run(queue, tasks, 0, 3);
        long average = only(queue).taskTimeEstimateNanos();
        assertTrue(average > 20 * MS, () -> "average of 1, 1 and 100 ms is about 34 ms: " + only(queue));

        queue.setMedian(true);
        assertTrue(queue.isMedian());
        // the same history twice: one short task slowed by the machine cannot move the median
        run(queue, tasks, 3, 9);
        long median = only(queue).taskTimeEstimateNanos();
        assertTrue(median < 10 * MS, () -> "median of 1, 1, 100, 1, 1, 100 ms is about 1 ms: " + only(queue));
        runs.assertEachRanOnce();
    }

    @Test
    void cpuTimeMeasurementCollectsTheTasksCpuTime() {
        TurntableQueue queue = start(TurntableExecutor.builder().strategy("FAIR_SHARE"), 1);
        Runs runs = new Runs(6);
        List<Runs.Task> tasks = new ArrayList<>();
        for (int i = 0; i < runs.size(); i++) {
            tasks.add(runs.burnCpu(i, 5 * MS));
        }
        run(queue, tasks, 0, 3);
        assertEquals(0, only(queue).cpuTimeNanos(), "measuring run time reads no CPU clock");

        queue.setMeasurement(Measurement.CPU_TIME);
        assertEquals(Measurement.CPU_TIME, queue.getMeasurement());
        run(queue, tasks, 3, 6);
        WorkerInfo w = only(queue);
        assertTrue(w.cpuTimeNanos() >= 3 * 5 * MS, () -> "three tasks of at least 5 ms CPU: " + w);
        assertTrue(w.taskTimeEstimateNanos() >= 5 * MS, () -> "estimated from CPU samples: " + w);
        runs.assertEachRanOnce();
    }

    @Test
    void waitTimeMeasurementCollectsHowLongTasksWaited() {
        TurntableQueue queue = start(TurntableExecutor.builder().strategy("FAIR_SHARE"), 1);
        CountDownLatch gate = cleanup.latch(1);
        Runs runs = new Runs(1 + 8 + 200);
        List<Runs.Task> tasks = new ArrayList<>();
        for (int i = 0; i < runs.size(); i++) {
            tasks.add(i == 9 ? runs.gated(9, gate) : runs.task(i));
        }
        run(queue, tasks, 0, 9);
        assertEquals(0, only(queue).waitTimeTotalNanos(), "measuring run time stamps no task");

        queue.setMeasurement(Measurement.WAIT_TIME);
        queue.offer(tasks.get(9));
        eventually("worker held", () -> runs.started() == 10);
        tasks.subList(10, runs.size()).forEach(queue::offer); // they wait; one in eight is sampled
        gate.countDown();
        eventually("all completed", () -> completed(queue) == runs.size());
        WorkerInfo w = only(queue);
        assertTrue(w.waitTimeTotalNanos() > 0 && w.taskTimeEstimateNanos() > 0, w::toString);
        runs.assertEachRanOnce();
    }

    private static List<Runs.Task> tasksOf(Runs runs) {
        List<Runs.Task> tasks = new ArrayList<>();
        for (int i = 0; i < runs.size(); i++) {
            tasks.add(runs.task(i));
        }
        return tasks;
    }

    @Test
    void latencyHistogramsCountEveryTaskWhateverTheStrategy() {
        TurntableQueue queue = start(TurntableExecutor.builder().strategy("LEAST_USED"), 2);
        Runs runs = new Runs(300);
        List<Runs.Task> tasks = tasksOf(runs);
        queue.setLatencyHistograms(true);
        assertTrue(queue.isLatencyHistograms());
        run(queue, tasks, 0, 200);
        // workers publish their samples as they go idle: add up snapshots until every task is in one
        long[] runCount = {0};
        eventually("every run time in a snapshot", () -> (runCount[0] += queue.runTimeSnapshot().count()) >= 200);
        assertEquals(200, runCount[0], "each task's run time counted once");
        long[] waitCount = {0};
        eventually("wait times sampled", () -> (waitCount[0] += queue.waitTimeSnapshot().count()) > 0);
        assertTrue(waitCount[0] <= 200, "at most one wait sample per task: " + waitCount[0]);
        assertTrue(queue.workers().stream().mapToLong(WorkerInfo::runTimeTotalNanos).sum() > 0,
                "histograms need run times, whatever the strategy");

        queue.setLatencyHistograms(false);
        queue.runTimeSnapshot();
        queue.waitTimeSnapshot();
        run(queue, tasks, 200, 300);
        assertEquals(0, queue.runTimeSnapshot().count(), "switched off: nothing recorded");
        assertEquals(0, queue.waitTimeSnapshot().count());
        runs.assertEachRanOnce();
    }

    /**
     * A worker that leaves straight after a task (here: the task threw, which ends a
     * ThreadPoolExecutor worker) never goes idle, where workers publish their buffered samples.
     * Its samples used to wait in its slot until another thread took that slot: after shutdown,
     * never. Every task the pool ran is in a snapshot once it has terminated.
     */
    @Test
    void theSamplesOfAWorkerThatLeavesWithoutGoingIdleReachTheSnapshots() throws InterruptedException {
        CountingThreadFactory threads = new CountingThreadFactory("leaving");
        TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(2).latencyHistograms(true)
                .threadFactory(threads).build());
        TurntableQueue queue = pool.getTurntableQueue();
        CountDownLatch go = new CountDownLatch(1);
        int tasks = 40;
        for (int i = 0; i < tasks; i++) {
            boolean last = i >= tasks - 2;
            pool.execute(() -> {
                Waits.awaitLatch(go, "test releases the tasks");
                if (last) {
                    throw new IllegalStateException("the last tasks end their workers");
                }
            });
        }
        pool.shutdown();
        go.countDown();
        assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS), "terminated");
        assertEquals(tasks, pool.getCompletedTaskCount());
        assertEquals(tasks, queue.runTimeSnapshot().count(), "every task's run time, the leaving workers' last ones too");
        assertTrue(threads.uncaught().size() >= 1, "a worker did end by its task's exception");
    }

    @Test
    void histogramsSwitchedOnLateCountTheTasksOfWorkersThatAttachedBefore() {
        TurntableQueue queue = start(TurntableExecutor.builder().strategy("ROUND_ROBIN"), 6);
        Runs runs = new Runs(120);
        List<Runs.Task> tasks = tasksOf(runs);
        run(queue, tasks, 0, 60);
        assertEquals(0, queue.runTimeSnapshot().count(), "off: nothing recorded");
        queue.setLatencyHistograms(true);
        run(queue, tasks, 60, 120);
        long[] runCount = {0};
        eventually("every run time in a snapshot", () -> (runCount[0] += queue.runTimeSnapshot().count()) >= 60);
        assertEquals(60, runCount[0], "each task run by any of the six workers counted once");
        runs.assertEachRanOnce();
    }

    /**
     * A pool nobody has switched the histograms on for must not pay for them: the agent builds
     * one for every pool of the application. They used to be made with the queue, about 2.4 MB
     * a pair for four workers, and an application with 20 pools of 8 held 97 MB more under the agent.
     */
    @Test
    void aQueueWithoutHistogramsAllocatesNoneOfTheirMemory() {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        org.junit.jupiter.api.Assumptions.assumeTrue(threads.isThreadAllocatedMemorySupported());
        threads.setThreadAllocatedMemoryEnabled(true);
        TurntableQueue.builder().unbounded().expectedWorkers(8).build(); // classes loaded, statics made
        long before = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
        TurntableQueue queue = TurntableQueue.builder().unbounded().expectedWorkers(8).build();
        long allocated = threads.getThreadAllocatedBytes(Thread.currentThread().getId()) - before;
        assertTrue(allocated < 256 * 1024, "building a queue allocated " + allocated + " bytes");

        long beforeOn = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
        queue.setLatencyHistograms(true);
        long histograms = threads.getThreadAllocatedBytes(Thread.currentThread().getId()) - beforeOn;
        assertTrue(histograms > 1024 * 1024, "switched on, the histograms are made: " + histograms + " bytes");
    }

    // ---------------------------------------------------------------- a burst before any history

    @ParameterizedTest(name = "stealing {0}")
    @ValueSource(booleans = {false, true})
    void fairShareSpreadsABurstOnIdleWorkersWithoutHistory(boolean stealing) {
        TurntableQueue queue = start(TurntableExecutor.builder().strategy("FAIR_SHARE").taskStealing(stealing), 4);
        CountDownLatch gate = cleanup.latch(1);
        Runs runs = new Runs(40);
        for (int i = 0; i < runs.size(); i++) {
            queue.offer(runs.gated(i, gate));
        }
        eventually("all placed, every worker with a task running", () -> {
            List<WorkerInfo> ws = queue.workers();
            return ws.stream().mapToLong(WorkerInfo::lifetimeTasks).sum() == 40
                    && ws.stream().allMatch(w -> w.lifetimeTasks() == 0 || w.running() == 1);
        });
        List<WorkerInfo> ws = queue.workers();
        long most = ws.stream().mapToLong(WorkerInfo::lifetimeTasks).max().orElseThrow();
        assertTrue(most <= 20, () -> "no worker gets more than half of the burst: " + ws);

        gate.countDown();
        runs.awaitFinished(40, "the burst");
        runs.assertEachRanOnce();
    }

    /**
     * Without history, four long tasks on four idle workers run at once, one each: a worker
     * busy with a task of unknown length is not chosen while another is idle. (It was: busy and
     * idle tied, worker 0 took the second task and only two of the four ran.)
     */
    @Test
    void fairShareWithoutHistoryRunsOneTaskPerIdleWorker() {
        TurntableQueue queue = start(TurntableExecutor.builder().strategy("FAIR_SHARE").taskStealing(false), 4);
        CountDownLatch gate = cleanup.latch(1);
        Runs runs = new Runs(4);
        for (int i = 0; i < runs.size(); i++) {
            queue.offer(runs.gated(i, gate));
            int placed = i + 1;
            eventually("task " + i + " running", () -> runs.started() == placed); // each starts before the next comes
        }
        List<WorkerInfo> ws = queue.workers();
        assertTrue(ws.stream().allMatch(w -> w.lifetimeTasks() == 1 && w.running() == 1), ws::toString);
        gate.countDown();
        runs.awaitFinished(4, "the four tasks");
        runs.assertEachRanOnce();
    }

    // ---------------------------------------------------------------- offer-time stamps never escape

    static Stream<Arguments> queueConfigs() {
        UnaryOperator<TurntableQueueBuilder> plain = b -> b;
        UnaryOperator<TurntableQueueBuilder> waitTime = b -> b.strategy("FAIR_SHARE").measurement(Measurement.WAIT_TIME);
        UnaryOperator<TurntableQueueBuilder> histograms = b -> b.latencyHistograms(true);
        return Stream.of(
                Arguments.of(Named.of("LEAST_USED, no statistics", plain), false),
                Arguments.of(Named.of("FAIR_SHARE measuring WAIT_TIME", waitTime), true),
                Arguments.of(Named.of("latency histograms", histograms), true));
    }

    /**
     * The tasks hidden behind offer-time wrappers in a worker's own queue (white box: the
     * precondition that the test really has wrappers to see through).
     */
    private static List<Runnable> wrappedIn(WorkerSlot slot) {
        List<Runnable> out = new ArrayList<>();
        for (Runnable e : slot.queue) {
            if (e instanceof TimedTask) {
                out.add(((TimedTask) e).task);
            }
        }
        return out;
    }

    // Wait time is sampled from one offer in eight: with 128 tasks in a worker's own queue the
    // chance that none of them is wrapped is (7/8)^128, about 4e-8.

    @ParameterizedTest(name = "{0}")
    @MethodSource("queueConfigs")
    void drainToHandsBackTheApplicationsOwnTasks(UnaryOperator<TurntableQueueBuilder> config, boolean stamped) {
        TurntableQueue queue = config.apply(TurntableQueue.builder().workerQueueCapacity(128)).build();
        Runs runs = new Runs(1 + 40 + 200);
        List<Runs.Task> tasks = new ArrayList<>();
        for (int i = 0; i < runs.size(); i++) {
            tasks.add(i == 0 ? runs.gated(0, cleanup.latch(1)) : runs.task(i));
        }
        // no worker yet: they wait in the shared queue, in order
        List<Runs.Task> early = tasks.subList(1, 41);
        early.forEach(queue::offer);
        List<Runnable> drained = new ArrayList<>();
        assertEquals(40, queue.drainTo(drained));
        assertEquals(early, drained);

        List<Runs.Task> late = tasks.subList(41, 241);
        try (LoopWorkers worker = new LoopWorkers(queue, 1, "drain")) {
            awaitAttached(queue, worker.threads.size());
            queue.offer(tasks.get(0));
            eventually("worker busy", () -> runs.started() == 1);
            late.forEach(queue::offer); // 128 in the worker's own queue, 72 overflow
            assertEquals(128, queue.workers().get(0).queued());
            assertEquals(200, queue.size());
            assertEquals(stamped, !wrappedIn(queue.slots[0]).isEmpty(), "offer-time wrappers inside the queue");

            List<Runnable> rest = new ArrayList<>();
            assertEquals(3, queue.drainTo(rest, 3));
            assertEquals(197, queue.drainTo(rest));
            assertEquals(200, rest.size());
            assertEquals(Set.copyOf(late), Set.copyOf(rest), "the very objects offered");
            assertTrue(queue.isEmpty());
            drained.addAll(rest);
        }
        drained.forEach(Runnable::run); // the application runs what it drained, as after shutdownNow
        runs.assertEachRanOnce();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("queueConfigs")
    void removeContainsIteratorAndToArraySeeTheApplicationsOwnTasks(UnaryOperator<TurntableQueueBuilder> config,
                                                                     boolean stamped) {
        TurntableQueue queue = config.apply(TurntableQueue.builder().workerQueueCapacity(128)).build();
        CountDownLatch gate = cleanup.latch(1);
        Runs runs = new Runs(1 + 200);
        List<Runs.Task> tasks = new ArrayList<>();
        for (int i = 0; i < runs.size(); i++) {
            tasks.add(i == 0 ? runs.gated(0, gate) : runs.task(i));
        }
        try (LoopWorkers worker = new LoopWorkers(queue, 1, "view")) {
            awaitAttached(queue, worker.threads.size());
            queue.offer(tasks.get(0));
            eventually("worker busy", () -> runs.started() == 1);
            tasks.subList(1, 201).forEach(queue::offer); // 1..128 in the worker's own queue, 129..200 shared
            List<Runnable> wrapped = wrappedIn(queue.slots[0]);
            assertEquals(stamped, !wrapped.isEmpty(), "offer-time wrappers inside the queue");
            Set<Runnable> waiting = Set.copyOf(tasks.subList(1, 201));

            assertEquals(waiting, Set.of(queue.toArray()));
            assertEquals(waiting, Set.of(queue.toArray(new Runnable[0])));
            List<Runnable> iterated = new ArrayList<>();
            queue.iterator().forEachRemaining(iterated::add);
            assertEquals(200, iterated.size());
            assertEquals(waiting, Set.copyOf(iterated));
            for (Runnable t : waiting) {
                assertTrue(queue.contains(t), t + " is waiting");
            }
            assertFalse(queue.contains(tasks.get(0)), "the running task is not waiting");
            assertTrue(waiting.contains(queue.peek()));

            // a wrapped one if there is any, from the worker's own queue; one from the shared queue; one by the iterator
            Runnable fromOwn = stamped ? wrapped.get(0) : tasks.get(2);
            Runnable fromShared = tasks.get(200);
            Runnable byIterator = stamped && wrapped.size() > 1 ? wrapped.get(1) : tasks.get(fromOwn == tasks.get(4) ? 5 : 4);
            assertTrue(queue.remove(fromOwn), "from the worker's own queue");
            assertFalse(queue.remove(fromOwn), "only once");
            assertTrue(queue.remove(fromShared), "from the shared queue");
            for (Iterator<Runnable> it = queue.iterator(); it.hasNext(); ) {
                if (it.next() == byIterator) {
                    it.remove();
                }
            }
            Set<Runnable> removed = Set.of(fromOwn, fromShared, byIterator);
            assertEquals(197, queue.size());
            for (Runnable t : removed) {
                assertFalse(queue.contains(t), t + " removed");
            }
            Runnable polled = queue.poll();
            assertTrue(waiting.contains(polled) && !removed.contains(polled),
                    () -> "a foreign poll returns one of the waiting tasks themselves: " + polled);
            polled.run();

            gate.countDown();
            runs.awaitFinished(1 + 197, "the tasks still waiting");
            for (Runs.Task t : tasks) {
                assertEquals(removed.contains(t) ? 0 : 1, runs.runs(t.index), "runs of " + t);
            }
            assertTrue(queue.isEmpty());
        }
    }

    // ---------------------------------------------------------------- bad settings

    @Test
    void builderRejectsBadValuesNamingThemAndKeepsWhatWasSet() {
        assertRejected("0", () -> TurntableQueue.builder().bounded(0));
        assertRejected("-7", () -> TurntableQueue.builder().bounded(-7));
        assertRejected("3", () -> TurntableQueue.builder().workerQueueCapacity(3));
        assertRejected("131072", () -> TurntableQueue.builder().workerQueueCapacity(131072));
        assertRejected("0", () -> TurntableQueue.builder().weightsMillis(0));
        assertRejected("-5", () -> TurntableQueue.builder().weightsMillis(10, -5));
        assertRejected("60001", () -> TurntableQueue.builder().weightsMillis(60001));
        assertRejected("NOPE", () -> TurntableQueue.builder().strategy("NOPE").build()); // looked up by build()
        assertRejected("0", () -> TurntableQueue.builder().windowSize(0));
        assertRejected("4097", () -> TurntableQueue.builder().windowSize(4097));
        assertRejected("0", () -> TurntableQueue.builder().expectedWorkers(0));
        assertRejected("lower case", () -> TurntableQueue.builder().registerStrategy("lower case", AlwaysLast::new));

        TurntableQueueBuilder b = TurntableQueue.builder().bounded(5).strategy("ROUND_ROBIN").weightsMillis(4, 6);
        assertThrows(IllegalArgumentException.class, () -> b.bounded(0));
        assertThrows(IllegalArgumentException.class, () -> b.strategy(null));
        assertThrows(IllegalArgumentException.class, () -> b.weightsMillis(3, -1));
        TurntableQueue queue = b.build();
        assertEquals(5, queue.remainingCapacity());
        assertEquals("ROUND_ROBIN", queue.getStrategy());
        assertArrayEquals(new long[] {4, 6}, queue.getWorkerWeightsMillis());
    }

    @Test
    void anUnknownStrategyNameChangesNothingNotEvenTheCurrentStrategysState() {
        TurntableQueue queue = start(TurntableExecutor.builder().strategy("ROUND_ROBIN").taskStealing(false), 2);
        CountDownLatch gate = cleanup.latch(1);
        Runs runs = new Runs(3);
        queue.offer(runs.gated(0, gate));
        eventually("first task running", () -> runs.started() == 1);

        assertRejected("NOPE", () -> queue.setStrategy("NOPE"));
        assertRejected("null", () -> queue.setStrategy(null));
        assertEquals("ROUND_ROBIN", queue.getStrategy());
        queue.offer(runs.gated(1, gate)); // the same round robin goes on: worker 1 is next
        eventually("second task running", () -> runs.started() == 2);
        assertEquals(queue.workers().get(1).threadName(), runs.runnerName(1));

        queue.setStrategy("round-robin"); // a real switch starts a fresh round robin at worker 0
        assertEquals("ROUND_ROBIN", queue.getStrategy());
        queue.offer(runs.gated(2, gate));
        assertEquals(1, queue.workers().get(0).queued(), () -> queue.workers().toString());
        gate.countDown();
        runs.awaitFinished(3, "all tasks");
        runs.assertEachRanOnce();

        // A factory making a strategy of another name is refused when registered, not when chosen.
        assertRejected("LIAR", () -> TurntableQueue.builder().registerStrategy("LIAR", AlwaysLast::new));
    }

    @Test
    void badWorkerWeightsAreRejectedAndTheWeightsStay() {
        TurntableQueue queue = TurntableQueue.builder().weightsMillis(5, 7).build();
        assertArrayEquals(new long[] {5, 7}, queue.getWorkerWeightsMillis());
        assertRejected("-1", () -> queue.setWorkerWeightsMillis(3, -1));
        assertRejected("0", () -> queue.setWorkerWeightsMillis(0, 2));
        assertRejected("60001", () -> queue.setWorkerWeightsMillis(60001));
        assertArrayEquals(new long[] {5, 7}, queue.getWorkerWeightsMillis());
        queue.setWorkerWeightsMillis(3, 4);
        assertArrayEquals(new long[] {3, 4}, queue.getWorkerWeightsMillis());
    }

    private static void assertRejected(String value, Executable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        String message = String.valueOf(e.getMessage());
        boolean named = Pattern.compile("(?<![\\w-])" + Pattern.quote(value) + "(?!\\w)").matcher(message).find();
        assertTrue(named, () -> "message names the bad value " + value + ": " + message);
    }

    /** Always the lowest available worker; declares what it is given (StrategyRegistrationTest uses it too). */
    static final class Declaring implements WorkerChoiceStrategy {
        private final String name;
        private final Set<Statistic> required;

        Declaring(String name, Set<Statistic> required) {
            this.name = name;
            this.required = required;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public Set<Statistic> requiredStatistics() {
            return required;
        }

        @Override
        public int choose(WorkerView workers, long nowNanos) {
            for (int i = 0; i < workers.count(); i++) {
                if (workers.isAvailable(i)) {
                    return i;
                }
            }
            return NONE;
        }
    }
}
