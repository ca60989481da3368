package dev.turntable.pool;

import static dev.turntable.pool.testing.Waits.awaitLatch;
import static dev.turntable.pool.testing.Waits.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.turntable.pool.testing.PoolCleanup;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A fresh {@code LEAST_BUSY} pool spreads a burst by task counts, as its javadoc says, until some
 * task has completed.
 *
 * <p>Why a user would notice: with task stealing off, a burst queued on one worker waits there
 * while the other worker sits idle. A started task whose wait was sampled (one offer in 8,
 * counted 8 times) outweighed any number of queued tasks while nothing had completed, so in
 * about a third of fresh pools the whole burst went to the other worker (a review: 10 of 30).
 */
class LeastBusyFreshPoolTest {

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();

    @Test
    void aBurstBeforeAnyTaskCompletesIsSharedByTaskCounts() {
        StringBuilder skewed = new StringBuilder();
        for (int pool = 0; pool < 30; pool++) {
            TurntableExecutor executor = cleanup.track(TurntableExecutor.builder()
                    .workers(2).strategy("LEAST_BUSY").taskStealing(false).build());
            TurntableQueue queue = executor.getTurntableQueue();
            eventually("both workers waiting for tasks", () -> queue.workers().size() == 2
                    && queue.workers().stream().allMatch(w -> w.state().equals("AVAILABLE")));
            CountDownLatch release = cleanup.latch(1);
            CountDownLatch started = new CountDownLatch(2);
            for (int i = 0; i < 2; i++) {
                executor.execute(() -> {
                    started.countDown();
                    awaitQuietly(release);
                });
            }
            awaitLatch(started, "both long tasks started");
            for (int i = 0; i < 100; i++) {
                executor.execute(() -> { });
            }
            int first = queue.workers().get(0).queued();
            int second = queue.workers().get(1).queued();
            if (first != 50 || second != 50) {
                skewed.append(" pool ").append(pool).append(": ").append(first).append('/').append(second);
            }
            release.countDown();
            executor.shutdown();
        }
        assertEquals("", skewed.toString(), "pools whose burst was not split 50/50 between two busy workers");
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
