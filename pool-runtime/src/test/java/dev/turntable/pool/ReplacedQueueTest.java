package dev.turntable.pool;

import static dev.turntable.pool.testing.Waits.awaitLatch;
import static dev.turntable.pool.testing.Waits.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.testing.PoolCleanup;
import dev.turntable.pool.testing.TaskLog;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A queue built {@code replacing} the one an application gave its executor (what the agent does):
 * the application may still hold that queue and put tasks into it directly, and none of them may
 * be lost, run twice, or hang the code that put them there.
 */
class ReplacedQueueTest {

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();

    private ThreadPoolExecutor pool(int workers, TurntableQueue engine) {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(workers, workers, 0L, TimeUnit.MILLISECONDS, engine);
        engine.setWorkerExitsReported(false); // a plain pool reports nothing; idle workers rescan
        return cleanup.track(pool);
    }

    /** The "block the caller instead of rejecting" handler, written against the application's own queue. */
    private static RejectedExecutionHandler blockingPutInto(BlockingQueue<Runnable> own) {
        return (r, e) -> {
            try {
                own.put(r);
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
                throw new RejectedExecutionException(ie);
            }
        };
    }

    @Test
    void aBlockingHandlerThatPutsIntoTheReplacedQueueLosesNothingAndNeverHangs() {
        // The common "block the caller instead of rejecting" handler, written against the queue
        // the application made: without the engine taking those tasks the second put() would
        // wait forever and the tasks put there would never run.
        ArrayBlockingQueue<Runnable> own = new ArrayBlockingQueue<>(1);
        TurntableQueue engine = TurntableQueue.builder().bounded(1).replacing(own).build();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS, engine, blockingPutInto(own));
        cleanup.track(pool);
        CountDownLatch gate = cleanup.latch(1);
        TaskLog log = new TaskLog(20);
        pool.execute(log.gated(0, gate));
        Thread submitter = new Thread(() -> {
            for (int i = 1; i < 20; i++) {
                pool.execute(log.task(i));
            }
        }, "blocking-submitter");
        submitter.start();
        eventually("the submitter blocks in the handler's put", () -> own.size() == 1 && engine.remainingCapacity() == 0);
        gate.countDown();
        awaitLatch(log.finished(), "every task, including those the handler put into its own queue");
        assertEquals(List.of(), log.notExactlyOnce());
        eventually("the submitter returned", () -> !submitter.isAlive());
        assertEquals(0, pool.getQueue().size());
        assertEquals(1, engine.remainingCapacity(), "tasks from the replaced queue gave back no place they never held");
    }

    @Test
    void aHandOffPoolsBlockingHandlerThatPutsIntoItsSynchronousQueueLosesNothingAndNeverHangs() {
        // The same handler on a cached-style pool: a put into a SynchronousQueue waits until a
        // worker polls that queue, which without the engine looking at it never happens.
        SynchronousQueue<Runnable> own = new SynchronousQueue<>();
        TurntableQueue engine = TurntableQueue.builder().handOff().replacing(own).build();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(0, 2, 50L, TimeUnit.MILLISECONDS, engine, blockingPutInto(own));
        cleanup.track(pool);
        CountDownLatch gate = cleanup.latch(1);
        TaskLog log = new TaskLog(12);
        pool.execute(log.gated(0, gate));
        pool.execute(log.gated(1, gate));
        Thread submitter = new Thread(() -> {
            for (int i = 2; i < 12; i++) {
                pool.execute(log.task(i));
            }
        }, "blocking-submitter");
        submitter.start();
        eventually("the submitter blocks in the handler's put", () -> submitter.getState() == Thread.State.WAITING);
        gate.countDown();
        awaitLatch(log.finished(), "every task, including those the handler put into its own queue");
        assertEquals(List.of(), log.notExactlyOnce());
        eventually("the submitter returned", () -> !submitter.isAlive());
        eventually("idle workers still time out and leave", () -> pool.getPoolSize() == 0);
    }

    @Test
    void aSynchronousQueuePutReachesAnIdleHandOffWorker() {
        SynchronousQueue<Runnable> own = new SynchronousQueue<>();
        TurntableQueue engine = TurntableQueue.builder().handOff().replacing(own).build();
        ThreadPoolExecutor pool = pool(1, engine);
        engine.setWorkerExitsReported(true);
        pool.prestartAllCoreThreads();
        eventually("the worker parked", () -> engine.parkedWorkerCount() == 1);
        TaskLog log = new TaskLog(1);
        Thread putter = new Thread(() -> {
            try {
                own.put(log.task(0));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "putter");
        putter.setDaemon(true);
        putter.start();
        awaitLatch(log.finished(), "a task put into the replaced SynchronousQueue of an idle pool");
        eventually("the put returned", () -> !putter.isAlive());
        assertEquals(List.of(), log.notExactlyOnce());
    }

    @Test
    void tasksQueuedInTheReplacedQueueBeforePrestartRun() {
        LinkedBlockingQueue<Runnable> own = new LinkedBlockingQueue<>();
        ThreadPoolExecutor pool = pool(2, TurntableQueue.builder().replacing(own).build());
        TaskLog log = new TaskLog(3);
        for (int i = 0; i < 3; i++) {
            own.add(log.task(i));
        }
        assertEquals(3, pool.getQueue().size(), "the pool's queue counts them");
        pool.prestartAllCoreThreads();
        awaitLatch(log.finished(), "tasks queued before the threads started");
        assertEquals(List.of(), log.notExactlyOnce());
    }

    @Test
    void aTaskPutIntoTheReplacedQueueWhileEveryWorkerSleepsStillRuns() {
        LinkedBlockingQueue<Runnable> own = new LinkedBlockingQueue<>();
        TurntableQueue engine = TurntableQueue.builder().replacing(own).build();
        ThreadPoolExecutor pool = pool(2, engine);
        // As under the agent, which reports worker exits: idle workers then park with no rescan
        // of their own, and only the replaced queue's look wakes them.
        engine.setWorkerExitsReported(true);
        pool.prestartAllCoreThreads();
        eventually("both workers parked", () -> engine.parkedWorkerCount() == 2);
        TaskLog log = new TaskLog(2);
        own.add(log.task(0)); // before any task was ever found there: the slow first look
        eventually("a task put into the replaced queue of an idle pool ran", () -> log.ran(0));
        own.add(log.task(1)); // found there before: idle workers look more often now
        awaitLatch(log.finished(), "the second such task");
        assertEquals(List.of(), log.notExactlyOnce());
    }

    @Test
    void aWorkerKeptBusyByItsOwnQueueStillServesTheReplacedQueue() {
        LinkedBlockingQueue<Runnable> own = new LinkedBlockingQueue<>();
        TurntableQueue engine = TurntableQueue.builder().replacing(own).build();
        ThreadPoolExecutor pool = pool(1, engine);
        CountDownLatch gate = cleanup.latch(1);
        List<Integer> order = java.util.Collections.synchronizedList(new ArrayList<>());
        pool.execute(() -> {
            awaitLatch(gate, "gate");
            order.add(-1);
        });
        int queued = 4 * TurntableQueue.REPLACED_LOOK_EVERY;
        for (int i = 0; i < queued; i++) {
            int n = i;
            pool.execute(() -> order.add(n));
        }
        own.add(() -> order.add(1_000_000));
        gate.countDown();
        eventually("everything ran", () -> order.size() == queued + 2);
        int position = order.indexOf(1_000_000);
        assertTrue(position > 0 && position <= TurntableQueue.REPLACED_LOOK_EVERY + 1,
                "the replaced queue's task ran at position " + position + " of " + order.size()
                        + ": within one look interval, not after the whole backlog");
    }

    @Test
    void theCollectionViewAndShutdownNowSeeTheReplacedQueue() {
        LinkedBlockingQueue<Runnable> own = new LinkedBlockingQueue<>();
        TurntableQueue engine = TurntableQueue.builder().replacing(own).build();
        ThreadPoolExecutor pool = pool(1, engine);
        CountDownLatch gate = cleanup.latch(1);
        CountDownLatch started = cleanup.latch(1);
        pool.execute(() -> {
            started.countDown();
            awaitLatch(gate, "gate");
        });
        awaitLatch(started, "the worker is busy");
        Runnable viaPool = () -> { };
        Runnable direct1 = () -> { };
        Runnable direct2 = () -> { };
        Runnable direct3 = () -> { };
        pool.execute(viaPool);
        own.add(direct1);
        own.add(direct2);
        own.add(direct3);

        assertEquals(4, engine.size());
        assertFalse(engine.isEmpty());
        List<Runnable> seen = new ArrayList<>();
        engine.iterator().forEachRemaining(seen::add);
        assertEquals(List.of(viaPool, direct1, direct2, direct3), seen);
        assertEquals(4, engine.toArray().length);
        assertTrue(engine.remove(direct2), "remove finds a task in the replaced queue");
        assertFalse(own.contains(direct2));
        assertSame(viaPool, engine.peek());

        List<Runnable> unrun = pool.shutdownNow();
        assertEquals(List.of(viaPool, direct1, direct3), unrun, "shutdownNow returns the replaced queue's tasks too");
        assertEquals(0, own.size());
        assertNull(engine.poll());
    }

    @Test
    void discardOldestCanTakeATaskFromTheReplacedQueue() {
        LinkedBlockingQueue<Runnable> own = new LinkedBlockingQueue<>();
        TurntableQueue engine = TurntableQueue.builder().replacing(own).build();
        Runnable direct = () -> { };
        own.add(direct);
        assertSame(direct, engine.peek());
        assertSame(direct, engine.poll());
        assertEquals(0, engine.size());
    }

    @Test
    void theBuilderRefusesANullOrTurntableReplacedQueueAndNamesIt() {
        TurntableQueueBuilder b = TurntableQueue.builder();
        IllegalArgumentException none = assertThrows(IllegalArgumentException.class, () -> b.replacing(null));
        assertTrue(none.getMessage().contains("null"), none.getMessage());
        TurntableQueue engine = TurntableQueue.builder().build();
        IllegalArgumentException self = assertThrows(IllegalArgumentException.class, () -> b.replacing(engine));
        assertTrue(self.getMessage().contains("TurntableQueue"), self.getMessage());
        BlockingQueue<Runnable> plain = new LinkedBlockingQueue<>();
        assertSame(b, b.replacing(plain));
    }
}
