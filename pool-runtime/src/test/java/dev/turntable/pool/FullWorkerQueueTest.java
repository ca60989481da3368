package dev.turntable.pool;

import static dev.turntable.pool.testing.Waits.awaitLatch;
import static dev.turntable.pool.testing.Waits.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.turntable.pool.testing.PoolCleanup;
import dev.turntable.pool.testing.TaskLog;
import dev.turntable.pool.testing.Waits;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A task whose chosen worker's queue is full ({@code workerQueueCapacity}) goes, with stealing on,
 * to another worker with room, and to the shared queue only when every worker's queue is full:
 * one overflowed task sends every later submit to the shared queue until it drains, so
 * overflowing while a worker had room made a strategy that favours one worker (a weighted turn,
 * a least-busy catch-up) push most of a busy pool's tasks through it. With stealing off it goes
 * to the shared queue, where any idle worker runs it: on another worker's queue it could wait
 * behind a long task, or a parent waiting there for it.
 */
class FullWorkerQueueTest {

    private static final int PLACES = 4;

    private final PoolCleanup cleanup = new PoolCleanup();

    @AfterEach
    void stopPools() {
        cleanup.close();
    }

    @Test
    void aTaskForAFullWorkerQueuesOnAWorkerWithRoomAndOnlyThenInTheSharedQueue() {
        TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(2).workerQueueCapacity(PLACES)
                .registerStrategy("FIXED", () -> new TurntableQueueWorkerExitTest.Fixed(0)).strategy("FIXED").build());
        // Worker 0 always, available or not: the strongest preference a strategy can have.
        TurntableQueue queue = pool.getTurntableQueue();
        int tasks = 2 * PLACES + 1;
        TaskLog log = new TaskLog(2 + tasks);
        // Both workers held: the second gated task, queued on worker 0 behind the first, is
        // stolen by the idle worker 1 (stealing is on by default).
        CountDownLatch gate = new CountDownLatch(1);
        pool.execute(log.gated(0, gate));
        pool.execute(log.gated(1, gate));
        eventually("both workers hold a gated task: " + queue.workers(), () -> log.started() == 2);

        for (int i = 0; i < 2 * PLACES; i++) {
            pool.execute(log.task(2 + i));
        }
        assertEquals(List.of(PLACES, PLACES), queued(queue),
                "worker 0's queue filled, then worker 1's took the rest; workers " + queue.workers());
        assertEquals(0, queue.sharedCount.get(), "no task overflowed while a worker had room");

        pool.execute(log.task(2 + 2 * PLACES));
        assertEquals(1, queue.sharedCount.get(), "with every worker's queue full, the task waits in the shared queue");
        assertEquals(tasks, queue.size(), "the queue counts every waiting task, wherever it waits");

        gate.countDown();
        awaitLatch(log.finished(), "every task to finish");
        assertEquals(List.of(), log.notExactlyOnce(), "every task ran exactly once");
    }

    @Test
    void aSingleWorkerPoolHasNoOtherWorkerAndOverflowsToTheSharedQueue() {
        TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(1).workerQueueCapacity(PLACES).build());
        TurntableQueue queue = pool.getTurntableQueue();
        TaskLog log = new TaskLog(1 + PLACES + 2);
        CountDownLatch gate = new CountDownLatch(1);
        pool.execute(log.gated(0, gate));
        eventually("the worker holds the gated task", () -> log.started() == 1);
        for (int i = 1; i < log.size(); i++) {
            pool.execute(log.task(i));
        }
        assertEquals(List.of(PLACES), queued(queue), "the worker's queue is full; workers " + queue.workers());
        assertEquals(2, queue.sharedCount.get(), "the rest wait in the shared queue, with no other worker to go to");
        gate.countDown();
        awaitLatch(log.finished(), "every task to finish");
        assertEquals(List.of(), log.notExactlyOnce(), "every task ran exactly once");
    }

    @Test
    void withStealingOffAnOverflowingTaskWaitsWhereAnIdleWorkerRunsItNotBehindABusyOne() {
        // The strategy answers whichever worker the test sets: it decides where each task goes.
        AtomicInteger target = new AtomicInteger();
        TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(3).workerQueueCapacity(PLACES)
                .taskStealing(false).registerStrategy("FIXED", () -> new TurntableQueueWorkerExitTest.Fixed(target::get))
                .strategy("FIXED").build());
        TurntableQueue queue = pool.getTurntableQueue();
        TaskLog log = new TaskLog(1 + PLACES);
        CountDownLatch gate = cleanup.latch(1);

        // Worker 0 busy, its queue full.
        target.set(0);
        pool.execute(log.gated(0, gate));
        eventually("worker 0 holds the gated task", () -> log.started() == 1);
        for (int i = 1; i <= PLACES; i++) {
            pool.execute(log.task(i));
        }
        assertEquals(PLACES, queue.workers().get(0).queued(), "worker 0's queue is full: " + queue.workers());

        // Worker 1 runs a parent that waits for its child; worker 2 is idle.
        target.set(1);
        CountDownLatch parentStarted = new CountDownLatch(1);
        CountDownLatch childRan = new CountDownLatch(1);
        CountDownLatch parentDone = new CountDownLatch(1);
        pool.execute(() -> {
            parentStarted.countDown();
            Waits.awaitIgnoringInterrupts(childRan);
            parentDone.countDown();
        });
        awaitLatch(parentStarted, "the parent to start on worker 1");

        // The child, for full worker 0: not pinned behind the parent on worker 1.
        target.set(0);
        pool.execute(childRan::countDown);
        awaitLatch(childRan, "the child to run on the idle worker 2 (stealing off); workers " + queue.workers()
                + ", shared " + queue.sharedCount.get());
        awaitLatch(parentDone, "the parent to end");
        gate.countDown();
        awaitLatch(log.finished(), "worker 0's tasks to finish");
        assertEquals(List.of(), log.notExactlyOnce(), "every task ran exactly once");
    }

    private static List<Integer> queued(TurntableQueue queue) {
        return queue.workers().stream().map(WorkerInfo::queued).toList();
    }
}
