package dev.turntable.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.testing.PoolCleanup;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What the agent asks the engine when a pool it manages is about to make a core thread for a
 * task ({@link TurntableQueue#queueBehindWaiting}): the task queues behind tasks already waiting
 * (so it does not run ahead of them on the new thread), and otherwise nothing changes, so the
 * pool keeps ThreadPoolExecutor's own growth and refusals. A plain ThreadPoolExecutor stands in
 * for the managed pool; its threads start only when the test says.
 */
final class QueueBehindWaitingTest {

    private final PoolCleanup cleanup = new PoolCleanup();
    private final List<String> ran = Collections.synchronizedList(new ArrayList<>());

    @AfterEach
    void stopPools() {
        cleanup.close();
    }

    private Runnable task(String name) {
        return new Runnable() {
            @Override
            public void run() {
                ran.add(name);
            }

            @Override
            public String toString() {
                return name;
            }
        };
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
        assertEquals("[left-0, left-1, new]", queue.toString());
        assertEquals(0, pool.getPoolSize(), "the caller starts the thread, not the engine");
        pool.prestartCoreThread();
        pool.shutdown();
        assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
        assertEquals(List.of("left-0", "left-1", "new"), ran);
    }

    @Test
    void withNothingWaitingTheTaskGoesToItsNewThreadAsThreadPoolExecutorHandsIt() {
        TurntableQueue queue = TurntableQueue.builder().build();
        assertFalse(queue.queueBehindWaiting(pool(1, queue), task("new")));
        assertEquals(0, queue.size());
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
    void handOffQueuesAConcurrencyLimitAndCoreSizeZeroAreLeftToThreadPoolExecutor() {
        TurntableQueue handOff = TurntableQueue.builder().handOff().build();
        assertFalse(handOff.queueBehindWaiting(pool(1, handOff), task("new")), "hand-off: no backlog to keep order in");

        TurntableQueue limited = TurntableQueue.builder().maxConcurrentTasks(2).build();
        ThreadPoolExecutor limitedPool = pool(1, limited);
        limited.offer(task("left-0"));
        assertFalse(limited.queueBehindWaiting(limitedPool, task("new")), "a limited offer may wait; execute's own path");
        assertEquals(1, limited.size());

        TurntableQueue noCore = TurntableQueue.builder().build();
        ThreadPoolExecutor noCorePool = pool(0, noCore);
        noCore.offer(task("left-0"));
        assertFalse(noCore.queueBehindWaiting(noCorePool, task("new")));
        assertEquals(1, noCore.size());
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
