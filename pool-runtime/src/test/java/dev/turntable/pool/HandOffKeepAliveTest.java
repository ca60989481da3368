package dev.turntable.pool;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.testing.ManualTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A hand-off pool gives back the threads a burst made, as a {@code SynchronousQueue} pool does,
 * whatever the strategy ({@link HandOffMode#housekeep}). A {@code SynchronousQueue} hands each
 * task to the worker that went idle last, so those a lighter load does not need wait out their
 * keep-alive and end. {@code ROUND_ROBIN} hands each idle worker a task in turn: before this, a
 * cached pool that grew to 200 threads in a burst kept all 200 for good under 200 tasks a
 * second (measured with a 2 s keep-alive: 201 threads 8 s later, where the JDK's pool was down
 * to 1 after 3 s).
 *
 * <p>The executors here keep idle threads for an hour, so no real keep-alive runs out during a
 * test: the housekeeper's window follows a {@link ManualTicker}, moved by hand between looks.
 */
class HandOffKeepAliveTest {

    private final ManualTicker ticker = new ManualTicker();
    private final List<ThreadPoolExecutor> pools = new ArrayList<>();

    @AfterEach
    void shutDown() throws InterruptedException {
        for (ThreadPoolExecutor p : pools) {
            p.shutdownNow();
            p.awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    private TurntableQueue handOffQueue(String strategy) {
        return TurntableQueue.builder().handOff().strategy(strategy).ticker(ticker).build();
    }

    private ThreadPoolExecutor pool(int core, TurntableQueue queue) {
        ThreadPoolExecutor p = new ThreadPoolExecutor(core, Integer.MAX_VALUE, 1, TimeUnit.HOURS, queue);
        queue.setOwner(p);
        pools.add(p);
        return p;
    }

    /** Runs {@code n} tasks that all hold a thread at once, so the pool grows to {@code n} at least, then lets them end. */
    private static void burst(ThreadPoolExecutor pool, TurntableQueue queue, int n) throws InterruptedException {
        holdThenRelease(pool, n, () -> { });
        awaitIdle(pool, queue);
    }

    /** {@code n} tasks that all hold a thread at once; {@code beforeRelease} runs once all of them do, then they end. */
    private static void holdThenRelease(ThreadPoolExecutor pool, int n, Runnable beforeRelease) throws InterruptedException {
        CountDownLatch in = new CountDownLatch(n);
        CountDownLatch go = new CountDownLatch(1);
        for (int i = 0; i < n; i++) {
            pool.execute(() -> {
                in.countDown();
                awaitQuietly(go);
            });
        }
        in.await();
        beforeRelease.run();
        go.countDown();
    }

    /** Until every thread of the pool is back in the queue, waiting for a task. */
    private static void awaitIdle(ThreadPoolExecutor pool, TurntableQueue queue) {
        await().atMost(Duration.ofSeconds(10)).until(() -> pool.getActiveCount() == 0
                && queue.workers().stream().filter(w -> w.state().equals("AVAILABLE") && w.running() == 0).count()
                        == pool.getPoolSize());
    }

    /** Until no worker the queue lists is running a task (one may be leaving meanwhile). */
    private static void awaitNoneRunning(TurntableQueue queue) {
        await().atMost(Duration.ofSeconds(10)).until(() -> queue.workers().stream().allMatch(w -> w.running() == 0));
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void aCachedPoolThatRoundRobinSpreadsATrickleOverShrinksBackAfterABurst() throws Exception {
        TurntableQueue queue = handOffQueue("ROUND_ROBIN");
        ThreadPoolExecutor pool = pool(0, queue);
        burst(pool, queue, 8);
        assertEquals(8, pool.getPoolSize());

        // One task at a time, five minutes apart on the housekeeper's clock, for two hours: every
        // idle worker stays idle at nearly every look, and the load never needs more than one.
        AtomicLong ran = new AtomicLong();
        for (int step = 0; step < 24; step++) {
            pool.submit(ran::incrementAndGet).get(10, TimeUnit.SECONDS);
            awaitNoneRunning(queue);
            queue.housekeep();
            ticker.advanceMillis(TimeUnit.MINUTES.toMillis(5));
        }
        // One thread, as a SynchronousQueue pool keeps; or two, when the housekeeper thread's
        // own look (every 100 ms) caught a worker in the microseconds between a task's end and
        // its return to the queue, and counted it as needed.
        await().atMost(Duration.ofSeconds(10)).until(() -> pool.getPoolSize() <= 2);
        assertEquals(24, ran.get());
        // Those left serve on, and no thread was made for it.
        assertEquals("still here", pool.submit(() -> "still here").get(10, TimeUnit.SECONDS));
        assertTrue(pool.getPoolSize() <= 2, "pool size " + pool.getPoolSize());
    }

    @Test
    void workersBusyAtEveryLookAreKeptAndOnlyTheIdleOnesAreSpared() throws Exception {
        TurntableQueue queue = handOffQueue("ROUND_ROBIN");
        ThreadPoolExecutor pool = pool(0, queue);
        burst(pool, queue, 5);
        CountDownLatch release = new CountDownLatch(1);
        AtomicLong finished = new AtomicLong();
        for (int i = 0; i < 3; i++) {
            pool.execute(() -> {
                awaitQuietly(release);
                finished.incrementAndGet();
            });
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> pool.getActiveCount() == 3);
        assertEquals(5, pool.getPoolSize(), "the three long tasks went to idle workers");

        // Two idle at every look for more than the keep-alive: both go, in the first window if
        // it began after the long tasks started (the housekeeper thread looks too), else one in
        // it (a task started meanwhile: one is kept, as a SynchronousQueue keeps the worker
        // that ran it) and the other in the next.
        for (int step = 0; step < 30; step++) {
            queue.housekeep();
            ticker.advanceMillis(TimeUnit.MINUTES.toMillis(5));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> pool.getPoolSize() == 3);
        assertEquals(0, finished.get(), "the busy workers were left to their tasks");
        release.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> finished.get() == 3);
        assertEquals(3, pool.getPoolSize());
    }

    @Test
    void aPoolThatFoundNoIdleWorkerMeanwhileSparesNone() throws Exception {
        TurntableQueue queue = handOffQueue("ROUND_ROBIN");
        ThreadPoolExecutor pool = pool(0, queue);
        burst(pool, queue, 2);
        for (int step = 0; step < 15; step++) {
            queue.housekeep();
            ticker.advanceMillis(TimeUnit.MINUTES.toMillis(5));
            if (step == 10) {
                // Three tasks at once on two idle workers: the third found none idle, and the
                // executor made a thread for it, between two looks that both saw two idle.
                burst(pool, queue, 3);
            }
        }
        // A worker spared shows DRAINING from the moment it is flagged, before its thread leaves.
        assertEquals(List.of("AVAILABLE", "AVAILABLE", "AVAILABLE"),
                queue.workers().stream().map(WorkerInfo::state).toList(),
                "the window started again at the miss, 15 minutes before the last look");
        assertEquals(3, pool.getPoolSize());
    }

    @Test
    void aPoolDownToItsCoreSizeKeepsItsCoreThreadsServing() throws Exception {
        TurntableQueue queue = handOffQueue("ROUND_ROBIN");
        ThreadPoolExecutor pool = pool(2, queue);
        pool.prestartAllCoreThreads();
        burst(pool, queue, 6);
        for (int step = 0; step < 15; step++) {
            queue.housekeep();
            ticker.advanceMillis(TimeUnit.MINUTES.toMillis(5));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> pool.getPoolSize() == 2);
        // The two the executor kept were flagged too (the pool was above its core size when the
        // housekeeper looked); they are back as ordinary workers, chosen again.
        awaitIdle(pool, queue);
        assertEquals(2, queue.workers().stream().filter(w -> w.state().equals("AVAILABLE")).count());
        Future<String> f = pool.submit(() -> "served");
        assertEquals("served", f.get(10, TimeUnit.SECONDS));
    }

    @Test
    void aCoreThreadFlaggedByALookThatSawItTimedIsChosenAgain() throws Exception {
        TurntableQueue queue = handOffQueue("ROUND_ROBIN");
        ThreadPoolExecutor pool = pool(1, queue);
        pool.prestartAllCoreThreads();
        awaitIdle(pool, queue);
        WorkerSlot core = queue.slots[0];
        // The look reads the keep-alive a moment before the thread went back to take() (the pool
        // had just come down to its core size): as if the thread still waited timed.
        core.keepAliveNanos = 1L;
        queue.housekeep();
        ticker.advanceMillis(1);
        queue.housekeep(); // a whole "keep-alive" with it idle: flagged, and unparked
        // Its untimed wait drops the stale flag; before, it stayed DRAINING for good, and every
        // hand-off found no idle worker (a bounded pool rejected, a cached one made threads).
        await().atMost(Duration.ofSeconds(10)).until(() -> queue.workers().get(0).state().equals("AVAILABLE"));
        assertEquals("served", pool.submit(() -> "served").get(10, TimeUnit.SECONDS));
        assertEquals(1, pool.getLargestPoolSize(), "the core thread took the task: no thread was made for it");
    }

    @Test
    void everyWorkerFlaggedAsItGoesIdleLeavesPromptly() throws Exception {
        // The housekeeper looks (and flags) while 48 workers come back from a burst: a worker
        // flagged between its last read of its flags and its park must still be woken to leave,
        // not sleep out its hour of keep-alive, unchoosable, while the executor counts it.
        for (int round = 0; round < 8; round++) {
            TurntableQueue queue = handOffQueue("ROUND_ROBIN");
            ThreadPoolExecutor pool = pool(0, queue);
            AtomicBoolean done = new AtomicBoolean();
            Thread looks = new Thread(() -> {
                while (!done.get()) {
                    queue.housekeep();
                    ticker.advanceMillis(TimeUnit.HOURS.toMillis(2));
                }
            });
            holdThenRelease(pool, 48, looks::start); // all 48 go idle at once while the looks run
            await().atMost(Duration.ofSeconds(10)).until(() -> pool.getActiveCount() == 0);
            done.set(true);
            looks.join();
            int r = round;
            await().atMost(Duration.ofSeconds(10)).until(() -> flaggedAttached(queue) == 0);
            assertEquals(0, flaggedAttached(queue), "round " + r);
        }
    }

    private static int flaggedAttached(TurntableQueue queue) {
        int n = 0;
        for (WorkerSlot s : queue.slots) {
            if (s.state == WorkerSlot.ATTACHED && (s.flags & WorkerSlot.SURPLUS) != 0) {
                n++;
            }
        }
        return n;
    }

    @Test
    void aQueueWithoutAnExecutorNeverCutsAConsumersPollShort() throws Exception {
        TurntableQueue queue = handOffQueue("ROUND_ROBIN"); // no setOwner: a plain consumer's queue
        java.util.concurrent.atomic.AtomicReference<Object> got = new java.util.concurrent.atomic.AtomicReference<>();
        Thread consumer = new Thread(() -> {
            try {
                Runnable r = queue.poll(1, TimeUnit.HOURS);
                got.set(r == null ? "null" : r);
            } catch (InterruptedException e) {
                got.set("interrupted");
            }
        });
        consumer.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> queue.workers().size() == 1
                && queue.workers().get(0).state().equals("AVAILABLE"));
        for (int step = 0; step < 5; step++) {
            queue.housekeep();
            ticker.advanceMillis(TimeUnit.HOURS.toMillis(2));
        }
        assertEquals("AVAILABLE", queue.workers().get(0).state(), "not spared: BlockingQueue.poll waits its whole time");
        Runnable task = () -> { };
        assertTrue(queue.offer(task));
        consumer.join(10_000);
        assertEquals(task, got.get());
    }

    @Test
    void aPoolBackToOneThreadAfterABurstShowsItsStrategyOnlyTheSlotsUpToItsLiveOnes() throws Exception {
        // A strategy of one's own that records how many workers each choice is shown: every one
        // a choice may read, on every submit.
        java.util.concurrent.atomic.AtomicInteger lastCount = new java.util.concurrent.atomic.AtomicInteger();
        TurntableQueue queue = TurntableQueue.builder().handOff().ticker(ticker)
                .registerStrategy("COUNTING", () -> new dev.turntable.pool.strategy.WorkerChoiceStrategy() {
                    private final dev.turntable.pool.strategy.RoundRobin inner = new dev.turntable.pool.strategy.RoundRobin();

                    @Override
                    public String name() {
                        return "COUNTING";
                    }

                    @Override
                    public java.util.Set<dev.turntable.pool.strategy.Statistic> requiredStatistics() {
                        return java.util.Set.of();
                    }

                    @Override
                    public int choose(dev.turntable.pool.strategy.WorkerView workers, long nowNanos) {
                        lastCount.set(workers.count());
                        return inner.choose(workers, nowNanos);
                    }
                })
                .strategy("COUNTING").build();
        ThreadPoolExecutor pool = pool(0, queue);
        burst(pool, queue, 40);
        pool.submit(() -> { }).get(10, TimeUnit.SECONDS);
        assertEquals(40, lastCount.get(), "forty threads: forty slots to choose from");
        for (int step = 0; step < 30 && pool.getPoolSize() > 1; step++) {
            pool.submit(() -> { }).get(10, TimeUnit.SECONDS);
            awaitNoneRunning(queue);
            queue.housekeep();
            ticker.advanceMillis(TimeUnit.MINUTES.toMillis(10));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> pool.getPoolSize() <= 2);
        int live = pool.getPoolSize();
        await().atMost(Duration.ofSeconds(10)).until(() -> queue.workers().stream()
                .filter(w -> !w.state().equals("RETIRED")).count() <= live); // the leavers' slots freed
        pool.submit(() -> { }).get(10, TimeUnit.SECONDS);
        int highestHeld = -1;
        for (WorkerInfo w : queue.workers()) {
            if (!w.state().equals("RETIRED")) {
                highestHeld = w.index();
            }
        }
        assertEquals(highestHeld + 1, lastCount.get(),
                "the choice is shown the slots up to the highest one a thread holds, not the 40 the burst left");
    }

    @Test
    void noTaskIsLostOrRunTwiceWhileWorkersAreSparedUnderLoad() throws Exception {
        TurntableQueue queue = handOffQueue("ROUND_ROBIN");
        ThreadPoolExecutor pool = pool(0, queue);
        int submitters = 4;
        int perSubmitter = 20_000;
        AtomicIntegerArray runs = new AtomicIntegerArray(submitters * perSubmitter);
        AtomicBoolean done = new AtomicBoolean();
        // The housekeeper's clock races ahead: every look may end a window and spare workers,
        // some of them being reserved for a task at that moment.
        Thread housekeeping = new Thread(() -> {
            while (!done.get()) {
                queue.housekeep();
                ticker.advanceMillis(TimeUnit.MINUTES.toMillis(20));
                Thread.onSpinWait();
            }
        });
        housekeeping.start();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < submitters; t++) {
            int base = t * perSubmitter;
            Thread th = new Thread(() -> {
                for (int i = 0; i < perSubmitter; i++) {
                    int id = base + i;
                    pool.execute(() -> runs.incrementAndGet(id));
                    if ((i & 63) == 0) {
                        Thread.yield(); // lets workers go idle, and be spared, between bursts
                    }
                }
            });
            threads.add(th);
            th.start();
        }
        for (Thread th : threads) {
            th.join();
        }
        pool.shutdown();
        boolean terminated = pool.awaitTermination(30, TimeUnit.SECONDS);
        done.set(true);
        housekeeping.join();
        assertTrue(terminated, "the pool terminated");
        int lost = 0;
        int twice = 0;
        for (int i = 0; i < runs.length(); i++) {
            lost += runs.get(i) == 0 ? 1 : 0;
            twice += runs.get(i) > 1 ? 1 : 0;
        }
        assertEquals(0, lost, "tasks never run");
        assertEquals(0, twice, "tasks run more than once");
        assertEquals(submitters * perSubmitter, pool.getCompletedTaskCount());
    }
}
