package dev.turntable.pool;

import static dev.turntable.pool.testing.Waits.awaitLatch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.testing.Blocker;
import dev.turntable.pool.testing.PoolCleanup;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A single-worker pool runs its tasks in submission order, as {@code Executors.newSingleThreadExecutor}
 * promises, also once more tasks wait than its worker's queue holds (the rest overflow to the
 * shared queue) and across the death of its worker by a task's exception.
 */
final class SubmissionOrderTest {

    private static final String ALL = "dev.turntable.pool.testing.Params#strategies";

    private final PoolCleanup cleanup = new PoolCleanup();
    private final List<Integer> ran = java.util.Collections.synchronizedList(new ArrayList<>());

    @AfterEach
    void stopPools() {
        cleanup.close();
    }

    /** Tasks 0..n-1 ran, each once, in that order; else where the order first broke. */
    private void assertInOrder(int n) {
        List<Integer> order = new ArrayList<>(ran);
        for (int p = 0; p < order.size(); p++) {
            if (order.get(p) != p) {
                throw new AssertionError("position " + p + " ran task " + order.get(p) + "; ran "
                        + order.subList(Math.max(0, p - 3), Math.min(order.size(), p + 5)) + " around it, "
                        + order.size() + " tasks in all");
            }
        }
        assertEquals(n, order.size());
    }

    private Runnable record(int id) {
        return () -> ran.add(id);
    }

    /**
     * Tasks 0..199 wait behind a blocked worker whose queue holds 4; 200 more come while it
     * works the backlog off. Before, the worker served the shared queue first: task 4 ran
     * before task 0, and while submissions went on the overflowed ones waited behind newer.
     */
    @ParameterizedTest
    @MethodSource(ALL)
    void aSingleWorkerRunsItsTasksInSubmissionOrderBeyondItsQueuesCapacity(String strategy) throws Exception {
        TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(1).strategy(strategy)
                .workerQueueCapacity(4).build());
        CountDownLatch gate = cleanup.latch(1);
        CountDownLatch blocked = new CountDownLatch(1);
        pool.execute(new Blocker("holds the worker", blocked, gate));
        awaitLatch(blocked, "the worker is blocked");
        for (int i = 0; i < 200; i++) {
            pool.execute(record(i));
        }
        gate.countDown();
        for (int i = 200; i < 400; i++) {
            pool.execute(record(i));
        }
        pool.shutdown();
        assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
        assertInOrder(400);
    }

    /** Every tenth task throws, which ends the worker's thread; its replacement goes on in order. */
    @ParameterizedTest
    @MethodSource(ALL)
    void aSingleWorkerKeepsSubmissionOrderAcrossItsDeaths(String strategy) throws Exception {
        TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(1).strategy(strategy)
                .workerQueueCapacity(4).build());
        for (int i = 0; i < 300; i++) {
            int id = i;
            pool.execute(() -> {
                ran.add(id);
                if (id % 10 == 9) {
                    throw new IllegalStateException("task " + id + " fails on purpose");
                }
            });
        }
        pool.shutdown();
        assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
        assertInOrder(300);
    }
}
