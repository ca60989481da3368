package dev.turntable.pool;

import static dev.turntable.pool.testing.Waits.awaitLatch;
import static dev.turntable.pool.testing.Waits.eventually;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.testing.ManualTicker;
import dev.turntable.pool.testing.PoolCleanup;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A class's task that runs for longer than the use memory lasts (about 18 minutes, when the
 * totals are halved) does not cost its class its share of the other workers.
 *
 * <p>Why a user would notice: the totals were halved, but a running task's time so far was added
 * whole on every pass and charged whole as it ended. Once it had run for a few halvings' worth,
 * its class looked far above its share whatever it ran besides, and got no worker the shares
 * split: on 2 workers at {@code a:75;b:25} (1.5 + 0.5), with a's long task on one worker and
 * both classes backlogged with 1-minute tasks, a's share of the other worker is half of it; a
 * started 19 of the first 200 tasks there, and none after the long task had run 38 minutes.
 * Tasks take their length of the pool's clock, a {@link ManualTicker} they move.
 */
class LongRunningTaskUseHalvingTest {

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();

    @Test
    void aLongRunningTaskDoesNotStarveItsClassOfTheSplitWorkerOnceTheUseIsHalved() throws Exception {
        ManualTicker ticker = new ManualTicker();
        CountDownLatch blockers = cleanup.latch(1);
        TurntableExecutor pool = TurntableExecutorClassesTest.classedPool(cleanup, 2, ticker, "halving", blockers,
                "a:75;b:25", "a-.*:a;b-.*:b");
        List<String> starts = new CopyOnWriteArrayList<>();
        CountDownLatch longEnds = cleanup.latch(1);
        CountDownLatch longRuns = cleanup.latch(1);
        List<Runnable> as = new ArrayList<>();
        as.add(() -> { // holds one worker, as a task running for hours would; the clock moves meanwhile
            longRuns.countDown();
            awaitLatch(longEnds, "long task's end");
        });
        int each = 200;
        for (int k = 0; k < each; k++) {
            as.add(() -> {
                starts.add("a");
                ticker.advanceMillis(60_000);
            });
        }
        List<Runnable> bs = new ArrayList<>();
        for (int k = 0; k < each; k++) {
            bs.add(() -> {
                starts.add("b");
                ticker.advanceMillis(60_000);
            });
        }
        TurntableExecutorClassesTest.submitAs("a-1", pool, as);
        TurntableExecutorClassesTest.submitAs("b-1", pool, bs);
        blockers.countDown();
        awaitLatch(longRuns, "a's long task runs");
        // While a's long task holds one worker, a and b share the other one (a: 1.5 - 1, b: 0.5),
        // half each, over the first 200 tasks there: both are backlogged all through them.
        eventually("200 tasks ran beside the long one", () -> starts.size() >= 200);
        long aStarts = starts.subList(0, 200).stream().filter("a"::equals).count();
        longEnds.countDown();
        assertTrue(aStarts >= 85 && aStarts <= 115, "a (75%), running a long task on one of 2 workers, started "
                + aStarts + " of the first 200 one-minute tasks on the other: " + String.join("", starts.subList(0, 200)));
    }
}
