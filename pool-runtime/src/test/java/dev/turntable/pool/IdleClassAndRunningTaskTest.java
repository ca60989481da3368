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
 * A class back from idle is not owed the worker time another class's task used while it ran
 * through that idle spell: the README's "a class with nothing waiting or running is owed
 * nothing".
 *
 * <p>Why a user would notice: an idle class was evened with the time of the others' ended tasks
 * only. A task that was running while it was away was charged when it ended, after the class had
 * come back, and the class was then owed that task's whole time: on one worker at
 * {@code a:50;b:50}, after a 1 s task of {@code a} that ran while {@code b} was idle, {@code b}
 * came back with 20 tasks of 10 ms and ran all 20 before {@code a} ran again (a held off for
 * 200 ms, at 100% for b instead of 50%). Tasks take their length of the pool's clock, a
 * {@link ManualTicker} they move.
 */
class IdleClassAndRunningTaskTest {

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();

    @Test
    void aClassBackFromIdleIsNotOwedWhatAnotherClassesRunningTaskUsedMeanwhile() throws Exception {
        ManualTicker ticker = new ManualTicker();
        CountDownLatch blocker = cleanup.latch(1);
        TurntableExecutor pool = TurntableExecutorClassesTest.classedPool(cleanup, 1, ticker, "idle-run", blocker,
                "a:50;b:50", "a-.*:a;b-.*:b");
        List<String> starts = new CopyOnWriteArrayList<>();
        CountDownLatch longRan = cleanup.latch(1);
        CountDownLatch longEnds = cleanup.latch(1);
        List<Runnable> as = new ArrayList<>();
        as.add(() -> { // a's long task: 1 s of the clock, then held while b comes back
            starts.add("L");
            ticker.advanceMillis(1_000);
            longRan.countDown();
            awaitLatch(longEnds, "long task's end");
        });
        for (int k = 0; k < 20; k++) {
            as.add(() -> {
                starts.add("a");
                ticker.advanceMillis(10);
            });
        }
        TurntableExecutorClassesTest.submitAs("a-1", pool, as);
        blocker.countDown();
        awaitLatch(longRan, "a's long task used its second");
        // A pass while b is idle, with a's long task still running (an offer runs one).
        TurntableExecutorClassesTest.submitAs("a-1", pool, List.of(() -> {
            starts.add("a");
            ticker.advanceMillis(10);
        }));
        // b comes back while a's task still runs: it was away for all of that task's second.
        List<Runnable> bs = new ArrayList<>();
        for (int k = 0; k < 20; k++) {
            bs.add(() -> {
                starts.add("b");
                ticker.advanceMillis(10);
            });
        }
        TurntableExecutorClassesTest.submitAs("b-1", pool, bs);
        longEnds.countDown();
        eventually("all 42 tasks ran", () -> starts.size() == 42);
        int from = starts.indexOf("L") + 1;
        List<String> next = starts.subList(from, from + 20);
        long aStarts = next.stream().filter("a"::equals).count();
        assertTrue(aStarts >= 8 && aStarts <= 12, "a (50%) started " + aStarts
                + " of the 20 tasks after its long task, beside b back from idle (both 10 ms tasks): "
                + String.join("", starts));
    }
}
