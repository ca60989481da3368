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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A task whose chosen worker's queue is full ({@code workerQueueCapacity}) waits in the shared
 * queue, which every worker polls: with stealing off, an idle worker still runs it at once, where
 * on another busy worker's queue it could wait behind a long task, or behind a parent waiting
 * for it. A single worker's overflow waits there too (its order: {@link SubmissionOrderTest}).
 *
 * <p>Passing a full worker over for the next one with room was tried (cc77d3f, reverted): with 2
 * producers, DispatchBenchmark's no-op tasks ran slower under LEAST_BUSY (0.49x TPE against 0.71x,
 * median of 8 interleaved rounds) and WEIGHTED_ROUND_ROBIN (0.57x against 0.99x); the shared queue,
 * which later submits join without asking the strategy, was the cheaper path.
 */
class FullWorkerQueueTest {

    private static final int PLACES = 4;

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();

    @Test
    void aSingleWorkersOverflowWaitsInTheSharedQueue() {
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
        assertEquals(2, queue.sharedCount.get(), "the rest wait in the shared queue");
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
