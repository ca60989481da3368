package dev.turntable.pool;

import static dev.turntable.pool.testing.Waits.awaitLatch;
import static dev.turntable.pool.testing.Waits.eventually;
import static org.junit.jupiter.api.Assertions.fail;

import dev.turntable.pool.TurntableExecutorClassesTest.Board;
import dev.turntable.pool.TurntableExecutorClassesTest.RestartableGated;
import dev.turntable.pool.testing.CountingThreadFactory;
import dev.turntable.pool.testing.ManualTicker;
import dev.turntable.pool.testing.PoolCleanup;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * With task stealing off, the tasks a rebalance starts run on the workers its stops free.
 *
 * <p>Why a user would notice: a rebalance is how a class gets its share back from a class that
 * borrowed the workers. It starts the waiting class's tasks at once, while every worker is still
 * busy, and the strategy could queue one behind a borrowed task that was not stopped, where,
 * with stealing off, it waited for that task to end while the worker the stop freed sat idle (a
 * review: 2 of the 3 interactive tasks running instead of 3, in 7 of 8 runs).
 */
class RebalanceWithoutStealingTest {

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();

    @ParameterizedTest
    @ValueSource(strings = {"ROUND_ROBIN", "LEAST_USED"})
    void theStartedTasksTakeTheWorkersTheStopsFree(String strategy) throws Exception {
        Board board = new Board();
        ManualTicker ticker = new ManualTicker();
        CountDownLatch blockers = cleanup.latch(1);
        CountDownLatch batchGate = cleanup.latch(1);
        CountDownLatch interactiveGate = cleanup.latch(1);
        TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(4).ticker(ticker)
                .strategy(strategy).taskStealing(false)
                .rebalanceThreshold(20).rebalanceMinimumDurationMillis(1_000)
                .threadFactory(new CountingThreadFactory("nosteal")).build());
        TurntableExecutorClassesTest.occupyThenClassify(pool, 4, () -> awaitLatch(blockers, "blockers"),
                "interactive:75;batch:25", "interactive-.*:interactive;batch-.*:batch");
        TurntableQueue queue = pool.getTurntableQueue();
        List<Rebalance> rebalances = new CopyOnWriteArrayList<>();
        queue.addRebalanceListener(rebalances::add);
        List<Runnable> batch = new ArrayList<>();
        for (int k = 0; k < 6; k++) {
            batch.add(new RestartableGated(board, "batch", "b" + k, batchGate));
        }
        TurntableExecutorClassesTest.submitAs("batch-1", pool, batch);
        blockers.countDown();
        eventually("batch, alone, borrows all 4 workers", () -> board.running("batch") == 4);
        List<Runnable> interactive = new ArrayList<>();
        for (int k = 0; k < 6; k++) {
            interactive.add(TurntableExecutorClassesTest.gated(board, "interactive", "i" + k, interactiveGate));
        }
        TurntableExecutorClassesTest.submitAs("interactive-1", pool, interactive);
        queue.housekeep();
        ticker.advanceMillis(1_001);
        queue.housekeep();
        eventually("one rebalance", () -> rebalances.size() == 1);
        try {
            // Well within Waits.LONG (30 s), after which a gated batch task gives up its wait and
            // frees its worker, which would hide an interactive task queued behind it.
            Awaitility.await("interactive on the 3 workers the rebalance freed, batch on 1")
                    .atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(2))
                    .until(() -> board.running("interactive") == 3 && board.running("batch") == 1);
        } catch (ConditionTimeoutException e) {
            fail("running interactive " + board.running("interactive") + ", batch " + board.running("batch")
                    + " after the rebalance stopped " + rebalances.get(0).tasksStopped() + "; tasks queued per worker: "
                    + queuedPerWorker(queue));
        }
    }

    private static String queuedPerWorker(TurntableQueue queue) {
        StringBuilder sb = new StringBuilder();
        for (WorkerSlot s : queue.slots) {
            sb.append(s.queue.size()).append(' ');
        }
        return sb.toString().trim();
    }
}
