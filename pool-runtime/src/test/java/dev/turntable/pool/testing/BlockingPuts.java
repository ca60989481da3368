package dev.turntable.pool.testing;

import static dev.turntable.pool.testing.Waits.awaitLatch;
import static dev.turntable.pool.testing.Waits.eventually;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * A hand-off pool's rejection handler that blocks the submitter until a worker takes its task
 * ({@code getQueue().put(r)}, as applications write back-pressure for a {@code SynchronousQueue}
 * pool), and a submitter held in it. Any thread.
 */
public final class BlockingPuts {

    /** Puts the task into the pool's queue, waiting for a worker; an interrupt rejects it. */
    public static final RejectedExecutionHandler BLOCK = (r, executor) -> {
        try {
            executor.getQueue().put(r);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RejectedExecutionException(e);
        }
    };

    private BlockingPuts() {
    }

    /**
     * Runs a {@link Blocker} on the pool's only worker and waits until it holds it; it lets go
     * when {@code gate} opens (a latch of the test's {@link PoolCleanup}, so it is opened after
     * the test in any case).
     */
    public static void holdTheOnlyWorker(ExecutorService pool, CountDownLatch gate) {
        CountDownLatch busy = new CountDownLatch(1);
        pool.execute(new Blocker("holds the only worker", busy, gate));
        awaitLatch(busy, "the only worker is busy");
    }

    /**
     * Starts a thread whose {@code pool.execute(task)} blocks in the handler's put (every worker
     * busy), and waits until it does; what {@code execute} throws goes into {@code failure}.
     */
    public static Thread blockedSubmitter(ThreadPoolExecutor pool, Runnable task, AtomicReference<Throwable> failure) {
        Thread submitter = new Thread(() -> {
            try {
                pool.execute(task);
            } catch (Throwable t) {
                failure.set(t);
            }
        }, "blocked-submitter");
        submitter.start();
        eventually("the submitter waits in put", () -> LockSupport.getBlocker(submitter) == pool.getQueue());
        return submitter;
    }
}
