package dev.turntable.pool;

import static dev.turntable.pool.testing.Waits.awaitIgnoringInterrupts;
import static dev.turntable.pool.testing.Waits.awaitLatch;
import static dev.turntable.pool.testing.Waits.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.testing.CountingThreadFactory;
import dev.turntable.pool.testing.ManualTicker;
import dev.turntable.pool.testing.PoolCleanup;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A rebalance's starts that wait in the shared queue (stealing off) while the stopped tasks are
 * slow to stop are each run, removed, drained or returned exactly once, and the pool terminates.
 *
 * <p>Why a user would notice: those starts sit where no worker's queue holds them, counted as
 * running in their class; {@code remove}, {@code drainTo} and {@code shutdownNow} must still
 * find each, and no task may be lost or run twice.
 */
class SharedStartsAccountingTest {

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();

    static final class SlowStop implements RestartableTask {
        final CountDownLatch gate;
        final CountDownLatch letGo;
        final AtomicInteger runs = new AtomicInteger();
        final CountDownLatch running;
        volatile boolean complete;

        SlowStop(CountDownLatch gate, CountDownLatch letGo, CountDownLatch running) {
            this.gate = gate;
            this.letGo = letGo;
            this.running = running;
        }

        @Override
        public void run() {
            runs.incrementAndGet();
            running.countDown();
            try {
                complete = gate.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException stop) {
                complete = false;
                awaitIgnoringInterrupts(letGo);
            }
        }

        @Override
        public boolean isComplete() {
            return complete;
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"remove", "drainTo", "shutdownNow"})
    void startsWaitingInTheSharedQueueAreAccountedOnce(String how) throws Exception {
        ManualTicker ticker = new ManualTicker();
        CountDownLatch blockers = cleanup.latch(1);
        CountDownLatch batchGate = cleanup.latch(1);
        CountDownLatch letGo = cleanup.latch(1);
        TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(4).ticker(ticker)
                .strategy("ROUND_ROBIN").taskStealing(false)
                .rebalanceThreshold(20).rebalanceMinimumDurationMillis(1_000)
                .threadFactory(new CountingThreadFactory("sharedacct")).build());
        TurntableExecutorClassesTest.occupyThenClassify(pool, 4, () -> awaitLatch(blockers, "blockers"),
                "interactive:75;batch:25", "interactive-.*:interactive;batch-.*:batch");
        TurntableQueue q = pool.getTurntableQueue();
        List<Rebalance> rebalances = new CopyOnWriteArrayList<>();
        q.addRebalanceListener(rebalances::add);
        CountDownLatch batchRunning = new CountDownLatch(4);
        List<SlowStop> batch = new ArrayList<>();
        for (int k = 0; k < 4; k++) {
            batch.add(new SlowStop(batchGate, letGo, batchRunning));
        }
        TurntableExecutorClassesTest.submitAs("batch-1", pool, new ArrayList<>(batch));
        blockers.countDown();
        awaitLatch(batchRunning, "batch borrows all 4");
        Map<Runnable, AtomicInteger> runs = new IdentityHashMap<>();
        List<Runnable> interactive = new ArrayList<>();
        for (int k = 0; k < 6; k++) {
            AtomicInteger r = new AtomicInteger();
            Runnable t = r::incrementAndGet;
            runs.put(t, r);
            interactive.add(t);
        }
        TurntableExecutorClassesTest.submitAs("interactive-1", pool, interactive);
        q.housekeep();
        ticker.advanceMillis(1_001);
        q.housekeep();
        eventually("one rebalance", () -> rebalances.size() == 1);
        eventually("3 starts in the shared queue", () -> q.shared.size() == 3);
        List<Runnable> out = new ArrayList<>();
        int removed = 0;
        switch (how) {
            case "remove" -> {
                for (Runnable t : interactive) {
                    if (q.remove(t)) {
                        removed++;
                    }
                }
                assertEquals(6, removed, "remove() found every waiting interactive task");
                assertEquals(0, q.shared.size(), "the shared queue is empty after removing all");
                pool.shutdown();
            }
            case "drainTo" -> {
                q.drainTo(out);
                pool.shutdown();
            }
            default -> out.addAll(pool.shutdownNow());
        }
        letGo.countDown();
        batchGate.countDown();
        assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS), "terminated");
        for (Runnable t : interactive) {
            int ran = runs.get(t).get();
            long returned = out.stream().filter(x -> x == t).count();
            long gone = how.equals("remove") ? 1 : 0;
            assertEquals(1, ran + returned + gone, how + ": an interactive task ran " + ran + " times, returned "
                    + returned + " times, removed " + gone);
        }
    }
}
