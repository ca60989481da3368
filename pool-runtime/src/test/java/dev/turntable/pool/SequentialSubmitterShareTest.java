package dev.turntable.pool;

import static dev.turntable.pool.testing.Waits.eventually;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.testing.ManualTicker;
import dev.turntable.pool.testing.PoolCleanup;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A class whose submitter waits for each task before the next (a poller, a request/response
 * client) gets about its share of a contested worker, not every other start.
 *
 * <p>Why a user would notice: such a class is idle after each of its tasks. Set even on every
 * pass (owed nothing and owing nothing), it was behind again after the next start of any other
 * class and won the next worker: a review saw a 10% class take 38 to 68 of 200 starts on one
 * worker while the 90% class was backlogged. An idle class is now only cleared of what it is
 * owed, and keeps what it owes. Both classes' tasks take 2 ms of the pool's clock (a
 * {@link ManualTicker} they move), so that their shares of the worker's time are their shares of
 * the starts.
 */
class SequentialSubmitterShareTest {

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();

    @Test
    void aTenPercentClassSubmittingOneAtATimeGetsAboutTenPercentOfOneWorker() throws Exception {
        ManualTicker ticker = new ManualTicker();
        CountDownLatch gate = cleanup.latch(1);
        TurntableExecutor pool = TurntableExecutorClassesTest.classedPool(cleanup, 1, ticker, "seq", gate,
                "interactive:90;batch:10", "interactive-.*:interactive;batch-.*:batch");
        List<Character> starts = new CopyOnWriteArrayList<>();
        List<Runnable> interactive = new ArrayList<>();
        for (int k = 0; k < 400; k++) {
            interactive.add(() -> {
                starts.add('i');
                ticker.advanceMillis(2);
                // Real time too, for the batch submitter to come back with its next task.
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
            });
        }
        TurntableExecutorClassesTest.submitAs("interactive-1", pool, interactive);
        Thread batch = new Thread(() -> {
            try {
                for (int k = 0; k < 100; k++) {
                    Future<?> f = pool.submit(() -> {
                        starts.add('b');
                        ticker.advanceMillis(2);
                    });
                    f.get(30, TimeUnit.SECONDS); // one at a time
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, "batch-1");
        batch.start();
        gate.countDown();
        eventually("batch started and 200 starts after it", () -> starts.indexOf('b') >= 0
                && starts.size() >= starts.indexOf('b') + 200);
        int from = starts.indexOf('b');
        long b = starts.subList(from, from + 200).stream().filter(c -> c == 'b').count();
        assertTrue(b <= 30, "batch (10%, one task at a time) started " + b
                + " of the first 200 tasks on 1 worker while interactive (90%) was backlogged");
        batch.join(TimeUnit.SECONDS.toMillis(30));
    }
}
