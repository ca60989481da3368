package dev.turntable.benchmarks;

import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * One producer's batch: submits {@code n} tasks to a pool and returns when all {@code n} have
 * completed, so an op counts only once its task both went through the queue and ran. The same
 * {@code Runnable} (this object) is submitted {@code n} times: the benchmark measures the pool's
 * dispatch, not the producer's allocation.
 *
 * <p>The producer parks while it waits (the last task of the batch unparks it): a spinning
 * producer would take one of the machine's two CPUs away from the two workers. A task lost by
 * the pool under test fails the benchmark after 30 s without progress instead of hanging it.
 * One instance per producer thread.
 */
public final class Batch implements Runnable {

    private static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(30);

    private final AtomicInteger remaining = new AtomicInteger();
    private volatile Thread waiter;
    private long tokens;

    /** A task: burn the work, then count down. */
    @Override
    public void run() {
        Work.burn(tokens);
        if (remaining.decrementAndGet() == 0) {
            LockSupport.unpark(waiter);
        }
    }

    /**
     * Submits {@code n} tasks of {@code tokens} CPU work each to {@code pool} and waits for all.
     * Not reentrant: one batch at a time per instance.
     */
    public void submitAndAwait(Executor pool, int n, long tokens) {
        this.tokens = tokens; // published to the workers by execute()'s happens-before
        waiter = Thread.currentThread();
        remaining.set(n);
        for (int i = 0; i < n; i++) {
            pool.execute(this);
        }
        int left = remaining.get();
        long lastProgress = System.nanoTime();
        while (left != 0) {
            LockSupport.parkNanos(this, 100_000_000L);
            int now = remaining.get();
            if (now != left) {
                left = now;
                lastProgress = System.nanoTime();
            } else if (left != 0 && System.nanoTime() - lastProgress > STALL_NANOS) {
                throw new IllegalStateException(left + " of " + n + " tasks never completed in " + pool);
            }
        }
    }
}
