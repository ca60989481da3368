package dev.turntable.pool;

import static dev.turntable.pool.testing.Waits.awaitLatch;
import static dev.turntable.pool.testing.Waits.eventually;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
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

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();
    private final CountingThreadFactory threads = new CountingThreadFactory("conformance");

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
        // ThreadPoolExecutor counts a worker as active until its thread has started running
        eventually("idle workers are not active", () -> pool.getActiveCount() == 0);
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
        // one weight per worker: 2 of 4 would leave two workers at a default nobody chose
        assertMessage("[500, 250] has 2 weights; this pool takes one per worker: 4 weights",
                () -> start(TurntableExecutor.builder().workers(4).weightsMillis(500, 250)));
        assertMessage("has 6 weights; this pool takes one per worker: 2 to 3 weights",
                () -> start(TurntableExecutor.builder().workers(2).maximumWorkers(3).weightsMillis(1, 2, 3, 4, 5, 6)));
        assertMessage("weightsMillis must not be null", () -> TurntableExecutor.builder().weightsMillis((long[]) null));
        assertMessage("keep-alive 1 needs a unit, not null", () -> TurntableExecutor.builder().keepAlive(1, null));
        assertMessage("[7] has 1 weight; this pool takes one per worker: 2 weights",
                () -> start(TurntableExecutor.builder().workers(2).weightsMillis(7)));
        assertMessage("allowCoreThreadTimeOut(true) needs a keep-alive above 0",
                () -> start(TurntableExecutor.builder().workers(2).allowCoreThreadTimeOut(true)));
        assertMessage("threadFactory null is not allowed: a ThreadFactory",
                () -> TurntableExecutor.builder().threadFactory(null));
        assertMessage("rejectionHandler null is not allowed: a RejectedExecutionHandler",
                () -> TurntableExecutor.builder().rejectionHandler(null));
        assertMessage("measurement null is not allowed: one of RUN_TIME, WAIT_TIME, CPU_TIME",
                () -> TurntableQueue.builder().measurement(null));
        assertMessage("ticker null is not allowed", () -> TurntableQueue.builder().ticker(null));
        assertMessage("poolName null is not allowed", () -> TurntableQueue.builder().poolName(null));
        assertMessage("factory null is not allowed for strategy 'MINE'",
                () -> TurntableExecutor.builder().registerStrategy("MINE", null));
        assertEquals(0, threads.created(), "a rejected configuration starts no thread");
        TurntableExecutor ok = start(TurntableExecutor.builder().workers(2).maximumWorkers(3).weightsMillis(5, 7)
                .measurement("wait-time"));
        assertEquals(List.of(5L, 7L), java.util.Arrays.stream(ok.getTurntableQueue().getWorkerWeightsMillis()).limit(2)
                .boxed().toList(), "a weight per core worker is enough: the extra one gets the default");
        assertEquals(dev.turntable.pool.strategy.Measurement.WAIT_TIME, ok.getTurntableQueue().getMeasurement(),
                "measurement names read like strategy names: '-' for '_'");
    }

    /**
     * The sizes and keep-alive times ThreadPoolExecutor refuses without a word are named, with what is allowed, and
     * the pool keeps its sizes; so do the live setters refusing a null.
     */
    @Test
    void refusedSizesAndNullsAreNamedAndChangeNothing() {
        TurntableExecutor pool = start(TurntableExecutor.builder().workers(2).maximumWorkers(3));
        assertMessage("corePoolSize -1 is not allowed: from 0 to the maximum pool size, 3", () -> pool.setCorePoolSize(-1));
        assertMessage("corePoolSize 4 is not allowed: from 0 to the maximum pool size, 3", () -> pool.setCorePoolSize(4));
        assertMessage("maximumPoolSize 0 is not allowed: from 2 (1, and not below the core pool size 2)",
                () -> pool.setMaximumPoolSize(0));
        assertMessage("maximumPoolSize 1 is not allowed", () -> pool.setMaximumPoolSize(1));
        assertMessage("measurement null is not allowed", () -> pool.getTurntableQueue().setMeasurement(null));
        assertMessage("poolName null is not allowed", () -> pool.getTurntableQueue().setPoolName(null));
        long keepAliveNanos = pool.getKeepAliveTime(NANOSECONDS);
        assertMessage("keep-alive -5 MILLISECONDS is not allowed: from 0", () -> pool.setKeepAliveTime(-5, MILLISECONDS));
        pool.setKeepAliveTime(1, SECONDS);
        pool.allowCoreThreadTimeOut(true);
        assertMessage("keep-alive 0 SECONDS is not allowed while core threads may time out",
                () -> pool.setKeepAliveTime(0, SECONDS));
        assertEquals(SECONDS.toNanos(1), pool.getKeepAliveTime(NANOSECONDS));
        java.util.concurrent.ThreadFactory factory = pool.getThreadFactory();
        java.util.concurrent.RejectedExecutionHandler handler = pool.getRejectedExecutionHandler();
        // NullPointerException, as ThreadPoolExecutor throws: code that catches it still does.
        NullPointerException noFactory = assertThrows(NullPointerException.class, () -> pool.setThreadFactory(null));
        assertTrue(String.valueOf(noFactory.getMessage()).startsWith("threadFactory null is not allowed: a ThreadFactory"),
                noFactory.getMessage());
        NullPointerException noHandler = assertThrows(NullPointerException.class, () -> pool.setRejectedExecutionHandler(null));
        assertTrue(String.valueOf(noHandler.getMessage()).startsWith(
                "rejectedExecutionHandler null is not allowed: a RejectedExecutionHandler"), noHandler.getMessage());
        assertSame(factory, pool.getThreadFactory());
        assertSame(handler, pool.getRejectedExecutionHandler());
        pool.allowCoreThreadTimeOut(false);
        pool.setKeepAliveTime(keepAliveNanos, NANOSECONDS);
        assertEquals(2, pool.getCorePoolSize());
        assertEquals(3, pool.getMaximumPoolSize());
        assertEquals(dev.turntable.pool.strategy.Measurement.RUN_TIME, pool.getTurntableQueue().getMeasurement());
        pool.setCorePoolSize(3);
        pool.setMaximumPoolSize(5);
        assertEquals(3, pool.getCorePoolSize());
        assertEquals(5, pool.getMaximumPoolSize());
    }

    /**
     * AbortPolicy puts the executor's string in every rejection: it stays short with a full
     * backlog (it listed every waiting task once the queue printed them, megabytes per
     * rejection just when the pool is overloaded).
     */
    @Test
    void aRejectionsMessageDoesNotListTheBacklog() {
        TurntableExecutor pool = start(TurntableExecutor.builder().workers(1).queueCapacity(1_000));
        java.util.concurrent.CountDownLatch gate = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch holding = new java.util.concurrent.CountDownLatch(1);
        try {
            pool.execute(new dev.turntable.pool.testing.Blocker("holds the worker", holding, gate));
            // Running, not queued: else 1,001 tasks would compete for the 1,000 places below.
            dev.turntable.pool.testing.Waits.awaitLatch(holding, "the worker holds its task");
            for (int i = 0; i < 1_000; i++) {
                pool.execute(() -> { });
            }
            java.util.concurrent.RejectedExecutionException e = assertThrows(
                    java.util.concurrent.RejectedExecutionException.class, () -> pool.execute(() -> { }));
            assertTrue(e.getMessage().length() < 500, e.getMessage().length() + " characters");
            assertTrue(e.getMessage().contains("queued tasks = 1000") && e.getMessage().contains("strategy = LEAST_USED"),
                    e.getMessage());
        } finally {
            gate.countDown();
        }
    }

    private static void assertMessage(String expected, org.junit.jupiter.api.function.Executable bad) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, bad);
        assertTrue(String.valueOf(e.getMessage()).contains(expected), () -> "expected '" + expected + "' in: " + e.getMessage());
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
        eventually("task count", () -> pool.getTaskCount() == log.size());
        assertTrue(log.runners().stream().allMatch(threads::made), "tasks run on the pool's threads");
    }

    @Test
    void executeAndSubmitRejectNull() {
        TurntableExecutor pool = start(pool(1, "LEAST_USED", true));
        assertThrows(NullPointerException.class, () -> pool.execute(null));
        assertThrows(NullPointerException.class, () -> pool.submit((Runnable) null));
        assertThrows(NullPointerException.class, () -> pool.submit((Callable<?>) null));
        eventually("nothing was accepted", () -> pool.getTaskCount() == 0);
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
        eventually("idle workers are not active", () -> pool.getActiveCount() == 0);
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
        eventually("task count", () -> pool.getTaskCount() == 5);
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
        for (int i = 0; i < 2; i++) {                      // one at a time: the queue holds only one
            blockers.add(new Blocker("core-" + i, started, release));
            pool.execute(blockers.get(i));
            long left = 3 - i;
            eventually("core worker " + i + " busy", () -> started.getCount() == left);
        }
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
}
