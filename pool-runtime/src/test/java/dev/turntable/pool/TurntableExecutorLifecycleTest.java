package dev.turntable.pool;

import static dev.turntable.pool.testing.Waits.awaitGone;
import static dev.turntable.pool.testing.Waits.awaitLatch;
import static dev.turntable.pool.testing.Waits.awaitTerminated;
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

import dev.turntable.pool.testing.CountingThreadFactory;
import dev.turntable.pool.testing.PoolCleanup;
import dev.turntable.pool.testing.RecordingRejectionHandler;
import dev.turntable.pool.testing.TaskLog;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * shutdown / shutdownNow / awaitTermination, and the pool changing size: setCorePoolSize,
 * setMaximumPoolSize, keep-alive and allowCoreThreadTimeOut, without losing a queued task.
 */
class TurntableExecutorLifecycleTest {

    private static final String ALL = "dev.turntable.pool.testing.Params#strategies";
    private static final String ALL_AND_STEALING = "dev.turntable.pool.testing.Params#strategiesAndStealing";

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();
    private final CountingThreadFactory threads = new CountingThreadFactory("lifecycle");

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

    // ---------------------------------------------------------------- shutdown

    @ParameterizedTest
    @MethodSource(ALL_AND_STEALING)
    void idlePoolTerminatesOnShutdown(String strategy, boolean stealing) {
        TurntableExecutor pool = start(pool(3, strategy, stealing));
        pool.shutdown();
        assertTrue(pool.isShutdown());
        awaitTerminated(pool);
        assertTrue(pool.isTerminated());
        assertFalse(pool.isTerminating());
        assertEquals(0, pool.getPoolSize());
    }

    @ParameterizedTest
    @MethodSource(ALL_AND_STEALING)
    void shutdownRunsWhatIsQueuedButTakesNothingNew(String strategy, boolean stealing) throws Exception {
        RecordingRejectionHandler handler = new RecordingRejectionHandler();
        TurntableExecutor pool = start(pool(2, strategy, stealing).rejectionHandler(handler));
        CountDownLatch gate = cleanup.latch(1);
        TaskLog log = new TaskLog(30);
        for (int i = 0; i < log.size(); i++) {
            pool.execute(log.gated(i, gate));
        }
        eventually("tasks held or queued", () -> log.started() + pool.getQueue().size() == log.size());

        pool.shutdown();
        assertTrue(pool.isShutdown());
        assertTrue(pool.isTerminating());
        assertFalse(pool.isTerminated());
        assertFalse(pool.awaitTermination(20, MILLISECONDS), "tasks are still running");

        TaskLog late = new TaskLog(1);
        Runnable lateTask = late.task(0);
        pool.execute(lateTask);
        assertEquals(List.of(lateTask), handler.rejected(), "a task after shutdown goes to the handler");
        assertSame(pool, handler.executors().get(0));

        gate.countDown();
        awaitTerminated(pool);
        assertTrue(pool.isTerminated());
        assertFalse(pool.isTerminating());
        assertEquals(List.of(), log.notExactlyOnce(), "queued tasks still run after shutdown");
        assertFalse(late.ran(0));
        assertEquals(log.size(), pool.getCompletedTaskCount());
        assertEquals(0, pool.getPoolSize());
        assertTrue(pool.getQueue().isEmpty());
    }

    @Test
    void afterShutdownTheDefaultPolicyThrowsForEverySubmission() {
        TurntableExecutor pool = start(pool(2, "LEAST_USED", true));
        pool.shutdown();
        TaskLog log = new TaskLog(1);
        assertThrows(RejectedExecutionException.class, () -> pool.execute(log.task(0)));
        assertThrows(RejectedExecutionException.class, () -> pool.submit(log.task(0)));
        assertThrows(RejectedExecutionException.class, () -> pool.submit(() -> "x"));
        assertThrows(RejectedExecutionException.class,
                () -> pool.invokeAll(List.<Callable<String>>of(() -> "x")));
        awaitTerminated(pool);
        assertThrows(RejectedExecutionException.class, () -> pool.execute(log.task(0)));
        assertFalse(log.ran(0));
        assertEquals(0, pool.getTaskCount());
    }

    @Test
    void awaitTerminationIsFalseOnARunningPool() throws Exception {
        TurntableExecutor pool = start(pool(1, "LEAST_USED", true));
        assertFalse(pool.awaitTermination(10, MILLISECONDS));
        assertFalse(pool.awaitTermination(-1, MILLISECONDS));
        assertFalse(pool.isTerminated());
        assertFalse(pool.isShutdown());
    }

    @ParameterizedTest
    @MethodSource(ALL_AND_STEALING)
    void shutdownNowReturnsExactlyTheTasksThatNeverStartedAndInterruptsTheRest(String strategy, boolean stealing) {
        TurntableExecutor pool = start(pool(3, strategy, stealing));
        CountDownLatch gate = cleanup.latch(1);           // never opened before shutdownNow
        TaskLog log = new TaskLog(40);
        for (int i = 0; i < log.size(); i++) {
            pool.execute(log.gated(i, gate));
        }
        // with stealing every worker picks one up; without, at least the ones the strategy fed
        int holding = stealing ? 3 : 1;
        eventually("tasks held or queued", () -> log.started() >= holding
                && log.started() + pool.getQueue().size() == log.size());

        List<Runnable> neverRan = pool.shutdownNow();
        assertTrue(pool.isShutdown());
        assertTrue(pool.getQueue().isEmpty(), "shutdownNow empties the queue");
        awaitTerminated(pool);

        int[] returned = new int[log.size()];
        for (Runnable r : neverRan) {
            assertInstanceOf(TaskLog.Task.class, r, "shutdownNow returns the submitted tasks themselves");
            returned[((TaskLog.Task) r).index]++;
        }
        int started = 0;
        for (int i = 0; i < log.size(); i++) {
            assertTrue(log.runs(i) <= 1, "task " + i + " ran twice");
            assertEquals(1, log.runs(i) + returned[i],
                    "task " + i + ": ran " + log.runs(i) + "x, returned " + returned[i] + "x");
            if (log.ran(i)) {
                started++;
                assertTrue(log.interruptedWhileHeld(i), "running task " + i + " was not interrupted");
            }
        }
        assertTrue(started >= 1 && started <= 3, "started: " + started);
        assertEquals(started, pool.getCompletedTaskCount());
    }

    @ParameterizedTest
    @MethodSource(ALL_AND_STEALING)
    void shutdownNowUnderLoadLosesAndDuplicatesNothing(String strategy, boolean stealing) throws Exception {
        TurntableExecutor pool = start(pool(3, strategy, stealing));
        int n = 20_000;
        AtomicIntegerArray ran = new AtomicIntegerArray(n);
        AtomicIntegerArray rejected = new AtomicIntegerArray(n);
        AtomicInteger finished = new AtomicInteger();
        Map<Runnable, Integer> index = new IdentityHashMap<>();
        List<Runnable> tasks = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int id = i;
            Runnable task = () -> {
                ran.incrementAndGet(id);
                spin(id);
                finished.incrementAndGet();
            };
            tasks.add(task);
            index.put(task, i);
        }
        AtomicReference<Throwable> submitterFailure = new AtomicReference<>();
        Thread submitter = new Thread(() -> {
            for (int i = 0; i < n; i++) {
                try {
                    pool.execute(tasks.get(i));
                } catch (RejectedExecutionException e) {
                    rejected.set(i, 1);
                } catch (Throwable t) {
                    submitterFailure.set(t);
                    return;
                }
            }
        }, "submitter");
        submitter.setDaemon(true);
        submitter.start();
        eventually("some tasks done", () -> finished.get() >= 2_000);

        List<Runnable> neverRan = pool.shutdownNow();
        awaitGone(submitter);
        assertNull(submitterFailure.get());
        awaitTerminated(pool);

        int[] returned = new int[n];
        for (Runnable r : neverRan) {
            Integer i = index.get(r);
            assertTrue(i != null, "shutdownNow returned something never submitted: " + r);
            returned[i]++;
        }
        long ranCount = 0;
        List<String> bad = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ranCount += ran.get(i);
            int fates = ran.get(i) + returned[i] + rejected.get(i);
            if (fates != 1 && bad.size() < 10) {
                bad.add(i + ": ran " + ran.get(i) + ", returned " + returned[i] + ", rejected " + rejected.get(i));
            }
        }
        assertEquals(List.of(), bad, "every task either ran, was returned, or was rejected: exactly one");
        assertEquals(ranCount, pool.getCompletedTaskCount());
        assertTrue(pool.getQueue().isEmpty());
    }

    private static volatile long sink;

    /** A few microseconds of work, so that shutdownNow lands while tasks are still queued. */
    private static void spin(int seed) {
        long x = seed + 1;
        for (int i = 0; i < 2_000; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
        }
        sink = x;
    }

    // ---------------------------------------------------------------- resizing and keep-alive

    @Test
    void poolSizeSettersValidateLikeThreadPoolExecutor() {
        TurntableExecutor pool = start(pool(2, "LEAST_USED", true).maximumWorkers(3));
        assertThrows(IllegalArgumentException.class, () -> pool.setCorePoolSize(-1));
        assertThrows(IllegalArgumentException.class, () -> pool.setMaximumPoolSize(0));
        assertThrows(IllegalArgumentException.class, () -> pool.setMaximumPoolSize(1));
        assertThrows(IllegalArgumentException.class, () -> pool.setCorePoolSize(4));
        assertThrows(IllegalArgumentException.class, () -> pool.setKeepAliveTime(-1, MILLISECONDS));
        assertEquals(2, pool.getCorePoolSize());
        assertEquals(3, pool.getMaximumPoolSize());
        pool.setMaximumPoolSize(6);
        pool.setCorePoolSize(5);
        assertEquals(5, pool.getCorePoolSize());
        assertEquals(6, pool.getMaximumPoolSize());
        pool.setKeepAliveTime(3, SECONDS);
        assertEquals(3_000, pool.getKeepAliveTime(MILLISECONDS));
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void raisingTheCorePoolSizeStartsThreadsForQueuedTasks(String strategy) {
        TurntableExecutor pool = start(pool(2, strategy, true));
        CountDownLatch gate = cleanup.latch(1);
        TaskLog log = new TaskLog(4);
        pool.execute(log.gated(0, gate));
        pool.execute(log.gated(1, gate));
        eventually("both workers busy", () -> log.started() == 2);
        pool.execute(log.gated(2, gate));
        pool.execute(log.gated(3, gate));
        assertEquals(2, pool.getQueue().size());

        pool.setMaximumPoolSize(4);
        pool.setCorePoolSize(4);

        eventually("queued tasks start on the new threads", () -> log.started() == 4);
        assertEquals(4, pool.getPoolSize());
        assertEquals(4, threads.created());
        assertEquals(4, pool.getActiveCount());
        gate.countDown();
        awaitLatch(log.finished(), "tasks");
        assertEquals(List.of(), log.notExactlyOnce());
    }

    @ParameterizedTest
    @MethodSource(ALL_AND_STEALING)
    void workersAddedByGrowingTheCoreSizeTakeTheirShare(String strategy, boolean stealing) {
        TurntableExecutor pool = start(pool(2, strategy, stealing));
        pool.setMaximumPoolSize(4);
        pool.setCorePoolSize(4);                          // nothing queued: no thread started yet
        assertEquals(2, pool.getPoolSize());
        assertTrue(pool.prestartCoreThread());
        assertTrue(pool.prestartCoreThread());
        assertFalse(pool.prestartCoreThread(), "all four core threads are running");
        assertEquals(4, pool.getPoolSize());
        assertEquals(4, threads.created());

        TaskLog log = new TaskLog(400);
        for (int i = 0; i < log.size(); i++) {
            pool.execute(log.task(i));
        }
        awaitLatch(log.finished(), "tasks on the grown pool");
        assertEquals(List.of(), log.notExactlyOnce());

        if (stealing) {                                   // then every one of the four can be busy at once
            CountDownLatch gate = cleanup.latch(1);
            TaskLog held = new TaskLog(4);
            for (int i = 0; i < held.size(); i++) {
                pool.execute(held.gated(i, gate));
            }
            eventually("four tasks running at once", () -> held.started() == 4);
            assertEquals(4, pool.getActiveCount());
            gate.countDown();
            awaitLatch(held.finished(), "held tasks");
        }
        assertEquals(4, threads.created());
    }

    @ParameterizedTest
    @MethodSource(ALL_AND_STEALING)
    void shrinkingThePoolLosesNoQueuedTask(String strategy, boolean stealing) {
        TurntableExecutor pool = start(pool(4, strategy, stealing).keepAlive(10, MILLISECONDS));
        CountDownLatch gate = cleanup.latch(1);
        TaskLog log = new TaskLog(40);
        for (int i = 0; i < log.size(); i++) {
            pool.execute(log.gated(i, gate));
        }
        eventually("tasks held or queued", () -> log.started() + pool.getQueue().size() == log.size());

        pool.setCorePoolSize(1);
        pool.setMaximumPoolSize(1);
        gate.countDown();          // the surplus workers retire as they finish, leaving their queues behind

        awaitLatch(log.finished(), "tasks queued on retiring workers");
        assertEquals(List.of(), log.notExactlyOnce());
        eventually("pool shrinks to one thread", () -> pool.getPoolSize() == 1);

        TaskLog after = new TaskLog(30);
        for (int i = 0; i < after.size(); i++) {
            pool.execute(after.task(i));
        }
        awaitLatch(after.finished(), "tasks on the shrunk pool");
        assertEquals(List.of(), after.notExactlyOnce());
        assertEquals(1, pool.getPoolSize());
        assertEquals(4, threads.created(), "shrinking makes no thread");
    }

    @ParameterizedTest
    @MethodSource(ALL_AND_STEALING)
    void idleCoreThreadsTimeOutWhenAllowedAndLaterTasksStillRun(String strategy, boolean stealing) {
        TurntableExecutor pool = start(pool(3, strategy, stealing).keepAlive(20, MILLISECONDS));
        assertFalse(pool.allowsCoreThreadTimeOut());
        pool.allowCoreThreadTimeOut(true);
        assertTrue(pool.allowsCoreThreadTimeOut());
        eventually("idle core threads leave", () -> pool.getPoolSize() == 0);

        TaskLog log = new TaskLog(100);
        for (int i = 0; i < log.size(); i++) {
            pool.execute(log.task(i));
        }
        awaitLatch(log.finished(), "tasks after the pool emptied");
        assertEquals(List.of(), log.notExactlyOnce());
        assertTrue(log.runners().stream().allMatch(threads::made));
        eventually("threads leave again", () -> pool.getPoolSize() == 0);
        assertEquals(3, pool.getLargestPoolSize());
    }

    @ParameterizedTest
    @MethodSource(ALL_AND_STEALING)
    void noTaskIsLostWhileWorkersKeepTimingOut(String strategy, boolean stealing) throws Exception {
        TurntableExecutor pool = start(pool(3, strategy, stealing).keepAlive(1, MILLISECONDS));
        pool.allowCoreThreadTimeOut(true);
        for (int round = 0; round < 150; round++) {
            TaskLog log = new TaskLog(1 + round % 6);
            for (int i = 0; i < log.size(); i++) {
                pool.execute(log.task(i));
            }
            int r = round;
            assertTrue(log.finished().await(10, SECONDS),
                    () -> "round " + r + ": " + log.finished().getCount() + " of " + log.size()
                            + " tasks never ran; pool size " + pool.getPoolSize()
                            + ", queued " + pool.getQueue().size());
            assertEquals(List.of(), log.notExactlyOnce(), "round " + round);
            // vary the gap so that workers time out at every point of a burst
            long until = System.nanoTime() + (round % 5) * 300_000L;
            while (System.nanoTime() < until) {
                Thread.onSpinWait();
            }
        }
    }
}
