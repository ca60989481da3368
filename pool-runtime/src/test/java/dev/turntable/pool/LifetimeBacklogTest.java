package dev.turntable.pool;

import static dev.turntable.pool.testing.Waits.awaitLatch;
import static dev.turntable.pool.testing.Waits.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.testing.Blocker;
import dev.turntable.pool.testing.PoolCleanup;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Worker lifetimes against a backlog, as the application sees it: lifetimes bound how many tasks
 * a thread runs, never how many tasks the pool accepts. A burst larger than what the workers may
 * still take before they retire is queued (an unbounded pool never refuses or stalls a submit),
 * and a pool that was shut down with a backlog keeps renewing its threads while it drains it.
 */
final class LifetimeBacklogTest {

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();

    /** Counts each task's runs, and the tasks each thread ran. */
    private static final class Ledger {
        final AtomicIntegerArray runs;
        final Map<String, AtomicInteger> perThread = new ConcurrentHashMap<>();

        Ledger(int tasks) {
            runs = new AtomicIntegerArray(tasks);
        }

        Runnable task(int k) {
            return () -> {
                runs.incrementAndGet(k);
                countThread();
            };
        }

        void countThread() {
            perThread.computeIfAbsent(Thread.currentThread().getName(), x -> new AtomicInteger()).incrementAndGet();
        }

        void assertEachRanOnce() {
            List<Integer> wrong = new ArrayList<>();
            for (int k = 0; k < runs.length(); k++) {
                if (runs.get(k) != 1) {
                    wrong.add(k);
                }
            }
            assertEquals(List.of(), wrong, "tasks that did not run exactly once");
        }

        /** Until every task has run at least once (then the pool is idle but for what runs twice). */
        void awaitAllRan(TurntableExecutor pool) {
            eventually("all " + runs.length() + " tasks ran: " + pool, () -> {
                for (int k = 0; k < runs.length(); k++) {
                    if (runs.get(k) == 0) {
                        return false;
                    }
                }
                return true;
            });
        }

        int mostOnOneThread() {
            return perThread.values().stream().mapToInt(AtomicInteger::get).max().orElse(0);
        }
    }

    /** Both workers held in a task (counted in the ledger) until {@code release} opens. */
    private void occupyBoth(TurntableExecutor pool, Ledger ledger, CountDownLatch release) {
        TurntableExecutorLifetimeTest.awaitAllWorkersUp(pool, 2);
        CountDownLatch started = new CountDownLatch(2);
        for (int i = 0; i < 2; i++) {
            pool.execute(() -> {
                ledger.countThread();
                started.countDown();
                awaitLatch(release, "release");
            });
        }
        awaitLatch(started, "both workers busy");
    }

    /** Submits tasks {@code 0 .. tasks - 1}; returns the refused ones' numbers (and the first refusal's message). */
    private static List<String> submitAll(TurntableExecutor pool, Ledger ledger, int tasks) {
        List<String> refused = new ArrayList<>();
        for (int k = 0; k < tasks; k++) {
            try {
                pool.execute(ledger.task(k));
            } catch (RejectedExecutionException e) {
                refused.add(refused.isEmpty() ? k + " (" + e.getMessage() + ")" : Integer.toString(k));
            }
        }
        return refused;
    }

    /**
     * Two workers with 20 tasks of lifetime each, both busy, and 200 tasks submitted: far more than
     * they may take before retiring. Each is accepted at once (the select timeout is 1 ms, so a
     * submit that waited for a replacement would be refused), each runs once, and no thread runs
     * more than 20: the later tasks wait for the replacements, which run them.
     */
    @Test
    void aBurstBeyondTheWorkersRemainingLifetimesIsQueuedNotRefused() throws Exception {
        TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(2)
                .maxLifetimeTasks(20).workerSelectTimeoutMillis(1).build());
        Ledger ledger = new Ledger(200);
        CountDownLatch release = cleanup.latch(1);
        occupyBoth(pool, ledger, release);

        List<String> refused = submitAll(pool, ledger, 200);

        assertEquals(List.of(), refused, "an unbounded pool refused tasks because its workers had used up their lifetimes");
        release.countDown();
        ledger.awaitAllRan(pool);
        ledger.assertEachRanOnce();
        assertTrue(ledger.mostOnOneThread() <= 20, "a thread ran more than its lifetime: " + ledger.perThread);
        assertTrue(pool.getTurntableQueue().getRetiredWorkerCount() >= 8,
                "the backlog was run by replacements: " + pool.getTurntableQueue().getRetiredWorkerCount() + " retired");
    }

    /**
     * The same with {@code max-concurrent-tasks} set well above what the workers hold: workers
     * draining toward retirement are not "full", so a submit does not wait for them (and is not
     * refused after the select timeout); only the concurrency limit itself makes a submit wait.
     */
    @Test
    void workersDrainingToRetireDoNotMakeASubmitWaitUnderAConcurrencyLimit() throws Exception {
        TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(2)
                .maxLifetimeTasks(3).maxConcurrentTasks(100).workerSelectTimeoutMillis(1).build());
        Ledger ledger = new Ledger(20);
        CountDownLatch release = cleanup.latch(1);
        occupyBoth(pool, ledger, release);

        List<String> refused = submitAll(pool, ledger, 20);

        assertEquals(List.of(), refused, "refused although no worker was at its concurrency limit");
        release.countDown();
        ledger.awaitAllRan(pool);
        ledger.assertEachRanOnce();
        assertTrue(ledger.mostOnOneThread() <= 3, "a thread ran more than its lifetime: " + ledger.perThread);
    }

    /**
     * Submit a backlog, {@code shutdown()}, wait for the end: the common batch pattern. Worker
     * threads keep retiring and being replaced while the shut-down pool drains (ThreadPoolExecutor
     * replaces a worker that ends while the queue still holds tasks), so the lifetime bound that
     * keeps per-thread leaks small goes on holding. (Two workers: the last worker of a shut-down
     * pool does not retire, see the next test; so near the end, when ThreadPoolExecutor makes no
     * replacement for a queue about to empty, the one left may run a few past its limit.)
     */
    @Test
    void workersKeepRetiringWhileAShutDownPoolDrainsItsBacklog() throws Exception {
        TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(2).maxLifetimeTasks(50).build());
        Ledger ledger = new Ledger(1000);
        CountDownLatch release = cleanup.latch(1);
        occupyBoth(pool, ledger, release);
        assertEquals(List.of(), submitAll(pool, ledger, 1000));

        pool.shutdown();
        release.countDown();

        assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS), "the backlog ran and the pool ended");
        ledger.assertEachRanOnce();
        assertTrue(ledger.mostOnOneThread() <= 60, "a thread ran far past its lifetime after shutdown: " + ledger.perThread);
        assertTrue(ledger.perThread.size() >= 10, "threads that ran the 1000: " + ledger.perThread.size());
    }

    /**
     * A shut-down pool whose thread factory makes no more threads (at its limit, or out of
     * native threads): its workers retire, no replacement comes, and the last one must stay to
     * drain the backlog rather than leave it queued with no worker for good.
     */
    @Test
    void theLastWorkerOfAShutDownPoolStaysWhenNoReplacementComes() throws Exception {
        AtomicInteger made = new AtomicInteger();
        TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(2).maxLifetimeTasks(5)
                .threadFactory(r -> made.incrementAndGet() <= 2 ? new Thread(r) : null).build());
        Ledger ledger = new Ledger(50);
        CountDownLatch release = cleanup.latch(1);
        occupyBoth(pool, ledger, release);
        assertEquals(List.of(), submitAll(pool, ledger, 50));

        pool.shutdown();
        release.countDown();

        ledger.awaitAllRan(pool);
        ledger.assertEachRanOnce();
        assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS), "the backlog ran and the pool ended: " + pool);
    }

    /**
     * A hand-off pool has no backlog to drain after a shutdown, and its workers due to retire
     * wait for their turn one at a time: {@code shutdownNow()} must end them at once, as it ends
     * idle workers, not one retirement turn after another.
     */
    @Test
    void aShutDownHandOffPoolEndsItsWorkersDueToRetireAtOnce() throws Exception {
        int workers = 20;
        // The factory makes the first workers and no replacement (as a factory at a thread limit
        // may): each retirement then holds the turn until the housekeeper frees it, 1 s later.
        AtomicInteger made = new AtomicInteger();
        TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(1).maximumWorkers(workers)
                .keepAlive(60, TimeUnit.SECONDS).handOff().maxLifetimeTasks(1)
                .threadFactory(r -> made.incrementAndGet() <= workers ? new Thread(r) : null).build());
        // Round 1 makes the threads (ThreadPoolExecutor runs a new thread's first task itself,
        // so the queue counts none of these); round 2 is handed to them idle, one each: then
        // every one has started its one task through the queue, and is due to retire.
        for (int round = 1; round <= 2; round++) {
            if (round == 2) {
                eventually("every worker idle in the queue", () -> pool.getActiveCount() == 0
                        && pool.getTurntableQueue().workers().stream().filter(w -> w.state().equals("AVAILABLE")).count()
                                == pool.getPoolSize());
            }
            int n = round == 1 ? workers : pool.getPoolSize();
            CountDownLatch release = cleanup.latch(1);
            CountDownLatch started = new CountDownLatch(n);
            for (int i = 0; i < n; i++) {
                pool.execute(new Blocker("r" + round + "-" + i, started, release));
            }
            awaitLatch(started, "round " + round + " running");
            release.countDown();
        }
        eventually("workers waiting for their turn to retire", () -> pool.getActiveCount() == 0
                && pool.getTurntableQueue().workers().stream().filter(w -> w.state().equals("DRAINING")).count() >= 2);

        pool.shutdownNow();

        assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS),
                "not terminated 10 s after shutdownNow: " + pool + " " + pool.getTurntableQueue().workers());
    }
}
