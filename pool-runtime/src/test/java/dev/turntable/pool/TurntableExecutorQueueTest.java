package dev.turntable.pool;

import static dev.turntable.pool.testing.Waits.awaitLatch;
import static dev.turntable.pool.testing.Waits.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.testing.CountingThreadFactory;
import dev.turntable.pool.testing.PoolCleanup;
import dev.turntable.pool.testing.TaskLog;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * getQueue() as a BlockingQueue of the waiting (not yet started) tasks: size, contains, toArray,
 * iterator, remove, drainTo, remainingCapacity, and purge() of cancelled futures.
 */
class TurntableExecutorQueueTest {

    private static final String ALL = "dev.turntable.pool.testing.Params#strategies";

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();
    private final CountingThreadFactory threads = new CountingThreadFactory("queue");

    /** Stealing is on so that every worker picks up one of the held tasks. */
    private TurntableExecutor start(int workers, String strategy) {
        return cleanup.track(TurntableExecutor.builder()
                .workers(workers)
                .strategy(strategy)
                .taskStealing(true)
                .threadFactory(threads)
                .build());
    }

    /** Executes gated tasks [0, n) and waits until all n hold a worker each. */
    private static List<TaskLog.Task> occupy(TurntableExecutor pool, TaskLog log, CountDownLatch gate, int n) {
        List<TaskLog.Task> running = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            running.add(log.gated(i, gate));
            pool.execute(running.get(i));
        }
        eventually(n + " tasks holding the workers", () -> log.started() == n);
        return running;
    }

    private static Set<Runnable> asSet(Object[] array) {
        Set<Runnable> set = new HashSet<>();
        for (Object o : array) {
            set.add((Runnable) o);
        }
        return set;
    }

    private static void assertListsExactly(BlockingQueue<Runnable> queue, List<? extends Runnable> waiting,
                                           List<? extends Runnable> running) {
        Set<Runnable> expected = new HashSet<>(waiting);
        assertEquals(waiting.size(), queue.size());
        assertEquals(waiting.isEmpty(), queue.isEmpty());
        for (Runnable r : waiting) {
            assertTrue(queue.contains(r), () -> "queue should contain waiting " + r);
        }
        for (Runnable r : running) {
            assertFalse(queue.contains(r), () -> "queue should not contain running " + r);
        }
        Object[] plain = queue.toArray();
        assertEquals(waiting.size(), plain.length);
        assertEquals(expected, asSet(plain));
        Runnable[] typed = queue.toArray(new Runnable[0]);
        assertEquals(waiting.size(), typed.length);
        assertEquals(expected, asSet(typed));
        List<Runnable> iterated = new ArrayList<>();
        for (Iterator<Runnable> it = queue.iterator(); it.hasNext(); ) {
            iterated.add(it.next());
        }
        assertEquals(waiting.size(), iterated.size(), "iterator yields each waiting task once");
        assertEquals(expected, new HashSet<>(iterated));
        if (!waiting.isEmpty()) {
            assertTrue(expected.contains(queue.peek()), "peek returns a waiting task");
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void queueOfASingleWorkerListsItsWaitingTasks(String strategy) {
        TurntableExecutor pool = start(1, strategy);
        CountDownLatch gate = cleanup.latch(1);
        TaskLog log = new TaskLog(6);
        List<TaskLog.Task> running = occupy(pool, log, gate, 1);
        List<TaskLog.Task> waiting = new ArrayList<>();
        for (int i = 1; i < log.size(); i++) {
            waiting.add(log.task(i));
            pool.execute(waiting.get(i - 1));
        }
        assertListsExactly(pool.getQueue(), waiting, running);
        assertTrue(pool.getQueue().remainingCapacity() >= Integer.MAX_VALUE - waiting.size(), "unbounded");
        assertEquals(waiting.get(0), pool.getQueue().peek(), "the head is the oldest waiting task");

        gate.countDown();
        awaitLatch(log.finished(), "tasks");
        assertListsExactly(pool.getQueue(), List.of(), List.of());
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void aSingleWorkerRunsTasksInSubmissionOrder(String strategy) {
        TurntableExecutor pool = start(1, strategy);
        CountDownLatch gate = cleanup.latch(1);
        TaskLog holder = new TaskLog(1);
        occupy(pool, holder, gate, 1);
        Queue<Integer> order = new ConcurrentLinkedQueue<>();
        CountDownLatch done = new CountDownLatch(50);
        for (int i = 0; i < 50; i++) {
            int n = i;
            pool.execute(() -> {
                order.add(n);
                done.countDown();
            });
        }
        gate.countDown();
        awaitLatch(done, "ordered tasks");
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            expected.add(i);
        }
        assertEquals(expected, new ArrayList<>(order), "one worker runs its queue first in, first out");
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void queueOfSeveralWorkersListsEveryWaitingTask(String strategy) {
        TurntableExecutor pool = start(3, strategy);
        CountDownLatch gate = cleanup.latch(1);
        TaskLog log = new TaskLog(15);
        List<TaskLog.Task> running = occupy(pool, log, gate, 3);
        List<TaskLog.Task> waiting = new ArrayList<>();
        for (int i = 3; i < log.size(); i++) {
            waiting.add(log.task(i));
            pool.execute(waiting.get(i - 3));
        }
        assertListsExactly(pool.getQueue(), waiting, running);
        assertEquals(3 + waiting.size(), pool.getTaskCount());

        gate.countDown();
        awaitLatch(log.finished(), "tasks");
        assertEquals(List.of(), log.notExactlyOnce());
        assertTrue(pool.getQueue().isEmpty());
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void removingAWaitingTaskMeansItNeverRunsButARunningOneCannotBeRemoved(String strategy) {
        TurntableExecutor pool = start(3, strategy);
        CountDownLatch gate = cleanup.latch(1);
        TaskLog log = new TaskLog(12);
        List<TaskLog.Task> running = occupy(pool, log, gate, 3);
        List<TaskLog.Task> waiting = new ArrayList<>();
        for (int i = 3; i < log.size(); i++) {
            waiting.add(log.task(i));
            pool.execute(waiting.get(i - 3));
        }

        assertTrue(pool.getQueue().remove(waiting.get(2)));
        assertFalse(pool.getQueue().remove(waiting.get(2)), "already removed");
        assertTrue(pool.remove(waiting.get(5)));
        assertFalse(pool.getQueue().remove(running.get(0)), "a running task is not in the queue");
        assertFalse(pool.remove(running.get(1)));
        assertFalse(pool.getQueue().remove(log.task(0)), "an equal-looking but different task");

        List<TaskLog.Task> stillWaiting = new ArrayList<>(waiting);
        stillWaiting.remove(waiting.get(5));
        stillWaiting.remove(waiting.get(2));
        assertListsExactly(pool.getQueue(), stillWaiting, running);

        gate.countDown();
        eventually("remaining tasks done", () -> log.finished().getCount() == 2);
        eventually("completed count", () -> pool.getCompletedTaskCount() == 10);
        assertEquals(0, waiting.get(2).runs());
        assertEquals(0, waiting.get(5).runs());
        for (TaskLog.Task t : stillWaiting) {
            assertEquals(1, t.runs(), t::toString);
        }
        for (TaskLog.Task t : running) {
            assertEquals(1, t.runs(), t::toString);
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void purgeRemovesCancelledFuturesFromTheQueue(String strategy) throws Exception {
        TurntableExecutor pool = start(2, strategy);
        CountDownLatch gate = cleanup.latch(1);
        TaskLog holders = new TaskLog(2);
        occupy(pool, holders, gate, 2);
        TaskLog log = new TaskLog(6);
        List<Future<?>> futures = new ArrayList<>();
        for (int i = 0; i < log.size(); i++) {
            futures.add(pool.submit(log.task(i)));
        }
        assertTrue(futures.get(1).cancel(true));
        assertTrue(futures.get(4).cancel(false));
        assertEquals(6, pool.getQueue().size(), "cancelled futures stay queued until purged");

        pool.purge();
        assertEquals(4, pool.getQueue().size());
        assertEquals(2 + 4, pool.getTaskCount());
        pool.purge();
        assertEquals(4, pool.getQueue().size(), "a second purge finds nothing");

        gate.countDown();
        for (int i = 0; i < futures.size(); i++) {
            Future<?> f = futures.get(i);
            if (i == 1 || i == 4) {
                assertThrows(CancellationException.class, f::get);
            } else {
                f.get(30, java.util.concurrent.TimeUnit.SECONDS);
            }
        }
        assertEquals(0, log.runs(1));
        assertEquals(0, log.runs(4));
        for (int i : new int[] {0, 2, 3, 5}) {
            assertEquals(1, log.runs(i), "task " + i);
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void drainToTakesOutEveryWaitingTaskAndNoneOfThemRuns(String strategy) {
        TurntableExecutor pool = start(2, strategy);
        CountDownLatch gate = cleanup.latch(1);
        TaskLog log = new TaskLog(10);
        List<TaskLog.Task> running = occupy(pool, log, gate, 2);
        List<TaskLog.Task> waiting = new ArrayList<>();
        for (int i = 2; i < log.size(); i++) {
            waiting.add(log.task(i));
            pool.execute(waiting.get(i - 2));
        }

        List<Runnable> drained = new ArrayList<>();
        assertEquals(3, pool.getQueue().drainTo(drained, 3));
        assertEquals(5, pool.getQueue().size());
        assertEquals(5, pool.getQueue().drainTo(drained));
        assertEquals(0, pool.getQueue().drainTo(drained));
        assertEquals(8, drained.size());
        assertEquals(new HashSet<>(waiting), new HashSet<>(drained), "each waiting task drained once");
        assertListsExactly(pool.getQueue(), List.of(), running);

        gate.countDown();
        eventually("held tasks done", () -> pool.getCompletedTaskCount() == 2);
        for (TaskLog.Task t : waiting) {
            assertEquals(0, t.runs(), () -> "drained " + t + " ran");
        }
        eventually("drained tasks do not count", () -> pool.getTaskCount() == 2);
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void boundedQueueReportsItsRemainingCapacity(String strategy) {
        TurntableExecutor pool = cleanup.track(TurntableExecutor.builder()
                .workers(2)
                .strategy(strategy)
                .queueCapacity(5)
                .threadFactory(threads)
                .build());
        assertEquals(5, pool.getQueue().remainingCapacity());
        CountDownLatch gate = cleanup.latch(1);
        TaskLog log = new TaskLog(5);
        occupy(pool, log, gate, 2);
        pool.execute(log.task(2));
        pool.execute(log.task(3));
        pool.execute(log.task(4));
        assertEquals(2, pool.getQueue().remainingCapacity());
        assertTrue(pool.getQueue().remove(pool.getQueue().peek()));
        assertEquals(3, pool.getQueue().remainingCapacity(), "a removed task frees its place");
        gate.countDown();
        // A worker's place comes back as it starts the task it took, a moment after size()
        // dropped and before ThreadPoolExecutor counts it active: wait for the places, not for
        // an empty queue (a place never given back fails here after Waits.LONG).
        eventually("every place free again", () -> pool.getQueue().isEmpty() && pool.getActiveCount() == 0
                && pool.getQueue().remainingCapacity() == 5);
    }
}
