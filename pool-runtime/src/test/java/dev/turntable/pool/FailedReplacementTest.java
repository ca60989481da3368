package dev.turntable.pool;

import static dev.turntable.pool.testing.Waits.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.testing.PoolCleanup;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
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

    private final PoolCleanup cleanup = new PoolCleanup();

    @AfterEach
    void stopPools() {
        cleanup.close();
    }

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

    @Test
    void aFactoryThatFailsForGoodKeepsTheWorkersItMadeRunning() {
        AtomicInteger calls = new AtomicInteger();
        TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(2).maxLifetimeTasks(3)
                .threadFactory(failing(call -> call > 2, false, calls)).build());
        AtomicInteger ran = new AtomicInteger();
        for (int i = 0; i < 50; i++) {
            pool.execute(ran::incrementAndGet);
        }
        try {
            eventually("all 50 tasks ran", () -> ran.get() == 50);
        } catch (AssertionError | RuntimeException e) {
            throw new AssertionError("ran " + ran.get() + " of 50, pool size " + pool.getPoolSize() + ", workers "
                    + pool.getTurntableQueue().workers() + ", factory calls " + calls.get(), e);
        }
        assertTrue(pool.getPoolSize() >= 1, "a worker is left: " + pool.getPoolSize());
    }
}
