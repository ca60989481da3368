package dev.turntable.pool;

import static dev.turntable.pool.testing.Waits.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.testing.PoolCleanup;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A retiring worker's replacement that the pool's ThreadFactory fails to make (it returns null or
 * throws: a capped factory, no native threads left) strands no task. A plain ThreadPoolExecutor
 * without recycling never asks for a thread there; found by a library review: one failure left a
 * single-worker pool with no thread and 7 of 10 tasks queued until the next execute, and a
 * shutdown pool that never terminated; a factory that failed for good ran 6 of 50 tasks with 2
 * workers. Now workers stop retiring once a replacement went missing, until a new thread starts,
 * and the engine asks the factory again for the missing core thread while tasks wait.
 */
final class FailedReplacementTest {

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();

    /** A factory whose calls that {@code fails} picks (numbered from 1) return null or throw. */
    private static ThreadFactory failing(IntPredicate fails, boolean byThrowing, AtomicInteger calls) {
        return r -> {
            int call = calls.incrementAndGet();
            if (fails.test(call)) {
                if (byThrowing) {
                    throw new IllegalStateException("thread " + call + " refused on purpose");
                }
                return null;
            }
            Thread t = new Thread(r, "replaced-" + call);
            t.setDaemon(true);
            // A factory's throw escapes on the retiring thread, as from ThreadPoolExecutor's own
            // processWorkerExit: expected here.
            t.setUncaughtExceptionHandler((thread, e) -> { });
            return t;
        };
    }

    /** Submits {@code n} tasks and waits until all ran; else says how far they got and what the pool holds. */
    private static void runAll(TurntableExecutor pool, int n, AtomicInteger factoryCalls) {
        AtomicInteger ran = new AtomicInteger();
        for (int i = 0; i < n; i++) {
            pool.execute(ran::incrementAndGet);
        }
        try {
            eventually("all " + n + " tasks ran", () -> ran.get() == n);
        } catch (AssertionError | RuntimeException e) {
            throw new AssertionError("ran " + ran.get() + " of " + n + ", pool size " + pool.getPoolSize() + ", retired "
                    + pool.getTurntableQueue().getRetiredWorkerCount() + ", workers " + pool.getTurntableQueue().workers()
                    + ", factory calls " + factoryCalls.get(), e);
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void oneFailedReplacementStrandsNoTaskAndTheShutDownPoolTerminates(boolean byThrowing) throws Exception {
        AtomicInteger calls = new AtomicInteger();
        TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(1).maxLifetimeTasks(3)
                .threadFactory(failing(call -> call == 2, byThrowing, calls)).build());
        AtomicInteger ran = new AtomicInteger();
        for (int i = 0; i < 10; i++) {
            pool.execute(ran::incrementAndGet);
        }
        // Shut down only once the replacement failed: a shut-down pool's last worker stops retiring.
        eventually("the first worker retired and its replacement failed", () -> calls.get() >= 2);
        pool.shutdown();
        assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS), "terminated; ran " + ran.get() + " of 10, pool size "
                + pool.getPoolSize() + ", queued " + pool.getQueue().size());
        assertEquals(10, ran.get(), "every task ran");
        assertTrue(calls.get() >= 3, "the factory was asked again after it failed: " + calls.get() + " calls");
    }

    /**
     * Workers asked to recycle (JMX {@code recycleWorker}) while the factory fails for good: the
     * first retires and its replacement is missing; the second, waiting for the turn with its
     * recycle flag, used to retire too once the housekeeper freed the turn (a review: ran 0 of 10,
     * pool size 0). It now stays, and runs what comes.
     */
    @Test
    void aWorkerAskedToRecycleStaysWhileAReplacementIsMissing() {
        AtomicInteger calls = new AtomicInteger();
        TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(2)
                .threadFactory(failing(call -> call > 2, false, calls)).build());
        TurntableQueue queue = pool.getTurntableQueue();
        queue.recycleWorker(0);
        queue.recycleWorker(1);
        eventually("a replacement is missing", () -> queue.lifetimes.replacementMissing);
        runAll(pool, 10, calls);
        assertEquals(1, queue.getRetiredWorkerCount(), "only the first retired");
    }

    /**
     * ThreadPoolExecutor makes a replacement on the retiring thread, so a factory that copies its
     * caller's daemon status ({@code new Thread(r)}) makes the replacement like the pool's other
     * threads. The one the engine asks for after a failure is made so too; asked on the engine's
     * daemon housekeeper, it was a daemon where the pool's threads were not (the JVM could exit
     * under a draining pool).
     */
    @Test
    void theThreadAskedForAfterAFailureIsMadeLikeThePoolsOwn() {
        AtomicInteger calls = new AtomicInteger();
        List<Thread> made = new CopyOnWriteArrayList<>();
        ThreadFactory copying = r -> {
            if (calls.incrementAndGet() == 2) {
                return null;
            }
            Thread t = new Thread(r, "copying-" + calls.get()); // daemon status of the calling thread
            made.add(t);
            return t;
        };
        Thread me = Thread.currentThread();
        int priorityBefore = me.getPriority();
        TurntableExecutor pool;
        me.setPriority(Thread.NORM_PRIORITY - 2); // the first worker copies it
        try {
            pool = cleanup.track(TurntableExecutor.builder().workers(1).maxLifetimeTasks(3).threadFactory(copying).build());
        } finally {
            me.setPriority(priorityBefore);
        }
        AtomicInteger ran = new AtomicInteger();
        for (int i = 0; i < 10; i++) {
            pool.execute(ran::incrementAndGet);
        }
        eventually("all 10 tasks ran", () -> ran.get() == 10);
        assertTrue(made.size() >= 2, "a thread was made after the failure: " + made);
        assertFalse(made.get(0).isDaemon(), "the first worker, made on the test's thread");
        assertFalse(made.get(1).isDaemon(), "the thread made after the failure: " + made.get(1).getName());
        assertEquals(Thread.NORM_PRIORITY - 2, made.get(1).getPriority(), "its priority, as the retiree's");
        pool.shutdown();
    }

    @Test
    void aFactoryThatFailsForGoodKeepsTheWorkersItMadeRunning() {
        AtomicInteger calls = new AtomicInteger();
        TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(2).maxLifetimeTasks(3)
                .threadFactory(failing(call -> call > 2, false, calls)).build());
        runAll(pool, 50, calls);
        assertTrue(pool.getPoolSize() >= 1, "a worker is left: " + pool.getPoolSize());
    }
}
