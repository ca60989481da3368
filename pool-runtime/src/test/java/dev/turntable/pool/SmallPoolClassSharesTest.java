package dev.turntable.pool;

import static dev.turntable.pool.testing.Waits.awaitLatch;
import static dev.turntable.pool.testing.Waits.eventually;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.testing.ManualTicker;
import dev.turntable.pool.testing.PoolCleanup;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * On a pool with fewer workers than its shares divide evenly, every class with a share gets its
 * share of the worker time while all classes are backlogged: of the starts, where tasks are of
 * equal length. Tasks take their length of the pool's clock, a {@link ManualTicker} they move. One worker, so that tasks run in the
 * order the scheduling passes start them (with more, a worker the OS leaves waiting holds the
 * task it was given, and run order drifts from start order); {@code LoadPlannerTest} plans the
 * same over 2, 3 and 4 workers.
 *
 * <p>Why a user would notice: entitlements were whole workers, rounded down, with the rest to the
 * first class, and a pass with one worker to give gave it to the first class that wanted one. On
 * 3 workers at {@code interactive:75;batch:25} batch started 0 of the first 200 tasks while both
 * classes were backlogged; on 1 worker at {@code a:50;b:50} class {@code b} waited for all of
 * {@code a}'s, for no reason but its name (a review: 0 of the first 100).
 */
class SmallPoolClassSharesTest {

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();

    private final List<String> starts = new CopyOnWriteArrayList<>();
    /** The pools' clock: each task moves it by its length, so the worker time classes use is exact. */
    private final ManualTicker ticker = new ManualTicker();

    /** A one-worker pool with task classes on, its worker held by a blocker until {@code gate} opens (null: none). */
    private TurntableExecutor oneWorker(String shares, String map, CountDownLatch gate) {
        return TurntableExecutorClassesTest.classedPool(cleanup, 1, ticker, "small", gate, shares, map);
    }

    /** Submits {@code count} tasks of 1 ms from a thread named {@code requestor}, each noting {@code mark} as it runs. */
    private void submit(TurntableExecutor pool, String requestor, String mark, int count) throws InterruptedException {
        submit(pool, requestor, mark, count, 1);
    }

    /** Submits {@code count} tasks from a thread named {@code requestor}, each noting {@code mark} and taking {@code millis} of the clock. */
    private void submit(TurntableExecutor pool, String requestor, String mark, int count, long millis)
            throws InterruptedException {
        List<Runnable> tasks = new ArrayList<>();
        for (int k = 0; k < count; k++) {
            tasks.add(() -> {
                starts.add(mark);
                ticker.advanceMillis(millis);
            });
        }
        TurntableExecutorClassesTest.submitAs(requestor, pool, tasks);
    }

    /** How many of the first {@code count} tasks to run were {@code mark}'s, once {@code all} have run. */
    private long firstStartsOf(String mark, int all, int count) {
        eventually("all " + all + " tasks ran", () -> starts.size() == all);
        return starts.subList(0, count).stream().filter(mark::equals).count();
    }

    private String order() {
        return String.join("", starts);
    }

    @Test
    void aQuarterShareOfOneWorkerStartsAQuarterOfTheTasks() throws Exception {
        CountDownLatch gate = cleanup.latch(1);
        TurntableExecutor pool = oneWorker("interactive:75;batch:25", "interactive-.*:interactive;batch-.*:batch", gate);
        submit(pool, "batch-1", "b", 150);
        submit(pool, "interactive-1", "i", 450);
        gate.countDown();
        // Both classes wait all through the first 400 starts (at most 300 of interactive's 450
        // at its share, 100 of batch's 150): batch's share of them is 100. One worker runs the
        // tasks in the order the passes start them.
        long batchStarts = firstStartsOf("b", 600, 400);
        assertTrue(batchStarts >= 97 && batchStarts <= 103,
                "batch (25%) started " + batchStarts + " of the first 400 tasks on 1 worker: " + order());
    }

    @Test
    void aClassWithLongerTasksGetsItsShareOfTheWorkersTimeNotOfTheStarts() throws Exception {
        CountDownLatch gate = cleanup.latch(1);
        TurntableExecutor pool = oneWorker("interactive:75;batch:25", "interactive-.*:interactive;batch-.*:batch", gate);
        submit(pool, "batch-1", "b", 40, 10);
        submit(pool, "interactive-1", "i", 600, 1);
        gate.countDown();
        // Both classes wait all through the first 300 starts. At 25% of the worker's time, batch
        // runs one 10 ms task for every 30 interactive tasks of 1 ms: about 10 of the 300.
        // Shared by starts, batch took 75 of them and 77% of the worker's time.
        long batchStarts = firstStartsOf("b", 640, 300);
        long batchMillis = batchStarts * 10;
        double batchTimeShare = (double) batchMillis / (batchMillis + (300 - batchStarts));
        assertTrue(batchTimeShare >= 0.20 && batchTimeShare <= 0.30, "batch (25%, 10 ms tasks) took "
                + Math.round(batchTimeShare * 100) + "% of the worker's time over the first 300 starts ("
                + batchStarts + " of them) beside 1 ms interactive tasks: " + order());
    }

    @Test
    void equalSharesOnOneWorkerTakeTurns() throws Exception {
        CountDownLatch gate = cleanup.latch(1);
        TurntableExecutor pool = oneWorker("a:50;b:50", "a-.*:a;b-.*:b", gate);
        submit(pool, "b-1", "b", 100);
        submit(pool, "a-1", "a", 100);
        gate.countDown();
        long bStarts = firstStartsOf("b", 200, 100);
        assertTrue(bStarts >= 48 && bStarts <= 52, "b (50%) started " + bStarts + " of the first 100 tasks on 1 worker: " + order());
    }

    @Test
    void aClassBackFromIdleIsNotOwedWhatTheOthersStartedMeanwhile() throws Exception {
        TurntableExecutor pool = oneWorker("a:50;b:50", "a-.*:a;b-.*:b", null);
        submit(pool, "b-1", "b", 200);
        eventually("b ran alone", () -> starts.size() == 200);
        starts.clear();
        CountDownLatch gate = cleanup.latch(1);
        pool.execute(() -> awaitLatch(gate, "blocker")); // holds the worker while both classes queue
        submit(pool, "a-1", "a", 100);
        submit(pool, "b-2", "b", 100);
        gate.countDown();
        // Owed 200 starts, a ran its first 100 in a row while b waited.
        long aStarts = firstStartsOf("a", 200, 100);
        assertTrue(aStarts >= 48 && aStarts <= 52, "a (50%), back from idle, started " + aStarts
                + " of the first 100 tasks on 1 worker: " + order());
    }
}
