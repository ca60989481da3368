package dev.turntable.pool;

import static dev.turntable.pool.testing.BlockingPuts.BLOCK;
import static dev.turntable.pool.testing.BlockingPuts.blockedSubmitter;
import static dev.turntable.pool.testing.BlockingPuts.holdTheOnlyWorker;
import static dev.turntable.pool.testing.Waits.awaitGone;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.testing.GatedQueue;
import dev.turntable.pool.testing.PoolCleanup;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A hand-off queue counts a put waiting for a worker in {@code size()}, so a shut-down
 * ThreadPoolExecutor keeps (or starts) a worker for it. The put may then give up (interrupt,
 * timeout) and make the queue empty without a worker taking anything: ThreadPoolExecutor,
 * which re-checks termination only when a worker leaves or a task is removed through it, must
 * still terminate.
 *
 * <p>The windows are a worker's {@code isEmpty()} read in ThreadPoolExecutor and its next step
 * (parking in {@code take()}, or {@code addWorker}'s own read), a few microseconds wide. To
 * hold one open on demand the queue replaces a {@code SynchronousQueue} whose {@code size()}
 * (which {@code TurntableQueue.size()} reads after the count of waiting puts) blocks the worker
 * once when armed: what a preemption at that instant does.
 */
final class HandOffWithdrawnPutTest {

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();

    private final GatedQueue gated = new GatedQueue();
    private final AtomicReference<Thread> worker = new AtomicReference<>(); // the last one made

    /**
     * A one-worker hand-off TurntableExecutor whose engine replaces {@link #gated} (the builder
     * has no public way to say so: its engine builder is set here as the agent's would be).
     */
    private TurntableExecutor pool() throws ReflectiveOperationException {
        return cleanup.track(builder().build());
    }

    private TurntableExecutor.Builder builder() throws ReflectiveOperationException {
        TurntableExecutor.Builder b = TurntableExecutor.builder().workers(1).handOff().rejectionHandler(BLOCK)
                .threadFactory(r -> {
                    Thread t = new Thread(r, "worker");
                    worker.set(t);
                    return t;
                });
        java.lang.reflect.Field f = TurntableExecutor.Builder.class.getDeclaredField("queue");
        f.setAccessible(true);
        ((TurntableQueueBuilder) f.get(b)).replacing(gated);
        return b;
    }

    @Test
    void aWorkerThatSawAWaitingPutDoesNotParkForGoodWhenThePutGivesUp() throws Exception {
        TurntableExecutor pool = pool();
        putGivesUpAfterTheWorkerSawIt(pool, () -> { });
    }

    /** A subclass whose {@code remove} keeps books of its own and never calls {@code super}. */
    @Test
    void aSubclassWhoseRemoveSkipsSuperStillTerminatesWhenAPutGivesUp() throws Exception {
        AtomicBoolean removeCalled = new AtomicBoolean();
        TurntableExecutor pool = cleanup.track(new TurntableExecutor(builder()) {
            @Override
            public boolean remove(Runnable task) {
                removeCalled.set(true);
                return false; // tasks are never taken back here
            }
        });
        putGivesUpAfterTheWorkerSawIt(pool, () -> { });
        assertFalse(removeCalled.get(), "the re-check went through the override");
    }

    /** The owner cleared while a put it counted waits: the put still makes that owner re-check. */
    @Test
    void anOwnerClearedWhileAPutWaitsStillTerminatesWhenThePutGivesUp() throws Exception {
        TurntableExecutor pool = pool();
        putGivesUpAfterTheWorkerSawIt(pool, () -> pool.getTurntableQueue().setOwner(null));
    }

    /**
     * The pool's only worker, kept by a waiting put after {@code shutdown()}, reads that put in
     * {@code isEmpty()}; then {@code meanwhile} runs and the put gives up: the pool must terminate.
     */
    private void putGivesUpAfterTheWorkerSawIt(TurntableExecutor pool, Runnable meanwhile) throws Exception {
        TurntableQueue q = pool.getTurntableQueue();
        CountDownLatch gate = cleanup.latch(1);
        holdTheOnlyWorker(pool, gate);

        AtomicBoolean ran = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread submitter = blockedSubmitter(pool, () -> ran.set(true), failure);
        pool.shutdown(); // the put keeps the worker: size() is 1

        gated.arm(worker.get());
        gate.countDown();          // the worker's task ends; getTask reads isEmpty(): false ...
        gated.awaitEntered();      // ... and is held just after reading the waiting put's count
        meanwhile.run();
        submitter.interrupt();     // the put gives up: the queue is empty now
        awaitGone(submitter);
        assertTrue(failure.get() instanceof RejectedExecutionException, String.valueOf(failure.get()));
        gated.open();              // the worker goes on into take(), on the count it read

        assertEquals(0, q.size());
        assertTrue(pool.awaitTermination(5, TimeUnit.SECONDS),
                "shut down, queue empty, worker idle: the pool must terminate; " + pool);
        assertFalse(ran.get());
    }

    @Test
    void theLastWorkerLeavingWhileAPutGivesUpStillTerminatesThePool() throws Exception {
        TurntableExecutor pool = pool();
        putGivesUpAsTheLastWorkerLeaves(pool, pool.getTurntableQueue());
    }

    /**
     * A pool of the application's own (as the agent takes over) whose {@code isTerminated()}
     * is refused, as a container-managed executor's lifecycle queries can be: asking it must not
     * keep the queue from making a shut-down owner re-check termination when a put gives up
     * (a terminated pool's re-check does nothing, so there is nothing to ask).
     */
    @Test
    void anOwnerWhoseIsTerminatedThrowsStillTerminatesWhenAPutGivesUpAsItsLastWorkerLeaves() throws Exception {
        TurntableQueue q = TurntableQueue.builder().handOff().replacing(gated).build();
        java.util.concurrent.ThreadPoolExecutor pool = cleanup.track(new java.util.concurrent.ThreadPoolExecutor(
                1, 1, 0, TimeUnit.MILLISECONDS, q, r -> {
                    Thread t = new Thread(r, "worker");
                    worker.set(t);
                    return t;
                }, BLOCK) {
            @Override
            public boolean isTerminated() {
                throw new UnsupportedOperationException("lifecycle queries are the container's");
            }
        });
        q.setOwner(pool);
        putGivesUpAsTheLastWorkerLeaves(pool, q);
    }

    /**
     * The pool's only worker, after {@code shutdown()}, reads no waiting put and leaves; a put
     * arrives (a handler racing the shutdown) and waits, counted, so {@code tryTerminate} reads a
     * non-empty queue; then the put gives up. The pool must still terminate, with the task never run.
     */
    private void putGivesUpAsTheLastWorkerLeaves(java.util.concurrent.ThreadPoolExecutor pool, TurntableQueue q)
            throws Exception {
        CountDownLatch gate = cleanup.latch(1);
        holdTheOnlyWorker(pool, gate);
        pool.shutdown();

        gated.arm(worker.get());
        gate.countDown();          // getTask: isEmpty() reads no waiting put (held after that read)
        gated.awaitEntered();
        AtomicBoolean ran = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread submitter = blockedSubmitter(pool, () -> ran.set(true), failure);
        gated.arm(worker.get());
        gated.open();              // the worker leaves; tryTerminate reads isEmpty(): false ...
        gated.awaitEntered();      // ... held just after reading the put's count
        submitter.interrupt();     // the put gives up
        awaitGone(submitter);
        assertTrue(failure.get() instanceof RejectedExecutionException, String.valueOf(failure.get()));
        gated.open();              // tryTerminate returns; processWorkerExit's addWorker reads empty: no worker

        assertEquals(0, q.size());
        assertTrue(pool.awaitTermination(5, TimeUnit.SECONDS),
                "shut down, queue empty, no worker: the pool must terminate; " + pool);
        assertFalse(ran.get());
    }
}
