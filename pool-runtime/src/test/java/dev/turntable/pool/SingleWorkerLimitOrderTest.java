package dev.turntable.pool;

import static dev.turntable.pool.testing.NamedTask.recording;
import static dev.turntable.pool.testing.Waits.awaitLatch;
import static dev.turntable.pool.testing.Waits.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.strategy.WorkerChoiceStrategy;
import dev.turntable.pool.testing.Blocker;
import dev.turntable.pool.testing.PoolCleanup;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A single-worker pool with {@code max-concurrent-tasks} set still runs its tasks in submission
 * order, as {@code Executors.newSingleThreadExecutor} promises, when a task found no place on the
 * worker and waits in the shared queue. Found by an operator review: under the agent,
 * {@code max-concurrent-tasks=2} reordered 6 of 50 rounds of 2,000 tasks ("position 265 ran task
 * 421"), with no worker retiring or dying. Two things let later tasks pass: submits went on to the
 * worker's own queue past a task waiting in the shared queue, and the worker, with the limit,
 * served the shared queue before older tasks on its own queue.
 */
final class SingleWorkerLimitOrderTest {

    private static final String ALL = "dev.turntable.pool.testing.Params#strategies";

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();

    /**
     * The worker, held in a task, has room for three more. Task a goes on its queue; task b finds no
     * worker (the strategy answers none: a worker counted twice for an instant, or not attached
     * yet) and waits in the shared queue; task c comes while b waits. Before: c went on the
     * worker's queue, and the freed worker served the shared queue first: [b, a, c].
     */
    @Test
    void aTaskWaitingInTheSharedQueueIsNeitherOvertakenNorRunBeforeOlderOnes() {
        AtomicInteger target = new AtomicInteger(0);
        CountDownLatch gate = cleanup.latch(1);
        TurntableExecutor pool = heldSingleWorker(TurntableExecutor.builder().maxConcurrentTasks(4), target, gate);
        TurntableQueue queue = pool.getTurntableQueue();
        List<String> ran = Collections.synchronizedList(new ArrayList<>());

        pool.execute(recording("a", ran));
        target.set(WorkerChoiceStrategy.NONE);
        pool.execute(recording("b", ran));
        assertEquals(1, queue.sharedCount.get(), "b waits in the shared queue; workers " + queue.workers());
        target.set(0);
        pool.execute(recording("c", ran));

        gate.countDown();
        eventually("all three ran", () -> ran.size() == 3);
        assertEquals(List.of("a", "b", "c"), List.copyOf(ran), "submission order");
    }

    /**
     * Every tenth task throws, which ends its worker, while one thread keeps submitting; and a
     * worker that retires every 10 tasks: the limit set, each replacement goes on where its
     * predecessor stopped (as without it: {@link SubmissionOrderTest}).
     */
    @ParameterizedTest
    @ValueSource(strings = {"deaths", "retirements"})
    void aSingleWorkerAtItsLimitKeepsSubmissionOrderAcrossItsReplacements(String how) throws Exception {
        ThreadFactory quiet = r -> {
            Thread t = new Thread(r, "limit-order");
            t.setDaemon(true);
            t.setUncaughtExceptionHandler((thread, e) -> { }); // deaths on purpose: no traces
            return t;
        };
        boolean deaths = how.equals("deaths");
        TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(1).threadFactory(quiet)
                .maxConcurrentTasks(2).workerSelectTimeoutMillis(60_000).maxLifetimeTasks(deaths ? 0 : 10).build());
        List<Integer> ran = Collections.synchronizedList(new ArrayList<>());
        int n = 5_000;
        for (int i = 0; i < n; i++) {
            int id = i;
            pool.execute(() -> {
                ran.add(id);
                if (deaths && id % 10 == 9) {
                    throw new IllegalStateException("task " + id + " fails on purpose");
                }
            });
        }
        // Not shut down before all ran: a shut-down pool's last worker stops retiring.
        eventually("every task ran", () -> ran.size() == n);
        assertInOrder("", List.copyOf(ran), n);
    }

    /**
     * Joining the shared queue keeps the limit's back-pressure: the worker runs one task and one
     * waits in the shared queue, so with a limit of 2 the worker's share is taken, and later
     * submits wait the select timeout and are refused. (Joining without a bound, a review saw
     * 100 such submits all accepted.)
     */
    @Test
    void tasksJoinTheSharedQueueOnlyWithinTheLimit() {
        AtomicInteger target = new AtomicInteger(0);
        AtomicInteger refused = new AtomicInteger();
        CountDownLatch gate = cleanup.latch(1);
        TurntableExecutor pool = heldSingleWorker(TurntableExecutor.builder().maxConcurrentTasks(2)
                .workerSelectTimeoutMillis(10).rejectionHandler((r, p) -> refused.incrementAndGet()), target, gate);
        TurntableQueue queue = pool.getTurntableQueue();
        List<String> ran = Collections.synchronizedList(new ArrayList<>());
        target.set(WorkerChoiceStrategy.NONE);
        pool.execute(recording("waits", ran)); // no worker chosen although it has room: the shared queue
        target.set(0);
        assertEquals(1, queue.sharedCount.get(), "one task waits in the shared queue");

        for (int i = 0; i < 5; i++) {
            pool.execute(recording("late-" + i, ran));
        }
        assertEquals(5, refused.get(), "refused after the select timeout: the worker's share is taken");
        assertEquals(1, queue.sharedCount.get(), "the shared queue did not grow");

        gate.countDown();
        eventually("the waiting task ran", () -> ran.size() == 1);
        pool.execute(recording("after", ran));
        eventually("a task submitted once there is room runs", () -> ran.size() == 2);
        assertEquals(List.of("waits", "after"), List.copyOf(ran));
    }

    /** The review's program: one submitter, 2,000 tasks a round, the limit at 2. */
    @ParameterizedTest
    @MethodSource(ALL)
    void aSingleWorkerAtItsLimitKeepsSubmissionOrder(String strategy) throws Exception {
        for (int round = 0; round < 5; round++) {
            TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(1).strategy(strategy)
                    .maxConcurrentTasks(2).workerSelectTimeoutMillis(60_000).build());
            List<Integer> ran = Collections.synchronizedList(new ArrayList<>());
            int n = 2_000;
            for (int i = 0; i < n; i++) {
                int id = i;
                pool.execute(() -> ran.add(id));
            }
            pool.shutdown();
            assertTrue(pool.awaitTermination(60, TimeUnit.SECONDS), "round " + round + " terminates");
            assertInOrder("round " + round + ": ", List.copyOf(ran), n);
        }
    }

    /**
     * A one-worker pool from {@code b} whose strategy answers {@code target} (the test decides
     * where each task goes), its worker held in a task until {@code gate} opens.
     */
    private TurntableExecutor heldSingleWorker(TurntableExecutor.Builder b, AtomicInteger target, CountDownLatch gate) {
        TurntableExecutor pool = cleanup.track(b.workers(1)
                .registerStrategy("FIXED", () -> new TurntableQueueWorkerExitTest.Fixed(target::get))
                .strategy("FIXED").build());
        CountDownLatch blocked = new CountDownLatch(1);
        pool.execute(new Blocker("holds the worker", blocked, gate));
        awaitLatch(blocked, "the worker is held");
        return pool;
    }

    /** Tasks 0..n-1 ran, each once, in that order; else where the order first broke. */
    private static void assertInOrder(String where, List<Integer> order, int n) {
        for (int p = 0; p < order.size(); p++) {
            if (order.get(p) != p) {
                throw new AssertionError(where + "position " + p + " ran task " + order.get(p)
                        + "; around it " + order.subList(Math.max(0, p - 2), Math.min(order.size(), p + 4)));
            }
        }
        assertEquals(n, order.size(), where + "every task ran once");
    }
}
