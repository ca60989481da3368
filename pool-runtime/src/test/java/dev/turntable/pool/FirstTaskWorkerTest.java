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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link TurntableQueue#workerStarting}: a thread ThreadPoolExecutor created with a task of its
 * own (not prestarted) is a worker of the queue while it runs that task: listed, counted,
 * recyclable; and the task is counted once, when it ends, as any other.
 */
class FirstTaskWorkerTest {

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();

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

    /**
     * A worker in its first task (a consumer loop, say) is no strategy's choice: with stealing
     * off, round robin used to queue every other task behind the loop, where no one could take
     * it (5 of 10 stranded).
     */
    @Test
    void aWorkerInItsFirstTaskIsGivenNoTasksEvenWithStealingOff() {
        TurntableQueue queue = TurntableQueue.builder().strategy("ROUND_ROBIN").taskStealing(false).expectedWorkers(2).build();
        ThreadPoolExecutor pool = cleanup.track(executorOn(queue, new CountingThreadFactory("loop")));
        CountDownLatch loop = cleanup.latch(1);
        CountDownLatch inLoop = new CountDownLatch(1);
        pool.execute(() -> {
            inLoop.countDown();
            Waits.awaitLatch(loop, "the consumer loop ends");
        });
        Waits.awaitLatch(inLoop, "loop running");
        CountDownLatch second = new CountDownLatch(1);
        pool.execute(second::countDown); // the second thread's first task
        Waits.awaitLatch(second, "second thread up");
        eventually("second thread idle in the queue", () -> queue.parkedWorkerCount() == 1);
        AtomicInteger ran = new AtomicInteger();
        for (int i = 0; i < 10; i++) {
            pool.execute(ran::incrementAndGet);
        }
        eventually("all 10 ran on the free worker while the loop runs", () -> ran.get() == 10);
        WorkerInfo looping = queue.workers().stream().filter(w -> w.running() == 1).findFirst().orElseThrow();
        assertEquals(0, looping.queued(), "nothing queued behind the loop: " + queue.workers());
    }

    /**
     * {@code max-concurrent-tasks=1}: the slot of a thread starting with a task of its own is
     * published already running it, so no submit reserves a place it does not have. It was
     * published idle and raised a moment later; a submit in between (held open here by the
     * housekeeper's lock, which a queue's first worker takes while it registers) put a second
     * task on it.
     */
    @Test
    void aFirstTaskWorkerIsNeverPublishedIdleUnderTheConcurrencyLimit() throws Exception {
        TurntableQueue queue = TurntableQueue.builder().maxConcurrentTasks(1).expectedWorkers(1).build();
        ThreadPoolExecutor pool = cleanup.track(new ThreadPoolExecutor(1, 1, 60, TimeUnit.SECONDS, queue,
                new CountingThreadFactory("limit")) {
            @Override
            protected void beforeExecute(Thread t, Runnable r) {
                queue.workerStarting(r);
            }
        });
        queue.setOwner(pool);
        java.lang.reflect.Field lockField = Housekeeper.class.getDeclaredField("LOCK");
        lockField.setAccessible(true);
        Object lock = lockField.get(null);
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread holder = new Thread(() -> {
            synchronized (lock) {
                holding.countDown();
                Waits.awaitLatch(release, "the test lets the housekeeper's lock go");
            }
        });
        holder.start();
        Waits.awaitLatch(holding, "the housekeeper's lock is held");
        CountDownLatch hold = cleanup.latch(1);
        CountDownLatch firstRunning = new CountDownLatch(1);
        pool.execute(() -> {
            firstRunning.countDown();
            Waits.awaitLatch(hold, "the test releases the first task");
        });
        eventually("the new thread's slot is attached", () -> queue.workers().size() == 1);
        AtomicInteger ranSecond = new AtomicInteger();
        pool.execute(ranSecond::incrementAndGet); // core reached: offered to the queue, limit 1
        release.countDown();
        holder.join();
        Waits.awaitLatch(firstRunning, "first task running");
        WorkerInfo w = queue.workers().get(0);
        assertTrue(w.queued() + w.running() <= 1, "max-concurrent-tasks=1 but the worker holds " + w);
        hold.countDown();
        eventually("the second task ran", () -> ranSecond.get() == 1);
    }
}
