package dev.turntable.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.strategy.Statistic;
import dev.turntable.pool.strategy.WorkerChoiceStrategy;
import dev.turntable.pool.strategy.WorkerView;
import dev.turntable.pool.testing.PoolCleanup;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A strategy reads 0 for the statistics the pool does not collect, as {@link WorkerView}
 * promises, not what an earlier strategy's collection left in the worker's slot.
 *
 * <p>Why a user would notice: the author of a strategy of their own that reads a time it did not
 * declare gets 0, a value it can see is missing, instead of figures frozen at the last switch
 * that look current (a review: 465,685 ns of estimate and 8.8 ms of run time, after FAIR_SHARE).
 */
class UndeclaredStatisticsTest {

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();

    /** Declares no statistic; notes what the view shows of worker 0 at its last choice. */
    static final class Peek implements WorkerChoiceStrategy {
        volatile String seen = "";

        @Override
        public String name() {
            return "PEEK";
        }

        @Override
        public Set<Statistic> requiredStatistics() {
            return Set.of();
        }

        @Override
        public int choose(WorkerView w, long nowNanos) {
            seen = "estimate " + w.taskTimeEstimateNanos(0) + ", run " + w.runTimeTotalNanos(0)
                    + ", wait " + w.waitTimeTotalNanos(0) + ", pool estimate " + w.poolTaskTimeEstimateNanos()
                    + ", remaining " + w.remainingTimeNanos(0, 0L);
            return w.isAvailable(0) ? 0 : NONE;
        }
    }

    private static void runTimedTasks(TurntableExecutor pool) throws Exception {
        for (int i = 0; i < 20; i++) {
            pool.submit(() -> LockSupport.parkNanos(200_000)).get();
        }
    }

    @Test
    void afterFairShareAStrategyThatDeclaresNothingReadsZeros() throws Exception {
        Peek peek = new Peek();
        TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(1).strategy("FAIR_SHARE")
                .registerStrategy("PEEK", () -> peek).build());
        runTimedTasks(pool);
        assertTrue(pool.getTurntableQueue().workers().get(0).taskTimeEstimateNanos() > 0, "FAIR_SHARE measured its tasks");
        pool.setStrategy("PEEK");
        pool.submit(() -> { }).get();
        assertEquals("estimate 0, run 0, wait 0, pool estimate 0, remaining -1", peek.seen);
    }

    @Test
    void withLatencyHistogramsOnRunTimeIsCollectedAndShownWhateverTheStrategyDeclares() throws Exception {
        Peek peek = new Peek();
        TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(1).strategy("PEEK")
                .registerStrategy("PEEK", () -> peek).latencyHistograms(true).build());
        runTimedTasks(pool);
        pool.submit(() -> { }).get();
        long runNanos = Long.parseLong(peek.seen.replaceAll(".*, run (\\d+),.*", "$1"));
        assertTrue(runNanos >= 20 * 200_000L, "20 tasks of 200 µs and more, but the view read " + peek.seen);
    }
}
