package dev.turntable.pool;

import static dev.turntable.pool.testing.Waits.awaitLatch;
import static dev.turntable.pool.testing.Waits.eventually;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.testing.Blocker;
import dev.turntable.pool.testing.CountingThreadFactory;
import dev.turntable.pool.testing.Params;
import dev.turntable.pool.testing.PoolCleanup;
import dev.turntable.pool.testing.TaskLog;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * TurntableExecutor as an ExecutorService: the builder, the strategy controls, execute / submit /
 * invokeAll / invokeAny, the counters and the thread factory, under every worker choice strategy.
 * Lifecycle, hooks, rejection and the queue view have their own classes.
 */
class TurntableExecutorConformanceTest {

    private static final String ALL = "dev.turntable.pool.testing.Params#strategies";
    private static final String ALL_AND_STEALING = "dev.turntable.pool.testing.Params#strategiesAndStealing";

    private final PoolCleanup cleanup = new PoolCleanup();
    private final CountingThreadFactory threads = new CountingThreadFactory("conformance");

    @AfterEach
    void stopPools() {
        cleanup.close();
    }

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

    // ---------------------------------------------------------------- builder and controls

    @Test
    void builtPoolHasTheDocumentedDefaults() {
        TurntableExecutor pool = start(TurntableExecutor.builder().workers(3).threadFactory(threads));

        assertEquals(3, pool.getCorePoolSize());
        assertEquals(3, pool.getMaximumPoolSize());
        assertEquals(3, pool.getPoolSize(), "build() prestarts every core thread");
        assertEquals(3, pool.getLargestPoolSize());
        assertEquals(3, threads.created());
        assertEquals("LEAST_USED", pool.getStrategy());
        assertTrue(pool.isTaskStealing());
        assertFalse(pool.allowsCoreThreadTimeOut());
        assertEquals(Params.STRATEGIES, pool.getAvailableStrategies());
        assertSame(pool.getQueue(), pool.getTurntableQueue());
        assertTrue(pool.getQueue().isEmpty());
        assertEquals(Integer.MAX_VALUE, pool.getQueue().remainingCapacity(), "unbounded by default");
        assertEquals(0, pool.getActiveCount());
        assertEquals(0, pool.getTaskCount());
        assertEquals(0, pool.getCompletedTaskCount());
        assertFalse(pool.isShutdown());
        assertFalse(pool.isTerminating());
        assertFalse(pool.isTerminated());
    }

    @Test
    void builderAppliesEveryOption() {
        RejectedExecutionHandler handler = new ThreadPoolExecutor.DiscardPolicy();
        TurntableExecutor pool = start(TurntableExecutor.builder()
                .workers(2)
                .maximumWorkers(5)
                .keepAlive(1500, MILLISECONDS)
                .strategy("ROUND_ROBIN")
                .threadFactory(threads)
                .rejectionHandler(handler)
                .queueCapacity(7)
                .taskStealing(false));

        assertEquals(2, pool.getCorePoolSize());
        assertEquals(5, pool.getMaximumPoolSize());
        assertEquals(1500, pool.getKeepAliveTime(MILLISECONDS));
        assertEquals("ROUND_ROBIN", pool.getStrategy());
        assertFalse(pool.isTaskStealing());
        assertSame(threads, pool.getThreadFactory());
        assertSame(handler, pool.getRejectedExecutionHandler());
        assertEquals(7, pool.getQueue().remainingCapacity());
        assertEquals(2, pool.getPoolSize());
        assertEquals(2, threads.created(), "only the core threads are prestarted");
    }

    @Test
    void builderRejectsInvalidSettings() {
        assertThrows(IllegalArgumentException.class, () -> start(TurntableExecutor.builder().workers(0)));
        assertThrows(IllegalArgumentException.class, () -> start(TurntableExecutor.builder().workers(-2)));
        assertThrows(IllegalArgumentException.class,
                () -> start(TurntableExecutor.builder().workers(4).maximumWorkers(3)));
        assertThrows(IllegalArgumentException.class,
                () -> start(TurntableExecutor.builder().workers(1).queueCapacity(0)));
        assertThrows(IllegalArgumentException.class,
                () -> start(TurntableExecutor.builder().workers(1).queueCapacity(-5)));
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> start(TurntableExecutor.builder().workers(1).strategy("NO_SUCH_STRATEGY")));
        assertTrue(String.valueOf(unknown.getMessage()).contains("NO_SUCH_STRATEGY"),
                () -> "message should name the unknown value: " + unknown.getMessage());
        assertEquals(0, threads.created(), "a rejected configuration starts no thread");
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void prestartsEveryWorkerAndRunsTasksUnderTheChosenStrategy(String strategy) {
        TurntableExecutor pool = start(pool(4, strategy, true));

        assertEquals(strategy, pool.getStrategy());
        assertEquals(4, pool.getPoolSize());
        assertEquals(4, threads.created());

        TaskLog log = new TaskLog(200);
        for (int i = 0; i < log.size(); i++) {
            pool.execute(log.task(i));
        }
        awaitLatch(log.finished(), "tasks under " + strategy);
        assertEquals(List.of(), log.notExactlyOnce());
        assertEquals(4, threads.created(), "a fixed pool keeps its threads");
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void everyStrategyCanBeActivatedLive(String initial) {
        TurntableExecutor pool = start(pool(2, initial, true));
        TaskLog log = new TaskLog(Params.STRATEGIES.size() * 20);
        int next = 0;
        for (String name : Params.STRATEGIES) {
            pool.setStrategy(name);
            assertEquals(name, pool.getStrategy());
            for (int i = 0; i < 20; i++) {
                pool.execute(log.task(next++));
            }
        }
        awaitLatch(log.finished(), "tasks across strategy switches");
        assertEquals(List.of(), log.notExactlyOnce());
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void unknownStrategyIsRejectedAndNothingChanges(String strategy) {
        TurntableExecutor pool = start(pool(2, strategy, true));

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> pool.setStrategy("BOGUS_STRATEGY"));
        String message = String.valueOf(e.getMessage());
        assertTrue(message.contains("BOGUS_STRATEGY"), () -> "message should name the value: " + message);
        for (String allowed : Params.STRATEGIES) {
            assertTrue(message.contains(allowed), () -> "message should list " + allowed + ": " + message);
        }
        assertEquals(strategy, pool.getStrategy());

        TaskLog log = new TaskLog(50);
        for (int i = 0; i < log.size(); i++) {
            pool.execute(log.task(i));
        }
        awaitLatch(log.finished(), "tasks after a rejected strategy name");
        assertEquals(List.of(), log.notExactlyOnce());
    }

    @Test
    void taskStealingCanBeToggledLive() {
        TurntableExecutor pool = start(pool(2, "ROUND_ROBIN", true));
        TaskLog log = new TaskLog(60);
        pool.setTaskStealing(false);
        assertFalse(pool.isTaskStealing());
        for (int i = 0; i < 30; i++) {
            pool.execute(log.task(i));
        }
        pool.setTaskStealing(true);
        assertTrue(pool.isTaskStealing());
        for (int i = 30; i < 60; i++) {
            pool.execute(log.task(i));
        }
        awaitLatch(log.finished(), "tasks across stealing toggles");
        assertEquals(List.of(), log.notExactlyOnce());
    }

    @ParameterizedTest
    @MethodSource(ALL_AND_STEALING)
    void switchingStrategyWhileTasksAreQueuedLosesAndDuplicatesNothing(String strategy, boolean stealing) {
        TurntableExecutor pool = start(pool(3, strategy, stealing));
        CountDownLatch gate = cleanup.latch(1);
        TaskLog log = new TaskLog(300);
        List<String> names = Params.STRATEGIES;
        for (int i = 0; i < log.size(); i++) {
            if (i % 7 == 0) {
                pool.setStrategy(names.get((i / 7) % names.size()));
            }
            pool.execute(log.gated(i, gate));
        }
        // every task is either held at the gate on a worker or waiting in the queue
        eventually("tasks held or queued", () -> log.started() + pool.getQueue().size() == log.size());
        assertTrue(log.started() <= 3);
        for (String name : names) {
            pool.setStrategy(name);
            pool.setTaskStealing(!pool.isTaskStealing());
        }
        pool.setTaskStealing(stealing);
        gate.countDown();

        awaitLatch(log.finished(), "queued tasks after strategy switches");
        assertEquals(List.of(), log.notExactlyOnce());
        eventually("completed count", () -> pool.getCompletedTaskCount() == log.size());
    }

    // ---------------------------------------------------------------- execute and submit

    @ParameterizedTest
    @MethodSource(ALL_AND_STEALING)
    void executeRunsEveryTaskExactlyOnce(String strategy, boolean stealing) {
        TurntableExecutor pool = start(pool(3, strategy, stealing));
        TaskLog log = new TaskLog(2_000);
        for (int i = 0; i < log.size(); i++) {
            pool.execute(log.task(i));
        }
        awaitLatch(log.finished(), "executed tasks");
        assertEquals(List.of(), log.notExactlyOnce());
        eventually("completed count", () -> pool.getCompletedTaskCount() == log.size());
        assertEquals(log.size(), pool.getTaskCount());
        assertTrue(log.runners().stream().allMatch(threads::made), "tasks run on the pool's threads");
    }

    @Test
    void executeAndSubmitRejectNull() {
        TurntableExecutor pool = start(pool(1, "LEAST_USED", true));
        assertThrows(NullPointerException.class, () -> pool.execute(null));
        assertThrows(NullPointerException.class, () -> pool.submit((Runnable) null));
        assertThrows(NullPointerException.class, () -> pool.submit((Callable<?>) null));
        assertEquals(0, pool.getTaskCount());
    }

    @ParameterizedTest
    @MethodSource(ALL_AND_STEALING)
    void submitReturnsFuturesWithTheResults(String strategy, boolean stealing) throws Exception {
        TurntableExecutor pool = start(pool(3, strategy, stealing));
        List<Future<Integer>> squares = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            int n = i;
            squares.add(pool.submit(() -> n * n));
        }
        AtomicInteger ranRunnable = new AtomicInteger();
        Future<?> plain = pool.submit((Runnable) ranRunnable::incrementAndGet);
        Future<String> withResult = pool.submit((Runnable) ranRunnable::incrementAndGet, "given");

        for (int i = 0; i < squares.size(); i++) {
            assertEquals(i * i, squares.get(i).get(30, SECONDS));
        }
        assertNull(plain.get(30, SECONDS));
        assertEquals("given", withResult.get(30, SECONDS));
        assertEquals(2, ranRunnable.get());
        assertTrue(plain.isDone() && !plain.isCancelled());
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void submittedTaskFailuresArriveAsExecutionExceptionsAndKeepTheWorkers(String strategy) throws Exception {
        TurntableExecutor pool = start(pool(2, strategy, true));
        IOException checked = new IOException("checked failure");
        IllegalStateException unchecked = new IllegalStateException("unchecked failure");

        Future<String> callable = pool.submit(() -> {
            throw checked;
        });
        Future<?> runnable = pool.submit((Runnable) () -> {
            throw unchecked;
        });

        ExecutionException e1 = assertThrows(ExecutionException.class, () -> callable.get(30, SECONDS));
        assertSame(checked, e1.getCause());
        ExecutionException e2 = assertThrows(ExecutionException.class, () -> runnable.get(30, SECONDS));
        assertSame(unchecked, e2.getCause());

        assertEquals("still works", pool.submit(() -> "still works").get(30, SECONDS));
        assertEquals(2, pool.getPoolSize());
        assertEquals(2, threads.created(), "a failure caught by the future does not cost a thread");
        assertEquals(List.of(), threads.uncaught());
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void cancelledQueuedFutureNeverRunsItsBody(String strategy) throws Exception {
        TurntableExecutor pool = start(pool(1, strategy, true));
        CountDownLatch started = cleanup.latch(1);
        CountDownLatch release = cleanup.latch(1);
        Blocker blocker = new Blocker("b", started, release);
        pool.execute(blocker);
        awaitLatch(started, "blocker start");

        AtomicInteger bodyRuns = new AtomicInteger();
        Future<?> queued = pool.submit((Runnable) bodyRuns::incrementAndGet);
        assertTrue(queued.cancel(false));
        assertThrows(CancellationException.class, queued::get);
        assertTrue(queued.isCancelled() && queued.isDone());

        Future<String> after = pool.submit(() -> "after");
        release.countDown();
        assertEquals("after", after.get(30, SECONDS));
        assertEquals(0, bodyRuns.get());
    }

    // ---------------------------------------------------------------- counters

    @ParameterizedTest
    @MethodSource(ALL)
    void countersFollowRunningQueuedAndCompletedTasks(String strategy) {
        TurntableExecutor pool = start(pool(3, strategy, true));
        CountDownLatch started = cleanup.latch(5);
        CountDownLatch release = cleanup.latch(1);
        assertEquals(0, pool.getActiveCount());
        assertEquals(0, pool.getTaskCount());

        for (int i = 0; i < 3; i++) {
            pool.execute(new Blocker("running-" + i, started, release));
        }
        eventually("three tasks running", () -> started.getCount() == 2);
        assertEquals(3, pool.getActiveCount());
        assertEquals(3, pool.getPoolSize());
        assertEquals(3, pool.getLargestPoolSize());
        assertEquals(3, pool.getTaskCount());
        assertEquals(0, pool.getCompletedTaskCount());

        pool.execute(new Blocker("waiting-1", started, release));
        pool.execute(new Blocker("waiting-2", started, release));
        assertEquals(2, pool.getQueue().size());
        assertEquals(5, pool.getTaskCount());
        assertEquals(3, pool.getActiveCount(), "queued tasks are not active");
        assertEquals(0, pool.getCompletedTaskCount());

        release.countDown();
        eventually("all five completed", () -> pool.getCompletedTaskCount() == 5);
        eventually("no task active", () -> pool.getActiveCount() == 0);
        assertEquals(5, pool.getTaskCount());
        assertEquals(3, pool.getPoolSize());
        assertEquals(3, pool.getLargestPoolSize(), "a fixed pool never grows");
        assertTrue(pool.getQueue().isEmpty());
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void idleWorkersStealWhatIsQueuedBehindABusyWorker(String strategy) {
        TurntableExecutor pool = start(pool(2, strategy, true));
        CountDownLatch started = cleanup.latch(1);
        CountDownLatch release = cleanup.latch(1);
        Blocker blocker = new Blocker("long", started, release);
        pool.execute(blocker);
        awaitLatch(started, "long task start");

        TaskLog log = new TaskLog(50);
        for (int i = 0; i < log.size(); i++) {
            pool.execute(log.task(i));
        }
        // all of them finish while the long task still holds its worker, wherever the strategy put them
        awaitLatch(log.finished(), "short tasks while a long one holds a worker");
        assertEquals(1, blocker.finished().getCount(), "the long task is still running");
        assertEquals(List.of(), log.notExactlyOnce());
        assertFalse(log.runners().contains(blocker.runner()));
    }

    // ---------------------------------------------------------------- thread factory

    @ParameterizedTest
    @MethodSource(ALL)
    void everyThreadComesFromTheThreadFactory(String strategy) {
        TurntableExecutor pool = start(pool(2, strategy, true)
                .maximumWorkers(4)
                .keepAlive(5, java.util.concurrent.TimeUnit.MINUTES)
                .queueCapacity(1));
        CountDownLatch started = cleanup.latch(4);
        CountDownLatch release = cleanup.latch(1);
        List<Blocker> blockers = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            blockers.add(new Blocker("core-" + i, started, release));
            pool.execute(blockers.get(i));
        }
        eventually("core workers busy", () -> started.getCount() == 2);
        Blocker queued = new Blocker("queued", cleanup.latch(1), release);
        pool.execute(queued);                              // fills the queue
        for (int i = 0; i < 2; i++) {                      // each one adds a thread
            Blocker extra = new Blocker("extra-" + i, started, release);
            blockers.add(extra);
            pool.execute(extra);
        }
        awaitLatch(started, "four tasks running");
        assertEquals(4, pool.getPoolSize());
        assertEquals(4, threads.created());

        release.countDown();
        awaitLatch(queued.finished(), "queued task");
        for (Blocker b : blockers) {
            awaitLatch(b.finished(), b.toString());
            assertTrue(threads.made(b.runner()), () -> b + " ran on " + b.runner());
        }
        assertTrue(threads.made(queued.runner()), () -> "queued task ran on " + queued.runner());

        TaskLog failing = new TaskLog(1);
        pool.execute(failing.failing(0, null));            // its worker dies and is replaced
        awaitLatch(failing.finished(), "failing task");
        eventually("replacement thread made", () -> threads.created() == 5);
        eventually("pool size restored", () -> pool.getPoolSize() == 4);
        assertTrue(failing.runners().stream().allMatch(threads::made));
        assertEquals(4, pool.getLargestPoolSize());
    }

    @Test
    void aThreadFactorySetLaterMakesTheLaterThreads() {
        TurntableExecutor pool = start(pool(2, "LEAST_USED", true));
        CountingThreadFactory later = new CountingThreadFactory("later");
        pool.setThreadFactory(later);
        assertSame(later, pool.getThreadFactory());

        TaskLog failing = new TaskLog(1);
        pool.execute(failing.failing(0, null));
        eventually("replacement from the new factory", () -> later.created() == 1);
        eventually("pool back to two threads", () -> pool.getPoolSize() == 2);

        TaskLog log = new TaskLog(100);
        for (int i = 0; i < log.size(); i++) {
            pool.execute(log.task(i));
        }
        awaitLatch(log.finished(), "tasks after the factory change");
        assertEquals(List.of(), log.notExactlyOnce());
        assertTrue(log.runners().stream().allMatch(t -> threads.made(t) || later.made(t)));
        assertEquals(2, threads.created());
    }

    @ParameterizedTest
    @MethodSource(ALL_AND_STEALING)
    void tasksStillRunWhenTheThreadFactoryStopsMakingThreads(String strategy, boolean stealing) {
        AtomicInteger calls = new AtomicInteger();
        ThreadFactory onlyOne = r -> calls.incrementAndGet() == 1 ? threads.newThread(r) : null;
        TurntableExecutor pool = start(TurntableExecutor.builder()
                .workers(4)
                .strategy(strategy)
                .taskStealing(stealing)
                .threadFactory(onlyOne));
        assertEquals(1, pool.getPoolSize(), "only one core thread could be made");

        TaskLog log = new TaskLog(100);
        for (int i = 0; i < log.size(); i++) {
            pool.execute(log.task(i));
        }
        awaitLatch(log.finished(), "tasks on the one thread there is");
        assertEquals(List.of(), log.notExactlyOnce());
        assertEquals(1, threads.created());
    }

    // ---------------------------------------------------------------- invokeAll / invokeAny

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
