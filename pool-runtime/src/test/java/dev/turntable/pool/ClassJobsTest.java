package dev.turntable.pool;

import static dev.turntable.pool.testing.Waits.awaitIgnoringInterrupts;
import static dev.turntable.pool.testing.Waits.awaitLatch;
import static dev.turntable.pool.testing.Waits.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.TurntableExecutorClassesTest.Board;
import dev.turntable.pool.TurntableExecutorClassesTest.RestartableGated;
import dev.turntable.pool.strategy.Statistic;
import dev.turntable.pool.strategy.WorkerChoiceStrategy;
import dev.turntable.pool.strategy.WorkerView;
import dev.turntable.pool.testing.CountingThreadFactory;
import dev.turntable.pool.testing.ManualTicker;
import dev.turntable.pool.testing.PoolCleanup;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The tasks waiting in their classes' jobs, as a user sees them: one submitter's tasks come back
 * from the collection view, {@code drainTo} and {@code shutdownNow} in the order it submitted
 * them; {@code remove} takes exactly one out; the per-class counts list the classes in planner
 * order, with unmatched requestors in the fallback class; the requestor may be the task's class
 * or the pool's name; and a task rebalancing stopped runs again before the tasks its submitter
 * queued behind it.
 */
final class ClassJobsTest {

    private static final String SHARES = "interactive:75;batch:25";
    private static final String MAP = "interactive-.*:interactive;batch-.*:batch";

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();
    private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

    /** A task that counts its runs under its name, and says its name. */
    private Runnable named(String name) {
        return new Runnable() {
            @Override
            public void run() {
                runs.computeIfAbsent(name, k -> new AtomicInteger()).incrementAndGet();
            }

            @Override
            public String toString() {
                return name;
            }
        };
    }

    private int runsOf(String name) {
        AtomicInteger n = runs.get(name);
        return n == null ? 0 : n.get();
    }

    /**
     * Four workers, each held (deaf to interrupts) until {@code blockersGate} opens, and then
     * classes switched on: what is submitted next waits in its job until the plan starts it.
     */
    private TurntableExecutor busyPool(TurntableExecutor.Builder builder, String shares, String map,
                                       CountDownLatch blockersGate) {
        TurntableExecutor pool = cleanup.track(builder.workers(4).threadFactory(new CountingThreadFactory("jobs"))
                .build());
        TurntableExecutorClassesTest.occupyThenClassify(pool, 4, () -> awaitIgnoringInterrupts(blockersGate), shares, map);
        return pool;
    }

    @Test
    void aSubmittersWaitingTasksComeBackInTheOrderItSubmittedThem() throws Exception {
        CountDownLatch blockers = cleanup.latch(1);
        TurntableExecutor pool = busyPool(TurntableExecutor.builder(), SHARES, MAP, blockers);
        List<Runnable> first = List.of(named("b0"), named("b1"), named("b2"), named("b3"), named("b4"));
        TurntableExecutorClassesTest.submitAs("batch-1", pool, first);

        assertEquals(first, new ArrayList<>(pool.getQueue()), "the collection view");
        List<Runnable> drained = new ArrayList<>();
        assertEquals(5, pool.getQueue().drainTo(drained));
        assertEquals(first, drained, "drainTo");
        assertEquals(0, pool.getQueue().size());

        List<Runnable> second = List.of(named("c0"), named("c1"), named("c2"));
        TurntableExecutorClassesTest.submitAs("batch-1", pool, second);
        assertEquals(second, pool.shutdownNow(), "shutdownNow");
        blockers.countDown();
        assertEquals(Map.of(), runs, "nothing drained or returned ran");
    }

    @Test
    void removeTakesOneWaitingTaskOutAndTheRestStillRunOnce() throws Exception {
        CountDownLatch blockers = cleanup.latch(1);
        TurntableExecutor pool = busyPool(TurntableExecutor.builder(), SHARES, MAP, blockers);
        Runnable a = named("a");
        Runnable b = named("b");
        Runnable c = named("c");
        TurntableExecutorClassesTest.submitAs("batch-1", pool, List.of(a, b, a, c));
        Runnable d = named("d");
        TurntableExecutorClassesTest.submitAs("interactive-1", pool, List.of(d));

        assertTrue(pool.remove(a), "a task submitted twice: one of them is removed");
        assertTrue(pool.remove(d), "from another job and class too");
        assertFalse(pool.remove(named("x")), "a task never submitted");
        assertEquals(List.of(b, a, c), new ArrayList<>(pool.getQueue()), "the first of the two went");
        assertEquals(3, pool.getQueue().size());
        assertEquals(Map.of("interactive", 0, "batch", 3), pool.getTurntableQueue().getWaitingTasksByClass());

        blockers.countDown();
        eventually("the three left ran", () -> runsOf("a") == 1 && runsOf("b") == 1 && runsOf("c") == 1);
        eventually("the pool is idle", () -> pool.getActiveCount() == 0);
        assertEquals(0, runsOf("d"), "a removed task never runs");
        assertEquals(1, runsOf("a"), "the task submitted twice ran once: its other submission was removed");
    }

    /**
     * The counts come in planner order (share descending, then name), neither the order the
     * shares were given in nor alphabetical; a requestor no regex matches counts in the
     * fallback class (the smallest share, ties by name: {@code alpha} here).
     */
    @Test
    void classCountsComeInPlannerOrderWithUnmatchedRequestorsInTheFallbackClass() throws Exception {
        CountDownLatch blockers = cleanup.latch(1);
        CountDownLatch gate = cleanup.latch(1);
        TurntableExecutor pool = busyPool(TurntableExecutor.builder(), "alpha:25;zeta:50;mid:25",
                "zeta-.*:zeta;mid-.*:mid", blockers);
        TurntableQueue q = pool.getTurntableQueue();
        List<Runnable> zeta = new ArrayList<>();
        for (int k = 0; k < 3; k++) {
            zeta.add(() -> awaitLatch(gate, "gate"));
        }
        TurntableExecutorClassesTest.submitAs("zeta-1", pool, zeta);
        TurntableExecutorClassesTest.submitAs("someone-else", pool,
                List.of(() -> awaitLatch(gate, "gate"), () -> awaitLatch(gate, "gate")));

        assertEquals(List.of("zeta", "alpha", "mid"), new ArrayList<>(q.getWaitingTasksByClass().keySet()));
        assertEquals(List.of(3, 2, 0), new ArrayList<>(q.getWaitingTasksByClass().values()));
        assertEquals(List.of(0, 0, 0), new ArrayList<>(q.getRunningTasksByClass().values()));

        blockers.countDown();
        eventually("four classed tasks running", () -> q.getRunningTasksByClass().values().stream()
                .mapToInt(Integer::intValue).sum() == 4);
        assertEquals(List.of("zeta", "alpha", "mid"), new ArrayList<>(q.getRunningTasksByClass().keySet()));
        assertEquals(0, q.getRunningTasksByClass().get("mid"), "mid has no task");
        assertEquals(1, q.getWaitingTasksByClass().values().stream().mapToInt(Integer::intValue).sum());
        gate.countDown();
        eventually("nothing left", () -> q.getWaitingTasksByClass().values().stream().allMatch(v -> v == 0)
                && q.getRunningTasksByClass().values().stream().allMatch(v -> v == 0));
    }

    /** A task whose class name is its requestor under {@code TASK_CLASS}. */
    static final class Report implements Runnable {
        @Override
        public void run() {
        }
    }

    /** Another, for the other class. */
    static final class Click implements Runnable {
        @Override
        public void run() {
        }
    }

    @Test
    void underTaskClassTheTasksClassNameIsTheRequestor() throws Exception {
        CountDownLatch blockers = cleanup.latch(1);
        TurntableExecutor pool = busyPool(TurntableExecutor.builder().requestor("TASK_CLASS"), SHARES,
                ".*\\$Report:batch;.*\\$Click:interactive", blockers);
        // Submitted from a thread whose name THREAD_NAME would map to interactive.
        TurntableExecutorClassesTest.submitAs("interactive-1", pool, List.of(new Report(), new Click(), new Report()));
        assertEquals(Map.of("interactive", 1, "batch", 2), pool.getTurntableQueue().getWaitingTasksByClass());
    }

    @Test
    void underPoolNameEveryTaskHasThePoolsNameAsItsRequestor() throws Exception {
        CountDownLatch blockers = cleanup.latch(1);
        TurntableExecutor pool = busyPool(TurntableExecutor.builder().requestor("POOL_NAME").poolName("reports"),
                SHARES, "reports:batch;interactive-.*:interactive", blockers);
        TurntableExecutorClassesTest.submitAs("interactive-1", pool, List.of(named("r0"), named("r1")));
        TurntableExecutorClassesTest.submitAs("batch-1", pool, List.of(named("r2")));
        assertEquals(Map.of("interactive", 0, "batch", 3), pool.getTurntableQueue().getWaitingTasksByClass());
    }

    /**
     * Batch alone borrows all four workers with restartable tasks b0..b3 (b4 and b5 wait in its
     * job); interactive comes; rebalancing stops the three most recently started (b1..b3), and
     * they go back to the head of batch's job. Batch, down to its one worker, then starts them
     * again before b4 and b5, which its submitter queued after them.
     */
    @Test
    void aStoppedRestartableTaskRunsAgainBeforeTheTasksQueuedBehindIt() throws Exception {
        Board board = new Board();
        ManualTicker ticker = new ManualTicker();
        CountDownLatch blockers = cleanup.latch(1);
        CountDownLatch interactiveGate = cleanup.latch(1);
        TurntableExecutor pool = busyPool(TurntableExecutor.builder().ticker(ticker).rebalanceThreshold(20)
                .rebalanceMinimumDurationMillis(1_000), SHARES, MAP, blockers);
        TurntableQueue q = pool.getTurntableQueue();
        List<CountDownLatch> batchGates = new ArrayList<>();
        List<Runnable> batch = new ArrayList<>();
        for (int k = 0; k < 6; k++) {
            CountDownLatch g = cleanup.latch(1);
            batchGates.add(g);
            batch.add(new RestartableGated(board, "batch", "b" + k, g));
        }
        TurntableExecutorClassesTest.submitAs("batch-1", pool, batch);
        blockers.countDown();
        eventually("batch alone borrows all 4", () -> board.running("batch") == 4 && board.startOrder.size() == 4);
        assertEquals(List.of("b0", "b1", "b2", "b3"), board.startOrder.stream().sorted().toList());
        List<Runnable> interactive = new ArrayList<>();
        for (int k = 0; k < 6; k++) {
            interactive.add(TurntableExecutorClassesTest.gated(board, "interactive", "i" + k, interactiveGate));
        }
        TurntableExecutorClassesTest.submitAs("interactive-1", pool, interactive);

        q.housekeep(); // first look over the threshold: the clock starts
        ticker.advanceMillis(1_001);
        q.housekeep();
        eventually("interactive gets its 3 workers", () -> board.running("interactive") == 3
                && board.running("batch") == 1 && board.startOrder.size() == 7);
        assertEquals(3, q.getRestartedTaskCount());

        // Batch now has one worker: each of its tasks that completes hands it the next one.
        List<String> batchStartsAfter = new ArrayList<>();
        String runningBatch = "b0";
        for (int next = 0; next < 5; next++) {
            int seen = board.startOrder.size();
            batchGates.get(Integer.parseInt(runningBatch.substring(1))).countDown();
            eventually("batch's next task started", () -> board.startOrder.size() == seen + 1);
            runningBatch = board.startOrder.get(seen);
            batchStartsAfter.add(runningBatch);
        }
        assertEquals(3, board.running("interactive"), "interactive kept its three throughout");
        assertEquals(List.of("b1", "b2", "b3"), batchStartsAfter.subList(0, 3).stream().sorted().toList(),
                "the stopped tasks first: " + batchStartsAfter);
        assertEquals(List.of("b4", "b5"), batchStartsAfter.subList(3, 5), "then the ones queued behind them");
        batchGates.get(5).countDown();
        interactiveGate.countDown();
        eventually("every task completed", () -> board.completions.size() == 12);
        board.completions.forEach((id, n) -> assertEquals(1, n.get(), id + " completed more than once"));
    }

    /**
     * A started task of a class, queued behind that class's running task on a busy worker while
     * another worker sits idle (stealing off), holds the class's only other place: the next task
     * waits in its job. Removed unrun ({@code ThreadPoolExecutor.remove}, as a cancelled task's
     * purge does), its place is free at once: the waiting task starts before {@code remove}
     * returns, not at the housekeeper's next tick, and runs on the idle worker.
     */
    @Test
    void removingAStartedTaskUnrunStartsTheTaskWaitingForItsPlace() throws Exception {
        AtomicInteger choices = new AtomicInteger();
        // The first two started tasks go to worker 0, the rest to worker 1.
        WorkerChoiceStrategy firstTwoOnWorkerZero = new WorkerChoiceStrategy() {
            @Override
            public String name() {
                return "FIRST_TWO_ON_WORKER_ZERO";
            }

            @Override
            public java.util.Set<Statistic> requiredStatistics() {
                return java.util.Set.of();
            }

            @Override
            public int choose(WorkerView workers, long nowNanos) {
                return choices.getAndIncrement() < 2 || workers.count() < 2 ? 0 : 1;
            }
        };
        TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(2).taskStealing(false)
                .registerStrategy("FIRST_TWO_ON_WORKER_ZERO", () -> firstTwoOnWorkerZero)
                .strategy("FIRST_TWO_ON_WORKER_ZERO")
                .threadFactory(new CountingThreadFactory("release")).build());
        TurntableQueue q = pool.getTurntableQueue();
        q.setTaskClasses("batch:100", "batch-.*:batch");
        CountDownLatch gate = cleanup.latch(1);
        CountDownLatch firstRunning = new CountDownLatch(1);
        Runnable first = () -> {
            firstRunning.countDown();
            awaitIgnoringInterrupts(gate);
        };
        Runnable second = named("second");
        Runnable third = named("third");
        TurntableExecutorClassesTest.submitAs("batch-1", pool, List.of(first, second));
        awaitLatch(firstRunning, "the first task runs on worker 0");
        eventually("the second task is queued behind it", () -> q.workers().get(0).queued() == 1);
        TurntableExecutorClassesTest.submitAs("batch-1", pool, List.of(third));
        assertEquals(Map.of("batch", 1), q.getWaitingTasksByClass(), "both places taken: the third waits");

        assertTrue(pool.remove(second), "the second task, queued unrun, is removed");

        assertEquals(Map.of("batch", 0), q.getWaitingTasksByClass(), "the third started as remove returned");
        eventually("the third runs on the idle worker", () -> runsOf("third") == 1);
        assertEquals(0, runsOf("second"));
        gate.countDown();
    }
}
