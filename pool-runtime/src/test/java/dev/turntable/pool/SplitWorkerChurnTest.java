package dev.turntable.pool;

import static dev.turntable.pool.TurntableExecutorClassesTest.gated;
import static dev.turntable.pool.TurntableExecutorClassesTest.occupyThenClassify;
import static dev.turntable.pool.TurntableExecutorClassesTest.submitAs;
import static dev.turntable.pool.testing.Waits.awaitLatch;
import static dev.turntable.pool.testing.Waits.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.turntable.pool.TurntableExecutorClassesTest.Board;
import dev.turntable.pool.TurntableExecutorClassesTest.RestartableGated;
import dev.turntable.pool.testing.CountingThreadFactory;
import dev.turntable.pool.testing.ManualTicker;
import dev.turntable.pool.testing.PoolCleanup;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A worker the shares split is not handed back and forth between a class's starts and a
 * rebalance.
 *
 * <p>Why a user would notice: starts give such a worker to the class furthest behind its share
 * of them, while rebalancing measured against a fixed entitlement, so each time a task ended the
 * next rebalance stopped a restartable task to hand the worker back (a review: 3 restartable
 * interactive tasks stopped in 3 batch completions; a 50% class's task on one worker run again
 * at every rebalance, never completing). A rebalance now stops a class's tasks only above its
 * exact share rounded up ({@code LoadPlan.ceilingWorkers}).
 */
class SplitWorkerChurnTest {

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();

    /**
     * {@code workers} workers with rebalancing on (threshold 10 points, minimum 1 s on
     * {@code ticker}), each held by a blocker until {@code blockers} opens, then task classes on.
     */
    private TurntableExecutor rebalancingPool(int workers, ManualTicker ticker, CountDownLatch blockers,
                                              String shares, String map) {
        TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(workers).ticker(ticker)
                .rebalanceThreshold(10).rebalanceMinimumDurationMillis(1_000)
                .threadFactory(new CountingThreadFactory("churn")).build());
        occupyThenClassify(pool, workers, () -> awaitLatch(blockers, "blockers"), shares, map);
        return pool;
    }

    private static List<Rebalance> rebalancesOf(TurntableQueue q) {
        List<Rebalance> rebalances = new CopyOnWriteArrayList<>();
        q.addRebalanceListener(rebalances::add);
        return rebalances;
    }

    @Test
    void aBatchTaskEndingDoesNotCostARestartableInteractiveTask() throws Exception {
        Board board = new Board();
        ManualTicker ticker = new ManualTicker();
        CountDownLatch blockers = cleanup.latch(1);
        CountDownLatch interactiveGate = cleanup.latch(1);
        TurntableExecutor pool = rebalancingPool(3, ticker, blockers, "interactive:75;batch:25",
                "interactive-.*:interactive;batch-.*:batch");
        TurntableQueue q = pool.getTurntableQueue();
        List<Rebalance> rebalances = rebalancesOf(q);
        List<CountDownLatch> batchGates = new ArrayList<>();
        List<Runnable> batch = new ArrayList<>();
        for (int k = 0; k < 6; k++) {
            CountDownLatch g = cleanup.latch(1);
            batchGates.add(g);
            batch.add(gated(board, "batch", "b" + k, g));
        }
        List<RestartableGated> interactive = new ArrayList<>();
        for (int k = 0; k < 8; k++) {
            interactive.add(new RestartableGated(board, "interactive", "i" + k, interactiveGate));
        }
        submitAs("batch-1", pool, batch);
        submitAs("interactive-1", pool, new ArrayList<>(interactive));
        blockers.countDown();
        eventually("2 interactive + 1 batch (2.25 + 0.75 workers)",
                () -> board.running("interactive") == 2 && board.running("batch") == 1);
        batchGates.get(0).countDown(); // batch's running task ends: the starts give its worker to a class
        eventually("b0 done and all 3 workers busy", () -> board.completions.containsKey("b0")
                && board.running("interactive") + board.running("batch") == 3);
        StringBuilder log = new StringBuilder("after b0: interactive " + board.running("interactive")
                + ", batch " + board.running("batch"));
        int cycles = 3;
        for (int c = 0; c < cycles; c++) { // rebalance periods, both classes backlogged
            q.housekeep();
            ticker.advanceMillis(1_001);
            q.housekeep();
            q.housekeep();
        }
        log.append("; rebalances ").append(rebalances.size());
        int interactiveRuns = interactive.stream().mapToInt(t -> t.runs.get()).sum();
        int stopped = rebalances.stream().mapToInt(r -> r.tasksStopped().values().stream().mapToInt(Integer::intValue).sum()).sum();
        assertEquals(0, stopped, cycles + " rebalance periods after a batch task ended (both classes backlogged, 3 workers at 75:25): "
                + rebalances.size() + " rebalances stopped " + stopped + " restartable interactive tasks ("
                + interactiveRuns + " interactive runs for " + board.running("interactive") + " running): " + log);
    }

    /**
     * One worker at a:50;b:50, rebalancing on: the fixed entitlement gives the worker to a (class
     * order), the starts give it to b after a's first task. Stopped by each rebalance for the
     * fixed entitlement, b's restartable task was run again and again and never completed while
     * a's did; it now keeps the worker (b's ceiling is that one worker) and completes.
     */
    @Test
    void anEqualShareOnOneWorkerIsNotStoppedEachTimeItGetsTheWorker() throws Exception {
        Board board = new Board();
        ManualTicker ticker = new ManualTicker();
        CountDownLatch blocker = cleanup.latch(1);
        CountDownLatch bGate = cleanup.latch(1);
        TurntableExecutor pool = rebalancingPool(1, ticker, blocker, "a:50;b:50", "a-.*:a;b-.*:b");
        TurntableQueue q = pool.getTurntableQueue();
        List<Rebalance> rebalances = rebalancesOf(q);
        List<CountDownLatch> aGates = new ArrayList<>();
        List<Runnable> as = new ArrayList<>();
        for (int k = 0; k < 6; k++) {
            CountDownLatch g = cleanup.latch(1);
            aGates.add(g);
            as.add(gated(board, "a", "a" + k, g));
        }
        RestartableGated b0 = new RestartableGated(board, "b", "b0", bGate);
        submitAs("a-1", pool, as);
        submitAs("b-1", pool, List.of(b0));
        blocker.countDown();
        eventually("a0 has the worker", () -> board.running("a") == 1);
        aGates.get(0).countDown();
        // a started 1, b none: b's turn on the worker the shares split.
        eventually("b0 has the worker after a0", () -> board.running("b") == 1);
        for (int c = 0; c < 3; c++) { // three rebalance periods with both classes waiting or running
            q.housekeep();
            ticker.advanceMillis(1_001);
            q.housekeep();
            q.housekeep();
        }
        int stopped = rebalances.stream().mapToInt(r -> r.tasksStopped().values().stream().mapToInt(Integer::intValue).sum()).sum();
        assertEquals(0, stopped, "rebalances stopped " + stopped + " tasks: " + rebalances.stream()
                .map(r -> r.tasksToStop() + "->" + r.tasksStopped()).toList());
        assertEquals(1, b0.runs.get(), "b0 (50% on 1 worker) was run " + b0.runs.get() + " times");
        bGate.countDown();
        eventually("b0 completed, then a's next task has the worker", () -> board.completions.containsKey("b0")
                && board.running("a") == 1);
    }
}
