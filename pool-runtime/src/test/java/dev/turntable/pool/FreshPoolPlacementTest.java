package dev.turntable.pool;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.testing.PoolCleanup;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A pool is ready when {@code build()} returns: the strategy can place the first tasks on any core
 * worker, so with stealing off two tasks that wait for each other never land on the same one.
 */
class FreshPoolPlacementTest {

    private static final int POOLS = 50;

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();

    @Test
    void twoTasksThatWaitForEachOtherBothRunOnEveryFreshPoolWithStealingOff() throws InterruptedException {
        for (int i = 0; i < POOLS; i++) {
            TurntableExecutor pool = TurntableExecutor.builder().workers(2).taskStealing(false).build();
            cleanup.track(pool);
            CountDownLatch both = cleanup.latch(2);
            CountDownLatch done = new CountDownLatch(2);
            for (int t = 0; t < 2; t++) {
                pool.execute(() -> {
                    both.countDown();
                    try {
                        if (both.await(30, SECONDS)) {
                            done.countDown();
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
            }
            // Generous: the two tasks meet at once on two workers, or never on one.
            assertTrue(both.await(10, SECONDS), "pool " + i + " of " + POOLS + ": only "
                    + (2 - both.getCount()) + " of 2 tasks started; workers " + pool.getTurntableQueue().workers());
            assertTrue(done.await(10, SECONDS), "pool " + i + ": both tasks met but did not finish");
            pool.shutdownNow();
        }
    }
}
