package dev.turntable.pool;

import static dev.turntable.pool.testing.Waits.awaitLatch;
import static dev.turntable.pool.testing.Waits.awaitTerminated;
import static dev.turntable.pool.testing.Waits.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.testing.CountingThreadFactory;
import dev.turntable.pool.testing.HookedExecutor;
import dev.turntable.pool.testing.PoolCleanup;
import dev.turntable.pool.testing.TaskLog;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A user's subclass through the protected constructor: beforeExecute / afterExecute / terminated
 * run around every task, afterExecute sees what a task threw, and a task that throws or interrupts
 * itself costs neither the tasks queued behind it nor a worker slot.
 */
class TurntableExecutorHooksTest {

    private static final String ALL = "dev.turntable.pool.testing.Params#strategies";
    private static final String ALL_AND_STEALING = "dev.turntable.pool.testing.Params#strategiesAndStealing";

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();
    private final CountingThreadFactory threads = new CountingThreadFactory("hooks");

    private HookedExecutor hooked(int workers, String strategy, boolean stealing) {
        return cleanup.track(new HookedExecutor(TurntableExecutor.builder()
                .workers(workers)
                .strategy(strategy)
                .taskStealing(stealing)
                .threadFactory(threads)));
    }

    @ParameterizedTest
    @MethodSource(ALL_AND_STEALING)
    void beforeAndAfterExecuteRunAroundEveryTask(String strategy, boolean stealing) {
        HookedExecutor pool = hooked(3, strategy, stealing);
        assertEquals(3, pool.getPoolSize());
        assertEquals(strategy, pool.getStrategy());

        TaskLog log = new TaskLog(300);
        List<TaskLog.Task> tasks = new ArrayList<>();
        for (int i = 0; i < log.size(); i++) {
            tasks.add(log.task(i));
            pool.execute(tasks.get(i));
        }
        awaitLatch(log.finished(), "tasks");
        eventually("afterExecute for every task", () -> pool.afterCalls() == log.size());

        assertEquals(log.size(), pool.beforeCalls());
        assertEquals(List.of(), pool.hookErrors());
        assertEquals(List.of(), log.notExactlyOnce());
        for (TaskLog.Task task : tasks) {
            assertEquals(Optional.empty(), pool.afterOutcome(task), () -> "afterExecute outcome of " + task);
        }
    }

    @ParameterizedTest
    @MethodSource(ALL_AND_STEALING)
    void afterExecuteGetsWhatATaskThrewAndNothingQueuedIsLost(String strategy, boolean stealing) {
        HookedExecutor pool = hooked(3, strategy, stealing);
        CountDownLatch gate = cleanup.latch(1);
        TaskLog log = new TaskLog(60);
        List<TaskLog.Task> tasks = new ArrayList<>();
        int failures = 0;
        for (int i = 0; i < log.size(); i++) {
            boolean fail = i % 4 == 0;
            failures += fail ? 1 : 0;
            // held at the gate, so the rest queue up behind them on whichever workers they went to
            tasks.add(fail ? log.failing(i, gate) : log.gated(i, gate));
            pool.execute(tasks.get(i));
        }
        gate.countDown();

        awaitLatch(log.finished(), "tasks, failing or not");
        eventually("afterExecute for every task", () -> pool.afterCalls() == log.size());
        assertEquals(List.of(), log.notExactlyOnce());
        assertEquals(List.of(), pool.hookErrors());
        for (TaskLog.Task task : tasks) {
            Optional<Throwable> outcome = pool.afterOutcome(task);
            assertNotNull(outcome, () -> "no afterExecute for " + task);
            if (task.index % 4 == 0) {
                Throwable thrown = outcome.orElse(null);
                assertInstanceOf(TaskLog.TaskFailure.class, thrown, () -> "afterExecute of " + task);
                assertEquals(task.index, ((TaskLog.TaskFailure) thrown).index);
            } else {
                assertEquals(Optional.empty(), outcome, () -> "afterExecute of " + task);
            }
        }
        int expectedThreads = 3 + failures;
        eventually("each failed worker replaced", () -> threads.created() == expectedThreads);
        eventually("pool back to its size", () -> pool.getPoolSize() == 3);
        eventually("completed count includes failures", () -> pool.getCompletedTaskCount() == log.size());
        eventually("failures reach the threads' handler", () -> threads.uncaught().size() == expectedThreads - 3);
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void aFailingTaskDoesNotLoseTheTasksQueuedBehindItOnItsWorker(String strategy) {
        HookedExecutor pool = hooked(1, strategy, true);
        CountDownLatch gate = cleanup.latch(1);
        TaskLog log = new TaskLog(20);
        for (int i = 0; i < log.size(); i++) {
            boolean fail = i == 0 || i == 5 || i == 6 || i == 19;
            pool.execute(fail ? log.failing(i, i == 0 ? gate : null) : log.task(i));
        }
        eventually("all but the first wait behind it", () -> pool.getQueue().size() == 19);
        gate.countDown();

        awaitLatch(log.finished(), "tasks behind failing ones");
        assertEquals(List.of(), log.notExactlyOnce());
        eventually("afterExecute for every task", () -> pool.afterCalls() == log.size());
        eventually("the worker is replaced after each failure", () -> threads.created() == 1 + 4);
        eventually("pool back to one thread", () -> pool.getPoolSize() == 1);
        assertEquals(List.of(), pool.hookErrors());

        TaskLog later = new TaskLog(10);
        for (int i = 0; i < later.size(); i++) {
            pool.execute(later.task(i));
        }
        awaitLatch(later.finished(), "tasks after the failures");
        assertEquals(List.of(), later.notExactlyOnce());
    }

    @ParameterizedTest
    @MethodSource(ALL_AND_STEALING)
    void aThreadFromAFactorySetLaterLeavesNoQueuedTaskBehindWhenATaskKillsIt(String strategy, boolean stealing) {
        HookedExecutor pool = hooked(1, strategy, stealing);
        CountingThreadFactory later = new CountingThreadFactory("later");
        pool.setThreadFactory(later);
        assertEquals(later, pool.getThreadFactory());

        // first replace the original thread by one from the new factory
        TaskLog killer = new TaskLog(1);
        pool.execute(killer.failing(0, null));
        eventually("replaced by the new factory", () -> later.created() == 1 && pool.getPoolSize() == 1);

        // then let that thread die with tasks queued behind it
        CountDownLatch gate = cleanup.latch(1);
        TaskLog log = new TaskLog(21);
        pool.execute(log.failing(0, gate));
        for (int i = 1; i < log.size(); i++) {
            pool.execute(log.task(i));
        }
        eventually("the rest wait behind the failing task", () -> log.started() == 1 && pool.getQueue().size() == 20);
        gate.countDown();

        awaitLatch(log.finished(), "tasks queued behind a thread from the later factory");
        assertEquals(List.of(), log.notExactlyOnce());
        eventually("pool back to its size", () -> pool.getPoolSize() == 1 && later.created() == 2);
        assertTrue(log.runners().stream().allMatch(later::made));
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void aTaskThatInterruptsItselfNeitherLeaksTheInterruptNorLosesTheNextTask(String strategy) {
        HookedExecutor pool = hooked(1, strategy, true);
        CountDownLatch gate = cleanup.latch(1);
        TaskLog log = new TaskLog(12);
        for (int i = 0; i < log.size(); i++) {
            boolean interrupts = i == 0 || i == 4 || i == 5;
            pool.execute(interrupts ? log.selfInterrupting(i, i == 0 ? gate : null) : log.task(i));
        }
        gate.countDown();

        awaitLatch(log.finished(), "tasks after self-interrupting ones");
        assertEquals(List.of(), log.notExactlyOnce());
        for (int i = 0; i < log.size(); i++) {
            assertFalse(log.interruptedAtStart(i), "task " + i + " started with its thread interrupted");
        }
        assertEquals(1, threads.created(), "an interrupt is not a reason to replace the worker");
        assertEquals(1, pool.getPoolSize());
    }

    @ParameterizedTest
    @MethodSource(ALL_AND_STEALING)
    void terminatedRunsOnceAfterTheLastTask(String strategy, boolean stealing) {
        HookedExecutor pool = hooked(3, strategy, stealing);
        CountDownLatch gate = cleanup.latch(1);
        TaskLog log = new TaskLog(50);
        pool.probeAtTermination(() -> (int) (log.size() - log.finished().getCount()));
        for (int i = 0; i < log.size(); i++) {
            pool.execute(log.gated(i, gate));
        }
        pool.shutdown();
        assertEquals(0, pool.terminatedCalls(), "tasks are still pending");
        gate.countDown();

        awaitTerminated(pool);
        assertEquals(1, pool.terminatedCalls());
        assertEquals(log.size(), pool.seenAtTermination(), "terminated() ran before every task had finished");
        pool.shutdown();
        assertEquals(List.of(), pool.shutdownNow());
        awaitTerminated(pool);
        assertEquals(1, pool.terminatedCalls(), "terminated() runs once");
        assertEquals(List.of(), log.notExactlyOnce());
        assertEquals(List.of(), pool.hookErrors());
    }

    /** A subclass whose hooks do not call super: the engine must not depend on them. */
    static final class BareHooks extends TurntableExecutor {
        final AtomicInteger before = new AtomicInteger();
        final AtomicInteger after = new AtomicInteger();
        final AtomicInteger terminated = new AtomicInteger();

        BareHooks(TurntableExecutor.Builder builder) {
            super(builder);
            prestartAllCoreThreads();
        }

        @Override
        protected void beforeExecute(Thread t, Runnable r) {
            before.incrementAndGet();
        }

        @Override
        protected void afterExecute(Runnable r, Throwable t) {
            after.incrementAndGet();
        }

        @Override
        protected void terminated() {
            terminated.incrementAndGet();
        }
    }

    @ParameterizedTest
    @MethodSource(ALL_AND_STEALING)
    void hooksThatDoNotCallSuperDoNotBreakThePool(String strategy, boolean stealing) {
        BareHooks pool = cleanup.track(new BareHooks(TurntableExecutor.builder()
                .workers(3)
                .strategy(strategy)
                .taskStealing(stealing)
                .threadFactory(threads)));
        TaskLog log = new TaskLog(500);
        for (int i = 0; i < log.size(); i++) {
            pool.execute(log.task(i));
        }
        awaitLatch(log.finished(), "tasks");
        pool.shutdown();
        awaitTerminated(pool);
        assertEquals(List.of(), log.notExactlyOnce());
        assertEquals(log.size(), pool.before.get());
        assertEquals(log.size(), pool.after.get());
        assertEquals(1, pool.terminated.get());
        assertEquals(log.size(), pool.getCompletedTaskCount());
        assertTrue(pool.isTerminated());
    }
}
