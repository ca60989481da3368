package dev.turntable.pool;

import static dev.turntable.pool.testing.Waits.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.turntable.pool.testing.CountingThreadFactory;
import dev.turntable.pool.testing.ManualTicker;
import dev.turntable.pool.testing.PoolCleanup;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code LIFETIME_FIRST}'s margin on a real pool: {@code limit / workers}, counting every worker
 * that exists, stuck ones included (see {@link dev.turntable.pool.strategy.LifetimeFirst}). The
 * margin decides how far the worker next in line to retire is pushed before the next one starts,
 * which a user sees as which threads run the tasks.
 */
final class LifetimeFirstMarginTest {

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();

    private static String runOn(TurntableExecutor pool) throws Exception {
        return pool.submit(() -> Thread.currentThread().getName()).get(30, TimeUnit.SECONDS);
    }

    @Test
    void aStuckWorkerStillCountsInTheMargin() throws Exception {
        ManualTicker ticker = new ManualTicker();
        TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(3).strategy("LIFETIME_FIRST")
                .maxLifetimeTasks(30).heartbeatTimeoutMillis(1_000).taskStealing(false)
                .ticker(ticker).threadFactory(new CountingThreadFactory("lf")).build());
        TurntableQueue q = pool.getTurntableQueue();
        CountDownLatch release = cleanup.latch(1);
        String stuckThread = TurntableExecutorLifetimeTest.startLongTask(pool, 3, release);
        q.housekeep();                // sees the task
        ticker.advanceMillis(1_001);
        q.housekeep();
        eventually("stuck past the heartbeat timeout", () -> q.workers().stream()
                .anyMatch(w -> w.threadName().equals(stuckThread) && w.state().equals("STUCK")));

        // limit 30, three workers (the stuck one among them): margin 10, so the next worker in
        // line takes tasks until it has run 20. Counting only the two available workers, the
        // margin would be 15 and the third worker would start at the 16th task.
        List<String> ranOn = new ArrayList<>();
        for (int k = 0; k < 20; k++) {
            ranOn.add(runOn(pool));
        }
        Set<String> threads = new LinkedHashSet<>(ranOn);
        assertEquals(1, threads.size(), "the first 20 tasks all on the worker next in line: " + ranOn);
        String first = ranOn.get(0);
        assertNotEquals(stuckThread, first, "not on the stuck worker");
        String next = runOn(pool);
        assertNotEquals(first, next, "at 20 it is inside the margin: the 21st task goes to the third worker");
        assertNotEquals(stuckThread, next, "which is not the stuck one");
    }
}
