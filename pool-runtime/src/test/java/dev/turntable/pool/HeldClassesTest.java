package dev.turntable.pool;

import static dev.turntable.pool.TurntableExecutorClassesTest.gated;
import static dev.turntable.pool.TurntableExecutorClassesTest.occupyThenClassify;
import static dev.turntable.pool.TurntableExecutorClassesTest.submitAs;
import static dev.turntable.pool.testing.Waits.awaitLatch;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.turntable.pool.TurntableExecutorClassesTest.Board;
import dev.turntable.pool.TurntableExecutorClassesTest.RestartableGated;
import dev.turntable.pool.testing.CountingThreadFactory;
import dev.turntable.pool.testing.ManualTicker;
import dev.turntable.pool.testing.PoolCleanup;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Classes a rebalance holds (their tasks cannot be stopped) borrow idle workers again once no
 * class that may start has tasks waiting, also when two are held at once: each used to count
 * the other's waiting tasks, and both stayed held beside idle workers until their long tasks
 * ended. A worker the plan lends to a held class goes to another class with tasks waiting, and
 * keeps the task it was given there.
 */
final class HeldClassesTest {

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();

    @Test
    void twoHeldClassesDoNotKeepEachOtherHeld() throws Exception {
        Board board = new Board();
        ManualTicker ticker = new ManualTicker();
        CountDownLatch blockers = cleanup.latch(1);
        CountDownLatch interactiveGate = cleanup.latch(1);
        TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(8).ticker(ticker)
                .rebalanceThreshold(20).rebalanceMinimumDurationMillis(1_000)
                .threadFactory(new CountingThreadFactory("held")).build());
        occupyThenClassify(pool, 8, () -> awaitLatch(blockers, "blockers"), "interactive:50;batch:25;bulk:25",
                "interactive-.*:interactive;batch-.*:batch;bulk-.*:bulk");
        TurntableQueue q = pool.getTurntableQueue();
        List<Rebalance> rebalances = new CopyOnWriteArrayList<>();
        q.addRebalanceListener(rebalances::add);
        List<CountDownLatch> gates = new ArrayList<>();
        for (int wave = 0; wave < 2; wave++) { // 4 + 4 fill the 8 workers exactly; then 2 + 2 wait
            for (String cls : List.of("batch", "bulk")) {
                List<Runnable> tasks = new ArrayList<>();
                for (int k = 0; k < (wave == 0 ? 4 : 2); k++) {
                    CountDownLatch g = cleanup.latch(1);
                    gates.add(g);
                    tasks.add(gated(board, cls, cls + wave + k, g));
                }
                submitAs(cls + "-" + wave, pool, tasks);
            }
            if (wave == 0) {
                blockers.countDown();
                Awaitility.await().atMost(Duration.ofSeconds(30))
                        .until(() -> board.running("batch") == 4 && board.running("bulk") == 4);
            }
        }
        submitAs("interactive-1", pool, List.of(gated(board, "interactive", "i0", interactiveGate),
                gated(board, "interactive", "i1", interactiveGate)));
        q.housekeep();
        ticker.advanceMillis(1_001);
        q.housekeep();
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> rebalances.size() == 1);
        assertEquals(Map.of("batch", 1, "bulk", 1), rebalances.get(0).tasksToStop());
        assertEquals(Map.of("batch", 0, "bulk", 0), rebalances.get(0).tasksStopped(), "both held");
        gates.get(0).countDown(); // a running batch task ends
        gates.get(4).countDown(); // a running bulk task ends
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> board.running("interactive") == 2
                && board.running("batch") == 3 && board.running("bulk") == 3);
        interactiveGate.countDown();
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> board.running("interactive") == 0);
        q.housekeep(); // more passes: nothing changes
        q.housekeep();
        // nobody but the held classes waits: they borrow the 2 idle workers (4 + 4)
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> board.running("batch") + board.running("bulk") == 8);
        gates.forEach(CountDownLatch::countDown);
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> board.completions.size() == 14);
        board.completions.forEach((id, n) -> assertEquals(1, n.get(), id));
    }

    @Test
    void aWorkerLentToAHeldClassGoesToAClassThatMayStart() throws Exception {
        // The plan lends an idle worker to the held class (the larger share of those waiting),
        // which may not start. That worker must go to the other waiting class, not stay idle:
        // here the held class's running task is a parent waiting for its child in that class,
        // so an idle worker beside the waiting child stalled the pool for good.
        ManualTicker ticker = new ManualTicker();
        CountDownLatch blockers = cleanup.latch(1);
        CountDownLatch gate = cleanup.latch(1);
        TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(2).ticker(ticker)
                .rebalanceThreshold(10).rebalanceMinimumDurationMillis(1_000)
                .threadFactory(new CountingThreadFactory("lent")).build());
        occupyThenClassify(pool, 2, () -> awaitLatch(blockers, "blockers"), "a:50;b:30;c:20",
                "http-.*:a;report-.*:b;misc-.*:c");
        TurntableQueue q = pool.getTurntableQueue();
        List<Rebalance> rebalances = new CopyOnWriteArrayList<>();
        q.addRebalanceListener(rebalances::add);
        AtomicInteger lastBRan = new AtomicInteger();
        // Class b (submitted from "report-1"): a parent that waits for a child submitted from its
        // worker thread (whose name matches no regex, so the child is class c); a task that holds
        // the other worker until the gate opens; and one more b task, waiting.
        CountDownLatch parentGo = cleanup.latch(1);
        Runnable parent = () -> {
            awaitLatch(parentGo, "both workers taken by b");
            try {
                pool.submit(() -> { }).get();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        };
        AtomicReference<Future<?>> parentDone = new AtomicReference<>();
        Thread report = new Thread(() -> {
            parentDone.set(pool.submit(parent));
            pool.execute(() -> awaitLatch(gate, "gate"));
            pool.execute(lastBRan::incrementAndGet);
        }, "report-1");
        report.start();
        report.join();
        blockers.countDown();
        // b runs on both workers (a loan: nothing else waited); then the parent submits the child,
        // which waits in class c. (Submitted while a worker was still free, the child would take
        // it: a class furthest below its share of the worker time goes first.)
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> q.getRunningTasksByClass().get("b") == 2);
        parentGo.countDown();
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> q.getRunningTasksByClass().get("b") == 2
                && q.getWaitingTasksByClass().get("c") == 1);
        // b stays above its entitlement (1 of 2 workers: its 0.6, the larger fraction) with c waiting: the rebalance names one b
        // task to stop; none can be stopped (not restartable), so b is held.
        q.housekeep();
        ticker.advanceMillis(1_001);
        q.housekeep();
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> rebalances.size() == 1);
        assertEquals(Map.of("b", 1), rebalances.get(0).tasksToStop());
        assertEquals(Map.of("b", 0), rebalances.get(0).tasksStopped(), "b held");

        gate.countDown(); // a worker comes free with the child (c) and the last b task waiting
        q.housekeep();
        parentDone.get().get(30, TimeUnit.SECONDS); // the child ran, so the parent ended
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> lastBRan.get() == 1);
        assertEquals(1, rebalances.size(), "no second rebalance while b was held");
    }

    @Test
    void aTaskStartedOnAWorkerLentAwayFromAHeldClassIsNotStoppedToGiveItBack() throws Exception {
        // The worker lent away from held class b goes to c's restartable task T. With T started,
        // nothing that may start waits; b's hold used to end on that in the very next pass,
        // though no worker was idle and b was still above its entitlement, and the next
        // rebalance stopped T to give its worker back to b, held again: a restart of T and two
        // notifications per task of b.
        Board board = new Board();
        ManualTicker ticker = new ManualTicker();
        CountDownLatch blockers = cleanup.latch(1);
        TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(2).ticker(ticker)
                .rebalanceThreshold(10).rebalanceMinimumDurationMillis(1_000)
                .threadFactory(new CountingThreadFactory("churn")).build());
        // a's 1.5 workers take the one the floors leave (the larger fraction): b (0.3) and c (0.2)
        // are entitled to none, so b, above its entitlement, stays held while it runs a task.
        occupyThenClassify(pool, 2, () -> awaitLatch(blockers, "blockers"), "a:75;b:15;c:10",
                "http-.*:a;report-.*:b;misc-.*:c");
        TurntableQueue q = pool.getTurntableQueue();
        List<Rebalance> rebalances = new CopyOnWriteArrayList<>();
        q.addRebalanceListener(rebalances::add);
        List<CountDownLatch> gates = new ArrayList<>();
        List<Runnable> b = new ArrayList<>();
        for (int k = 0; k < 3; k++) {
            CountDownLatch g = cleanup.latch(1);
            gates.add(g);
            b.add(gated(board, "b", "b" + k, g));
        }
        submitAs("report-0", pool, b);
        blockers.countDown();
        // b alone borrows both workers; then T comes. (Submitted before the workers came free,
        // T would take the second: a class furthest below its share of the worker time goes first.)
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> board.running("b") == 2);
        CountDownLatch tGate = cleanup.latch(1);
        RestartableGated t = new RestartableGated(board, "c", "T", tGate);
        submitAs("misc-1", pool, List.of(t));
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> board.running("b") == 2
                && q.getWaitingTasksByClass().get("c") == 1);
        rebalanceNow(q, ticker);
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> rebalances.size() == 1);
        assertEquals(Map.of("b", 0), rebalances.get(0).tasksStopped(), "b held");

        gates.get(0).countDown(); // a b task ends: the plan lends its worker to b, the pass to T
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> board.running("c") == 1);
        CountDownLatch g = cleanup.latch(1); // b's next task comes (b still above its entitlement)
        gates.add(g);
        submitAs("report-1", pool, List.of(gated(board, "b", "b3", g)));
        rebalanceNow(q, ticker);
        rebalanceNow(q, ticker);
        // No worker came free: b's hold should stand (its running task is still above its
        // entitlement), and T keep the worker it was lent. It used to end b's hold (nothing
        // startable waited: T had just started), and the next rebalance stopped T for b, which
        // was then held again: {c=1}->{c=1}, {b=1}->{b=0}.
        assertEquals(1, rebalances.size(), () -> "rebalances " + rebalances.stream()
                .map(r -> r.tasksToStop() + "->" + r.tasksStopped()).toList());
        assertEquals(1, t.runs.get(), "T was stopped and run again");
        tGate.countDown();
        gates.forEach(CountDownLatch::countDown);
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> board.completions.containsKey("T")
                && board.completions.size() == 5);
        board.completions.forEach((id, n) -> assertEquals(1, n.get(), id));
    }

    private static void rebalanceNow(TurntableQueue q, ManualTicker ticker) {
        q.housekeep();
        ticker.advanceMillis(1_001);
        q.housekeep();
    }
}
