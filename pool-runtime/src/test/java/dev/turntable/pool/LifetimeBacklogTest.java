package dev.turntable.pool;

import static dev.turntable.pool.testing.Waits.awaitLatch;
import static dev.turntable.pool.testing.Waits.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Worker lifetimes against a backlog, as the application sees it: lifetimes bound how many tasks
 * a thread runs, never how many tasks the pool accepts. A burst larger than what the workers may
 * still take before they retire is queued (an unbounded pool never refuses or stalls a submit).
 */
final class LifetimeBacklogTest {

    private final PoolCleanup cleanup = new PoolCleanup();

    @AfterEach
    void stopPools() {
        cleanup.close();
    }

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
}
