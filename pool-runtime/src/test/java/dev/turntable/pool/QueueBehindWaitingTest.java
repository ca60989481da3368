package dev.turntable.pool;

import static dev.turntable.pool.testing.NamedTask.recording;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.testing.PoolCleanup;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What {@code TurntableExecutor.execute}, and the agent when a pool it manages is about to make a
 * core thread for a task, ask the engine first ({@link TurntableQueue#queueBehindWaiting}): for a
 * single-worker pool, whose order is promised, the task queues behind the tasks waiting (so it
 * does not run ahead of them on a new thread) and a thread is started to take them; otherwise
 * nothing changes, so the pool keeps ThreadPoolExecutor's own growth and refusals. A plain
 * ThreadPoolExecutor stands in for the pool; tasks offered before it has a thread wait in the
 * shared queue, as a departed worker's do.
 */
final class QueueBehindWaitingTest {

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();
    private final List<String> ran = Collections.synchronizedList(new ArrayList<>());

    private Runnable task(String name) {
        return recording(name, ran);
    }

    private ThreadPoolExecutor pool(int core, TurntableQueue queue) {
        return cleanup.track(new ThreadPoolExecutor(core, Math.max(1, core), 1, TimeUnit.MINUTES, queue));
    }

    @Test
    void aTaskForANewThreadQueuesBehindTheTasksWaitingAndRunsAfterThem() throws Exception {
        TurntableQueue queue = TurntableQueue.builder().build();
        ThreadPoolExecutor pool = pool(1, queue);
        queue.offer(task("left-0")); // as a retiree leaves its tasks: waiting, no worker yet
        queue.offer(task("left-1"));
        assertTrue(queue.queueBehindWaiting(pool, task("new")));
        assertEquals(1, pool.getPoolSize(), "a core thread without a task of its own was started to take them");
        pool.shutdown();
        assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
        assertEquals(List.of("left-0", "left-1", "new"), ran);
    }

    @Test
    void aCoreSizeLoweredToZeroAsTheTaskIsQueuedHandsItBackToExecuteWhichStartsAThread() throws Exception {
        TurntableQueue queue = TurntableQueue.builder().build();
        // Another thread lowers the core size between the engine's look and its thread start.
        ThreadPoolExecutor pool = cleanup.track(new ThreadPoolExecutor(1, 1, 1, TimeUnit.MINUTES, queue) {
            @Override
            public boolean prestartCoreThread() {
                setCorePoolSize(0);
                return super.prestartCoreThread();
            }
        });
        queue.offer(task("left-0"));
        assertFalse(queue.queueBehindWaiting(pool, task("new")), "no thread would ever take it");
        assertEquals("[left-0]", queue.toString(), "taken back, for execute's own steps");
        pool.execute(task("new")); // ThreadPoolExecutor starts a thread when none is left, whatever the core size
        pool.shutdown();
        assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
        assertEquals(List.of("left-0", "new"), ran);
    }

    @Test
    void aThreadThatCannotStartLeavesTheTaskToExecuteWhichFailsAsItWould() {
        TurntableQueue queue = TurntableQueue.builder().build();
        ThreadPoolExecutor pool = cleanup.track(new ThreadPoolExecutor(1, 1, 1, TimeUnit.MINUTES, queue, r -> {
            throw new IllegalStateException("no threads left");
        }));
        queue.offer(task("left-0"));
        assertFalse(queue.queueBehindWaiting(pool, task("new")));
        assertEquals("[left-0]", queue.toString(), "not accepted: the caller's execute decides, and throws");
    }

    @Test
    void aPoolOfMoreWorkersKeepsThreadPoolExecutorsGrowth() {
        TurntableQueue queue = TurntableQueue.builder().build();
        ThreadPoolExecutor pool = cleanup.track(new ThreadPoolExecutor(2, 2, 1, TimeUnit.MINUTES, queue));
        queue.offer(task("left-0"));
        assertFalse(queue.queueBehindWaiting(pool, task("new")), "no order across workers to keep: a thread of its own");
        assertEquals("[left-0]", queue.toString());
        assertEquals(0, pool.getPoolSize());
    }

    @Test
    void withNothingWaitingTheTaskGoesToItsNewThreadAsThreadPoolExecutorHandsIt() {
        TurntableQueue queue = TurntableQueue.builder().build();
        ThreadPoolExecutor pool = pool(1, queue);
        assertFalse(queue.queueBehindWaiting(pool, task("new")), "it overtakes nothing");
        assertEquals(0, queue.size());
        assertEquals(0, pool.getPoolSize(), "no thread started for it: execute makes the task's own");
    }

    @Test
    void aBoundedSingleWorkerWithNothingWaitingGivesTheTaskAThreadOfItsOwnAndKeepsThePlace() {
        TurntableQueue queue = TurntableQueue.builder().bounded(1).build();
        assertFalse(queue.queueBehindWaiting(pool(1, queue), task("new")));
        assertEquals(1, queue.remainingCapacity());
    }

    @Test
    void aShutDownPoolQueuesNothingAndRejectsAsBefore() {
        TurntableQueue queue = TurntableQueue.builder().build();
        ThreadPoolExecutor pool = pool(1, queue);
        queue.offer(task("left-0"));
        pool.shutdown();
        assertFalse(queue.queueBehindWaiting(pool, task("late")));
        assertEquals("[left-0]", queue.toString());
    }

    @Test
    void handOffQueuesAndCoreSizeZeroAreLeftToThreadPoolExecutor() {
        TurntableQueue handOff = TurntableQueue.builder().handOff().build();
        assertFalse(handOff.queueBehindWaiting(pool(1, handOff), task("new")), "hand-off: no backlog to keep order in");

        TurntableQueue noCore = TurntableQueue.builder().build();
        ThreadPoolExecutor noCorePool = pool(0, noCore);
        noCore.offer(task("left-0"));
        assertFalse(noCore.queueBehindWaiting(noCorePool, task("new")));
        assertEquals(1, noCore.size());
    }

    /**
     * With {@code max-concurrent-tasks}, a task waiting in the shared queue (no worker was there
     * for it: a departed worker's tasks wait there too) is not overtaken: the new one joins it
     * without waiting for a place, and a thread is started. (Left to execute, a retirement every
     * 10 tasks let a task run ahead of the retiree's: [8, 9, 170, 10].)
     */
    @Test
    void withAConcurrencyLimitATaskQueuesBehindTheSharedQueuesTasks() throws Exception {
        TurntableQueue limited = TurntableQueue.builder().maxConcurrentTasks(2).build();
        ThreadPoolExecutor limitedPool = pool(1, limited);
        limited.offer(task("left-0")); // no worker attached: the shared queue
        assertEquals(1, limited.sharedCount.get(), "left-0 waits in the shared queue");
        assertTrue(limited.queueBehindWaiting(limitedPool, task("new")), "queued behind it");
        assertEquals(1, limitedPool.getPoolSize(), "a core thread without a task of its own was started to take them");
        limitedPool.shutdown();
        assertTrue(limitedPool.awaitTermination(30, TimeUnit.SECONDS));
        assertEquals(List.of("left-0", "new"), ran);
    }

    @Test
    void aFullBoundedQueueLeavesTheTaskToThreadPoolExecutorWhichGrowsOrRejects() {
        TurntableQueue queue = TurntableQueue.builder().bounded(1).build();
        ThreadPoolExecutor pool = pool(1, queue);
        assertTrue(queue.offer(task("left-0")));
        assertFalse(queue.queueBehindWaiting(pool, task("new")));
        assertEquals("[left-0]", queue.toString());
    }
}
