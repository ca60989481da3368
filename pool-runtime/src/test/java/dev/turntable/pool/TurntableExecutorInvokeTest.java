package dev.turntable.pool;

import static dev.turntable.pool.testing.Waits.eventually;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.testing.Blocker;
import dev.turntable.pool.testing.CountingThreadFactory;
import dev.turntable.pool.testing.PoolCleanup;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/** invokeAll and invokeAny, plain and timed, under every worker choice strategy. */
class TurntableExecutorInvokeTest {

    private static final String ALL = "dev.turntable.pool.testing.Params#strategies";
    private static final String ALL_AND_STEALING = "dev.turntable.pool.testing.Params#strategiesAndStealing";

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();
    private final CountingThreadFactory threads = new CountingThreadFactory("invoke");

    private TurntableExecutor.Builder pool(int workers, String strategy, boolean stealing) {
        return TurntableExecutor.builder()
                .workers(workers)
                .strategy(strategy)
                .taskStealing(stealing)
                .threadFactory(threads);
    }

    private TurntableExecutor start(TurntableExecutor.Builder builder) {
        return cleanup.track(builder.build());
    }

    @ParameterizedTest
    @MethodSource(ALL_AND_STEALING)
    void invokeAllReturnsEveryOutcomeInOrder(String strategy, boolean stealing) throws Exception {
        TurntableExecutor pool = start(pool(3, strategy, stealing));
        List<Callable<Integer>> tasks = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            int n = i;
            tasks.add(() -> {
                if (n == 17) {
                    throw new IllegalStateException("task 17 fails");
                }
                return n;
            });
        }
        List<Future<Integer>> futures = pool.invokeAll(tasks);
        assertEquals(tasks.size(), futures.size());
        for (int i = 0; i < futures.size(); i++) {
            assertTrue(futures.get(i).isDone());
            if (i == 17) {
                ExecutionException e = assertThrows(ExecutionException.class, futures.get(i)::get);
                assertInstanceOf(IllegalStateException.class, e.getCause());
            } else {
                assertEquals(i, futures.get(i).get());
            }
        }
        assertTrue(pool.invokeAll(List.<Callable<Integer>>of()).isEmpty());
    }

    @ParameterizedTest
    @MethodSource(ALL_AND_STEALING)
    void invokeAnyReturnsASuccessfulResultOrTheFailure(String strategy, boolean stealing) throws Exception {
        TurntableExecutor pool = start(pool(3, strategy, stealing));
        List<Callable<String>> someFail = List.of(
                () -> {
                    throw new IllegalStateException("first fails");
                },
                () -> "ok",
                () -> {
                    throw new IllegalStateException("third fails");
                });
        assertEquals("ok", pool.invokeAny(someFail));
        assertEquals("ok", pool.invokeAny(someFail, 30, SECONDS));

        List<Callable<String>> allFail = List.of(
                () -> {
                    throw new IllegalStateException("a");
                },
                () -> {
                    throw new IllegalStateException("b");
                });
        ExecutionException e = assertThrows(ExecutionException.class, () -> pool.invokeAny(allFail));
        assertInstanceOf(IllegalStateException.class, e.getCause());
        assertThrows(IllegalArgumentException.class, () -> pool.invokeAny(List.<Callable<String>>of()));
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void invokeAnyStopsTheTasksThatLost(String strategy) throws Exception {
        TurntableExecutor pool = start(pool(2, strategy, true));
        CountDownLatch never = cleanup.latch(1);
        Blocker slow = new Blocker("slow", cleanup.latch(1), never);

        assertEquals("fast", pool.invokeAny(List.<Callable<String>>of(slow, () -> "fast")));

        // the loser is cancelled: it either never started or was interrupted, and frees its worker
        eventually("loser released its worker", () -> pool.getActiveCount() == 0);
        assertTrue(slow.runs() == 0 || slow.interrupted(), "the losing task kept running");
        eventually("completed count", () -> pool.getCompletedTaskCount() >= 1);
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void timedInvokeAllCancelsWhatDidNotFinishInTime(String strategy) throws Exception {
        TurntableExecutor pool = start(pool(2, strategy, true));
        CountDownLatch never = cleanup.latch(1);
        // Quick tasks could in principle miss a short deadline on a loaded machine: retry with a
        // longer one rather than assert anything about timing.
        for (long timeoutMillis = 100; ; timeoutMillis *= 2) {
            Blocker slow = new Blocker("slow", cleanup.latch(1), never);
            List<Callable<String>> tasks = List.of(() -> "0", slow, () -> "2");
            List<Future<String>> futures = pool.invokeAll(tasks, timeoutMillis, MILLISECONDS);
            assertEquals(3, futures.size());
            futures.forEach(f -> assertTrue(f.isDone()));
            assertTrue(futures.get(1).isCancelled(), "the task still running at the deadline is cancelled");
            if (futures.get(0).isCancelled() || futures.get(2).isCancelled()) {
                assertTrue(timeoutMillis < 20_000, "quick tasks never finished before the deadline");
                continue;
            }
            assertEquals("0", futures.get(0).get());
            assertEquals("2", futures.get(2).get());
            eventually("cancelled task released its worker", () -> pool.getActiveCount() == 0);
            return;
        }
    }
}
