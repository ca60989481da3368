package dev.turntable.pool;

import static dev.turntable.pool.testing.Waits.eventually;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.testing.ManualTicker;
import dev.turntable.pool.testing.PoolCleanup;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Three classes on one worker, all backlogged, with tasks of equal length: each gets its share of
 * the first 100 starts, and a class at 0% none. Why a user would notice: on a worker the shares
 * split three ways, class order used to give all of it to the first class. Each task takes 1 ms
 * of the pool's clock (a {@link ManualTicker} it moves), so the worker time the classes are
 * shared by is exact.
 */
class ThreeClassesOneWorkerTest {

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();

    @ParameterizedTest
    @CsvSource({"1,a:50;b:30;c:20", "1,a:34;b:33;c:33", "1,a:90;b:5;c:5", "1,a:60;b:40;c:0"})
    void sharesOfTheStarts(int workers, String shares) throws Exception {
        ManualTicker ticker = new ManualTicker();
        CountDownLatch gate = cleanup.latch(1);
        TurntableExecutor pool = TurntableExecutorClassesTest.classedPool(cleanup, workers, ticker, "three", gate,
                shares, "a-.*:a;b-.*:b;c-.*:c");
        List<String> starts = new CopyOnWriteArrayList<>();
        for (String cls : List.of("c", "b", "a")) {
            List<Runnable> tasks = new ArrayList<>();
            for (int k = 0; k < 100; k++) {
                tasks.add(() -> {
                    starts.add(cls);
                    ticker.advanceMillis(1);
                });
            }
            TurntableExecutorClassesTest.submitAs(cls + "-1", pool, tasks);
        }
        gate.countDown();
        boolean zeroC = shares.endsWith("c:0");
        eventually("ran", () -> starts.size() == (zeroC ? 200 : 300));
        List<String> first = starts.subList(0, 100);
        StringBuilder msg = new StringBuilder();
        for (String part : shares.split(";")) {
            String cls = part.split(":")[0];
            int pct = Integer.parseInt(part.split(":")[1]);
            long got = first.stream().filter(cls::equals).count();
            msg.append(cls).append('=').append(got).append("(want ").append(pct).append(") ");
            assertTrue(Math.abs(got - pct) <= 3, shares + " on " + workers + ": " + msg + String.join("", first));
        }
    }
}
