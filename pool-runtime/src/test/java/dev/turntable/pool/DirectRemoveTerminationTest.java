package dev.turntable.pool;

import static dev.turntable.pool.testing.BlockingPuts.holdTheOnlyWorker;
import static dev.turntable.pool.testing.Waits.awaitGone;
import static dev.turntable.pool.testing.Waits.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.testing.GatedQueue;
import dev.turntable.pool.testing.Hold;
import dev.turntable.pool.testing.PoolCleanup;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The application calls {@code executor.getQueue().remove(task)} itself, not through the
 * executor's {@code remove}, which would re-check termination afterwards. The queue's removal
 * counts each claim on a worker's queue in transit before it makes it, so that {@code size()}
 * never dips; when a worker took the task between the removal's look and its claim, that claim
 * finds nothing and the count stood for a task that was not there. A shut-down pool's last
 * worker, leaving, reads {@code isEmpty()} once in {@code tryTerminate}: reading "not empty"
 * there it returns, and if {@code processWorkerExit}'s {@code addWorker} then reads "empty" no
 * worker is added, and nothing else would ever re-check: the pool stayed SHUTDOWN for good,
 * with no worker and nothing queued. The removal must make the owner re-check termination.
 *
 * <p>The window between the last worker's two reads is a few instructions. To hold it open the
 * engine replaces a {@link GatedQueue}, whose {@code size()} (which {@code TurntableQueue.size()}
 * reads just before the transit count) holds the worker when armed, as a preemption there would;
 * and {@link WaitingTasks#removalProbe} holds the remover before it counts its claim and after
 * that claim came up empty.
 *
 * <p>{@code -DdirectRemoveRounds=200} repeats each interleaving that many times.
 */
final class DirectRemoveTerminationTest {

    private static final int ROUNDS = Integer.getInteger("directRemoveRounds", 3);

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();

    @Test
    void aTurntableExecutorTerminatesWhenADirectRemoveCameUpEmptyAsItsLastWorkerLeft() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            GatedQueue gated = new GatedQueue();
            AtomicReference<Thread> worker = new AtomicReference<>();
            TurntableExecutor.Builder b = TurntableExecutor.builder().workers(1).threadFactory(named(worker));
            // The builder has no public way to name a replaced queue: set it as the agent's would be.
            java.lang.reflect.Field f = TurntableExecutor.Builder.class.getDeclaredField("queue");
            f.setAccessible(true);
            ((TurntableQueueBuilder) f.get(b)).replacing(gated);
            AtomicReference<Thread> terminatedBy = new AtomicReference<>();
            TurntableExecutor pool = cleanup.track(new TurntableExecutor(b) {
                @Override
                protected void terminated() {
                    terminatedBy.set(Thread.currentThread());
                    super.terminated();
                }
            });
            removalCameUpEmptyAsTheLastWorkerLeft(pool, pool.getTurntableQueue(), gated, worker, terminatedBy);
        }
    }

    /**
     * An application's own ThreadPoolExecutor on the engine, which tells the queue its owner and
     * its shutdown as the agent does for a pool it takes over: the re-check goes through the
     * owner's {@code remove}.
     */
    @Test
    void anOwnExecutorTerminatesWhenADirectRemoveCameUpEmptyAsItsLastWorkerLeft() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            GatedQueue gated = new GatedQueue();
            AtomicReference<Thread> worker = new AtomicReference<>();
            TurntableQueue q = TurntableQueue.builder().replacing(gated).build();
            AtomicReference<Thread> terminatedBy = new AtomicReference<>();
            ThreadPoolExecutor pool = cleanup.track(new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, q,
                    named(worker)) {
                @Override
                public void shutdown() {
                    super.shutdown();
                    q.ownerShutDown();
                }

                @Override
                public List<Runnable> shutdownNow() {
                    q.ownerStopping(true);
                    List<Runnable> unrun = super.shutdownNow();
                    q.ownerShutDown();
                    return unrun;
                }

                @Override
                protected void terminated() {
                    terminatedBy.set(Thread.currentThread());
                    super.terminated();
                }
            });
            q.setOwner(pool);
            pool.prestartAllCoreThreads();
            removalCameUpEmptyAsTheLastWorkerLeft(pool, q, gated, worker, terminatedBy);
        }
    }

    /**
     * The pool's only worker runs one task and has a second, {@code task}, queued on it; the pool
     * is shut down; a remover sees {@code task} in the worker's queue and is held before it counts
     * its claim. The worker takes {@code task} itself, runs it, reads the queue empty (nothing is
     * counted yet) and leaves; held in {@code tryTerminate}'s {@code isEmpty()}, it reads the
     * transit count only after the remover counted the claim that then found nothing, and goes on
     * to {@code addWorker}'s read only after that count dropped. The pool must then terminate:
     * once the remover and the worker are gone, nothing else ever will. {@code terminatedBy}
     * is the thread that ran {@code terminated()}: the remover's, or the worker's
     * {@code tryTerminate} was not misled and this test no longer holds the window open.
     */
    private void removalCameUpEmptyAsTheLastWorkerLeft(ThreadPoolExecutor pool, TurntableQueue q, GatedQueue gated,
            AtomicReference<Thread> worker, AtomicReference<Thread> terminatedBy) {
        eventually("the worker waits for work", () -> q.parkedWorkerCount() == 1);
        CountDownLatch gate = cleanup.latch(1);
        holdTheOnlyWorker(pool, gate);
        Thread w = worker.get();
        AtomicBoolean ran = new AtomicBoolean();
        Runnable task = () -> ran.set(true);
        pool.execute(task);
        assertEquals(0, q.sharedCount.get(), "the task waits in the worker's own queue");
        assertEquals(1, q.size());
        pool.shutdown(); // the worker is busy, not interrupted: it stays for the task

        Hold beforeCount = new Hold("the remover saw the task in the worker's queue");
        Hold claimedNothing = new Hold("the remover's counted claim found nothing");
        q.waitingTasks.removalProbe = EmptyClaimTerminationTest.probe(beforeCount, claimedNothing);
        AtomicReference<Boolean> removed = new AtomicReference<>();
        Thread remover = new Thread(() -> removed.set(pool.getQueue().remove(task)), "remover");
        remover.start();
        try {
            beforeCount.awaitHeld();
            gated.arm(w);
            gate.countDown();          // the first task ends; getTask's isEmpty() sees the second ...
            gated.awaitEntered();      // ... (held before the transit count, which is 0)
            gated.arm(w);
            gated.open();              // the worker takes the task before the remover claims it, runs it ...
            gated.awaitEntered();      // ... then getTask's isEmpty(): held before the transit count
            gated.arm(w);
            gated.open();              // it reads 0: empty, the worker leaves; tryTerminate's isEmpty() ...
            gated.awaitEntered();      // ... held before the transit count
            beforeCount.release();     // the remover counts its claim, which finds the queue empty
            claimedNothing.awaitHeld();
            gated.arm(w);
            gated.open();              // tryTerminate reads 1: "not empty", returns; addWorker's isEmpty() ...
            gated.awaitEntered();      // ... held before the transit count
            claimedNothing.release();  // the count drops; the removal answers false
            awaitGone(remover);
            gated.open();              // addWorker reads empty: no worker is added
            awaitGone(w);
        } finally {
            beforeCount.release();
            claimedNothing.release();
            gated.open();
            q.waitingTasks.removalProbe = null;
        }
        assertTrue(ran.get());
        assertEquals(Boolean.FALSE, removed.get(), "the worker ran the task: nothing to remove");
        assertEquals(0, q.size());
        assertEquals(0, pool.getPoolSize());
        // Nothing is left that could terminate the pool later: no worker, no removal, no put.
        assertTrue(pool.isTerminated(), "shut down, no worker, queue empty: the pool must have terminated; " + pool);
        assertEquals(remover, terminatedBy.get(), "the worker's tryTerminate read the removal's count: "
                + "only the removal's re-check could terminate the pool");
    }

    private static java.util.concurrent.ThreadFactory named(AtomicReference<Thread> worker) {
        return r -> {
            Thread t = new Thread(r, "worker");
            worker.set(t);
            return t;
        };
    }
}
