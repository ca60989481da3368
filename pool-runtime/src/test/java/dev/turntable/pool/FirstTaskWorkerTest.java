package dev.turntable.pool;

import static dev.turntable.pool.testing.Waits.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.testing.CountingThreadFactory;
import dev.turntable.pool.testing.PoolCleanup;
import dev.turntable.pool.testing.Waits;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link TurntableQueue#workerStarting}: a thread ThreadPoolExecutor created with a task of its
 * own (not prestarted) is a worker of the queue while it runs that task: listed, counted,
 * recyclable; and the task is counted once, when it ends, as any other.
 */
class FirstTaskWorkerTest {

    private final PoolCleanup cleanup = new PoolCleanup();

    @AfterEach
    void stopPools() {
        cleanup.close();
    }

    /** A plain executor of one's own that tells the queue about each thread's first task. */
    private static ThreadPoolExecutor executorOn(TurntableQueue queue, CountingThreadFactory threads) {
        return executorOn(queue, threads, 2, 2);
    }

    private static ThreadPoolExecutor executorOn(TurntableQueue queue, CountingThreadFactory threads, int core, int max) {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(core, max, 60, TimeUnit.SECONDS, queue, threads) {
            @Override
            protected void beforeExecute(Thread t, Runnable r) {
                queue.workerStarting(r);
            }

            @Override
            protected void afterExecute(Runnable r, Throwable t) {
                if (t != null) {
                    queue.workerExiting();
                }
            }
        };
        queue.setOwner(pool);
        return pool;
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"fixed", "cached"})
    void threadsInTheirFirstTasksAreWorkersRunningThem(String kind) throws InterruptedException {
        boolean cached = kind.equals("cached"); // hand-off: every new thread starts with a task of its own
        TurntableQueue queue = cached ? TurntableQueue.builder().handOff().expectedWorkers(4).build()
                : TurntableQueue.builder().expectedWorkers(2).build();
        CountingThreadFactory threads = new CountingThreadFactory("first");
        ThreadPoolExecutor pool = cleanup.track(cached ? executorOn(queue, threads, 0, 64) : executorOn(queue, threads));
        CountDownLatch hold = cleanup.latch(1);
        CountDownLatch inside = new CountDownLatch(2);
        AtomicInteger ran = new AtomicInteger();
        for (int i = 0; i < 2; i++) {
            pool.execute(() -> {
                inside.countDown();
                Waits.awaitLatch(hold, "test releases the first tasks");
                ran.incrementAndGet();
            });
        }
        Waits.awaitLatch(inside, "both first tasks running");
        List<WorkerInfo> workers = queue.workers();
        assertEquals(2, workers.size(), "both threads are workers while in their first tasks: " + workers);
        for (WorkerInfo w : workers) {
            assertEquals(1, w.running(), "running its first task: " + w);
            assertEquals(0, w.queued(), w.toString());
            assertTrue(w.threadName().startsWith("first"), "one of the pool's threads: " + w);
        }
        assertEquals(0, queue.size(), "a first task never was in the queue");

        hold.countDown();
        if (cached) {
            // the two threads are hand-off targets once their first tasks end
            eventually("both waiting for a hand-off", () -> queue.workers().stream().allMatch(w -> w.running() == 0));
        }
        for (int i = 0; i < 20; i++) {
            pool.execute(ran::incrementAndGet);
        }
        eventually("all ran", () -> ran.get() == 22);
        eventually("each task counted once as completed",
                () -> queue.workers().stream().mapToLong(WorkerInfo::completed).sum() == 22);
        if (!cached) {
            assertEquals(2, threads.created(), "no thread more");
        }
    }
}
