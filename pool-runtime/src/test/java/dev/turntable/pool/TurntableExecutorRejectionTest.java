package dev.turntable.pool;

import static dev.turntable.pool.testing.Waits.awaitLatch;
import static dev.turntable.pool.testing.Waits.awaitTerminated;
import static dev.turntable.pool.testing.Waits.eventually;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.testing.CountingThreadFactory;
import dev.turntable.pool.testing.PoolCleanup;
import dev.turntable.pool.testing.TaskLog;
import dev.turntable.pool.testing.Waits;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Saturation: the bounded queue (queueCapacity), growth to maximumWorkers, direct hand-off
 * (handOff), and the four standard rejection policies, before and after shutdown.
 */
class TurntableExecutorRejectionTest {

    private static final String ALL = "dev.turntable.pool.testing.Params#strategies";
    private static final String ALL_AND_STEALING = "dev.turntable.pool.testing.Params#strategiesAndStealing";

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();
    private final CountingThreadFactory threads = new CountingThreadFactory("rejection");

    /** Stealing is on: these tests need every worker to pick up a task while others are held. */
    private TurntableExecutor.Builder pool(int workers, String strategy) {
        return TurntableExecutor.builder()
                .workers(workers)
                .strategy(strategy)
                .taskStealing(true)
                .threadFactory(threads);
    }

    private TurntableExecutor start(TurntableExecutor.Builder builder) {
        return cleanup.track(builder.build());
    }

    /** Executes gated tasks [from, to) one by one, each time waiting until it runs. */
    private static void occupy(TurntableExecutor pool, TaskLog log, CountDownLatch gate, int from, int to) {
        for (int i = from; i < to; i++) {
            pool.execute(log.gated(i, gate));
            int running = i + 1;
            eventually("task " + i + " running", () -> log.started() == running);
        }
    }

    // ---------------------------------------------------------------- bounded queue

    @ParameterizedTest
    @MethodSource(ALL)
    void aFullBoundedQueueGrowsThePoolToTheMaximumThenAborts(String strategy) {
        TurntableExecutor pool = start(pool(1, strategy)
                .maximumWorkers(2)
                .queueCapacity(2)
                .keepAlive(20, MILLISECONDS));
        CountDownLatch gate = cleanup.latch(1);
        TaskLog log = new TaskLog(5);
        occupy(pool, log, gate, 0, 1);
        assertEquals(2, pool.getQueue().remainingCapacity());
        pool.execute(log.gated(1, gate));
        pool.execute(log.gated(2, gate));
        assertEquals(0, pool.getQueue().remainingCapacity());
        assertEquals(2, pool.getQueue().size());
        assertEquals(1, pool.getPoolSize(), "the queue took them");

        pool.execute(log.gated(3, gate));             // queue full: a second thread takes it
        eventually("the new thread runs it", () -> log.started() == 2);
        assertEquals(2, pool.getPoolSize());
        assertEquals(2, threads.created());

        Runnable overflow = log.task(4);
        assertThrows(RejectedExecutionException.class, () -> pool.execute(overflow));
        assertThrows(RejectedExecutionException.class, () -> pool.submit(overflow));
        assertThrows(RejectedExecutionException.class, () -> pool.submit(() -> "overflow"));
        assertFalse(pool.getQueue().contains(overflow));
        assertEquals(4, pool.getTaskCount());

        gate.countDown();
        eventually("accepted tasks done", () -> log.finished().getCount() == 1);
        assertEquals(0, log.runs(4), "the rejected task never ran");
        for (int i = 0; i < 4; i++) {
            assertEquals(1, log.runs(i), "task " + i);
        }
        eventually("the extra thread times out", () -> pool.getPoolSize() == 1);
        assertEquals(2, pool.getLargestPoolSize());

        TaskLog later = new TaskLog(2);                     // fits the queue: no need for a second thread
        for (int i = 0; i < later.size(); i++) {
            pool.execute(later.task(i));
        }
        awaitLatch(later.finished(), "tasks after the shrink");
        assertEquals(List.of(), later.notExactlyOnce());
        assertEquals(1, pool.getPoolSize(), "the core thread does not time out");
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void boundedCapacityIsSharedByAllWorkers(String strategy) {
        TurntableExecutor pool = start(pool(3, strategy).queueCapacity(4));
        CountDownLatch gate = cleanup.latch(1);
        TaskLog log = new TaskLog(8);
        occupy(pool, log, gate, 0, 3);
        assertEquals(4, pool.getQueue().remainingCapacity());
        for (int i = 3; i < 7; i++) {
            pool.execute(log.gated(i, gate));
            assertEquals(7 - i - 1, pool.getQueue().remainingCapacity(), "after queueing task " + i);
            assertEquals(i - 2, pool.getQueue().size());
        }
        assertThrows(RejectedExecutionException.class, () -> pool.execute(log.task(7)));

        gate.countDown();
        eventually("accepted tasks done", () -> log.finished().getCount() == 1);
        for (int i = 0; i < 7; i++) {
            assertEquals(1, log.runs(i), "task " + i);
        }
        assertEquals(0, log.runs(7));
        assertEquals(4, pool.getQueue().remainingCapacity());
    }

    @ParameterizedTest
    @MethodSource(ALL_AND_STEALING)
    void aRejectedTaskInstanceCanBeSubmittedAgainAndAgain(String strategy, boolean stealing) throws Exception {
        TurntableExecutor pool = start(TurntableExecutor.builder()
                .workers(1)
                .maximumWorkers(3)
                .queueCapacity(3)
                .strategy(strategy)
                .taskStealing(stealing)
                .threadFactory(threads));
        AtomicInteger runs = new AtomicInteger();
        Semaphore completions = new Semaphore(0);
        Runnable same = () -> {                             // one instance, queued many times at once
            runs.incrementAndGet();
            completions.release();
        };
        int accepted = 0;
        while (accepted < 1_000) {
            try {
                pool.execute(same);
                accepted++;
            } catch (RejectedExecutionException saturated) {
                // full, so more completions are on their way: wait for one, then retry
                assertTrue(completions.tryAcquire(Waits.LONG.toMillis(), MILLISECONDS), "no progress");
            }
        }
        eventually("every accepted submission ran", () -> runs.get() == 1_000);
        eventually("completed count", () -> pool.getCompletedTaskCount() == 1_000);
    }

    // ---------------------------------------------------------------- hand-off

    @ParameterizedTest
    @MethodSource(ALL)
    void handOffGivesTasksToIdleWorkersThenGrowsToTheMaximumThenRejects(String strategy) {
        TurntableExecutor pool = start(pool(1, strategy)
                .maximumWorkers(3)
                .handOff()
                .keepAlive(20, MILLISECONDS));
        assertEquals(0, pool.getQueue().remainingCapacity(), "a hand-off queue holds nothing");
        eventually("the core worker is waiting for work", threads::allLiveThreadsParked);
        CountDownLatch gate = cleanup.latch(1);
        TaskLog log = new TaskLog(4);

        occupy(pool, log, gate, 0, 1);
        assertEquals(1, threads.created(), "handed to the idle worker, no new thread");
        occupy(pool, log, gate, 1, 3);
        assertEquals(3, pool.getPoolSize());
        assertEquals(3, threads.created());
        assertTrue(pool.getQueue().isEmpty());

        assertThrows(RejectedExecutionException.class, () -> pool.execute(log.task(3)));
        assertTrue(pool.getQueue().isEmpty());

        gate.countDown();
        eventually("accepted tasks done", () -> log.finished().getCount() == 1);
        assertEquals(0, log.runs(3));
        eventually("extra threads time out", () -> pool.getPoolSize() == 1);

        eventually("the core worker is waiting again", threads::allLiveThreadsParked);
        TaskLog later = new TaskLog(1);
        pool.execute(later.task(0));
        awaitLatch(later.finished(), "a task after the extra threads left");
        assertEquals(List.of(), later.notExactlyOnce());
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void handOffUsesEveryIdleWorkerBeforeRejecting(String strategy) {
        TurntableExecutor pool = start(pool(3, strategy).handOff());
        eventually("all workers waiting for work", threads::allLiveThreadsParked);
        CountDownLatch gate = cleanup.latch(1);
        TaskLog log = new TaskLog(4);
        occupy(pool, log, gate, 0, 3);
        assertEquals(3, threads.created());
        assertThrows(RejectedExecutionException.class, () -> pool.execute(log.task(3)));
        gate.countDown();
        eventually("accepted tasks done", () -> log.finished().getCount() == 1);
        assertEquals(0, log.runs(3));
    }

    // ---------------------------------------------------------------- policies

    @ParameterizedTest
    @MethodSource(ALL)
    void callerRunsPolicyRunsTheRejectedTaskOnTheSubmittingThread(String strategy) {
        TurntableExecutor pool = start(pool(1, strategy)
                .queueCapacity(1)
                .rejectionHandler(new ThreadPoolExecutor.CallerRunsPolicy()));
        CountDownLatch gate = cleanup.latch(1);
        TaskLog log = new TaskLog(2);
        occupy(pool, log, gate, 0, 1);
        pool.execute(log.task(1));                          // fills the queue

        AtomicReference<Thread> ranOn = new AtomicReference<>();
        pool.execute(() -> ranOn.set(Thread.currentThread()));
        assertSame(Thread.currentThread(), ranOn.get(), "ran on the caller, before execute returned");
        assertEquals(0, log.runs(1), "the queued task still waits");

        gate.countDown();
        awaitLatch(log.finished(), "pool tasks");
        assertTrue(log.runners().stream().allMatch(threads::made));
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void discardPolicyDropsTheRejectedTaskSilently(String strategy) {
        TurntableExecutor pool = start(pool(1, strategy)
                .queueCapacity(1)
                .rejectionHandler(new ThreadPoolExecutor.DiscardPolicy()));
        CountDownLatch gate = cleanup.latch(1);
        TaskLog log = new TaskLog(3);
        occupy(pool, log, gate, 0, 1);
        Runnable queued = log.task(1);
        Runnable dropped = log.task(2);
        pool.execute(queued);
        pool.execute(dropped);                              // no exception
        assertEquals(List.of(queued), List.of(pool.getQueue().toArray(new Runnable[0])));

        gate.countDown();
        pool.shutdown();
        awaitTerminated(pool);
        assertEquals(1, log.runs(0));
        assertEquals(1, log.runs(1));
        assertEquals(0, log.runs(2));
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void discardOldestPolicyDropsTheOldestWaitingTask(String strategy) {
        TurntableExecutor pool = start(pool(1, strategy)
                .queueCapacity(2)
                .rejectionHandler(new ThreadPoolExecutor.DiscardOldestPolicy()));
        CountDownLatch gate = cleanup.latch(1);
        TaskLog log = new TaskLog(4);
        occupy(pool, log, gate, 0, 1);
        Runnable oldest = log.task(1);
        Runnable middle = log.task(2);
        Runnable newest = log.task(3);
        pool.execute(oldest);
        pool.execute(middle);
        pool.execute(newest);

        assertEquals(Set.of(middle, newest), Set.of(pool.getQueue().toArray(new Runnable[0])));
        assertFalse(pool.getQueue().contains(oldest));
        gate.countDown();
        pool.shutdown();
        awaitTerminated(pool);
        assertEquals(0, log.runs(1), "the oldest waiting task was dropped");
        assertEquals(1, log.runs(2));
        assertEquals(1, log.runs(3));
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void discardOldestPolicyDropsTheHeadOfTheLongestWorkerQueue(String strategy) {
        // Per-worker queues keep no global arrival order (that would cost a shared counter or a
        // stamp per task on the submit path), so across workers DiscardOldestPolicy drops the
        // head of the longest worker queue: one waiting task, never the new one, nothing else.
        // With a single worker queue it is exactly the oldest (see the single-worker test).
        TurntableExecutor pool = start(pool(3, strategy)
                .queueCapacity(3)
                .rejectionHandler(new ThreadPoolExecutor.DiscardOldestPolicy()));
        CountDownLatch gate = cleanup.latch(1);
        TaskLog log = new TaskLog(7);
        occupy(pool, log, gate, 0, 3);
        for (int i = 3; i < 7; i++) {
            pool.execute(log.task(i));                      // the last one displaces a waiting task
        }
        Set<Integer> queued = queuedIndices(pool);
        assertEquals(3, queued.size(), "still full: one waiting task made room for the new one");
        assertTrue(queued.contains(6), "the new task is queued");
        Set<Integer> dropped = new HashSet<>(Set.of(3, 4, 5));
        dropped.removeAll(queued);
        assertEquals(1, dropped.size(), "exactly one earlier waiting task was dropped");
        int victim = dropped.iterator().next();

        gate.countDown();
        pool.shutdown();
        awaitTerminated(pool);
        assertEquals(0, log.runs(victim), "the dropped task never runs");
        for (int i = 0; i < 7; i++) {
            if (i != victim) {
                assertEquals(1, log.runs(i), "task " + i);
            }
        }
    }

    private static Set<Integer> queuedIndices(TurntableExecutor pool) {
        Set<Integer> indices = new HashSet<>();
        for (Runnable r : pool.getQueue()) {
            indices.add(((TaskLog.Task) r).index);
        }
        return indices;
    }

    @Test
    void afterShutdownEveryPolicyRefusesToRunTheTask() {
        RejectedExecutionHandler[] policies = {
            new ThreadPoolExecutor.AbortPolicy(),
            new ThreadPoolExecutor.CallerRunsPolicy(),
            new ThreadPoolExecutor.DiscardPolicy(),
            new ThreadPoolExecutor.DiscardOldestPolicy(),
        };
        for (RejectedExecutionHandler policy : policies) {
            TurntableExecutor pool = start(pool(1, "LEAST_USED").queueCapacity(1).rejectionHandler(policy));
            pool.shutdown();
            AtomicReference<Thread> ranOn = new AtomicReference<>();
            Runnable task = () -> ranOn.set(Thread.currentThread());
            if (policy instanceof ThreadPoolExecutor.AbortPolicy) {
                assertThrows(RejectedExecutionException.class, () -> pool.execute(task));
            } else {
                pool.execute(task);
            }
            awaitTerminated(pool);
            assertNull(ranOn.get(), () -> policy.getClass().getSimpleName() + " ran the task after shutdown");
            assertTrue(pool.getQueue().isEmpty());
        }
    }
}
