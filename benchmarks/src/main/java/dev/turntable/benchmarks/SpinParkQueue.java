package dev.turntable.benchmarks;

import java.util.AbstractQueue;
import java.util.Collection;
import java.util.Iterator;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.jctools.queues.MpmcArrayQueue;

/**
 * A benchmark-only, unbounded-enough {@link BlockingQueue} meant to be as cheap as a
 * {@code ThreadPoolExecutor} work queue can be: one JCTools {@code MpmcArrayQueue} (the
 * {@code Unsafe} variant, JCTools' fastest, or on request the field-updater
 * {@code MpmcAtomicArrayQueue} that Turntable's workers use), takers that spin, then yield, then park, and a
 * submitter that touches a waiter count only to wake a parked taker. No strategy, no statistics,
 * no per-worker queues, no stealing, no accounting for {@code remove} or {@code drainTo} beyond
 * what the array queue gives.
 *
 * <p><b>What it is for:</b> the ceiling of the engine's architecture. Turntable keeps
 * ThreadPoolExecutor and replaces only its queue, so every task still pays
 * {@code ThreadPoolExecutor.execute} and {@code runWorker} (worker lock, hooks, counters). A
 * {@code ThreadPoolExecutor} on this queue shows how far any work queue, however cheap, can move
 * the pool's no-op throughput; {@code ForkJoinPool} has no such per-task frame and is not a bound
 * for it. Not a product: it has no capacity semantics beyond {@value #CAPACITY} tasks (an offer
 * over that fails, so the executor rejects), and a wake-up may go to a taker that has already
 * found other work, which is harmless only because every taker polls again before it parks.
 *
 * <p>Threads: any number of submitters and takers, concurrently.
 */
final class SpinParkQueue extends AbstractQueue<Runnable> implements BlockingQueue<Runnable> {

    /** Far more than a benchmark batch (1,000 per producer); a power of two. */
    static final int CAPACITY = 1 << 16;
    /** Polls with {@code onSpinWait} before yielding (Turntable's workers spin 32 times; every ceiling number was measured with 64). */
    private static final int SPINS = 64;
    /** Polls with {@code Thread.yield} before parking. */
    private static final int YIELDS = 16;

    private final java.util.Queue<Runnable> queue;
    private final ConcurrentLinkedQueue<Thread> parked = new ConcurrentLinkedQueue<>();
    private final AtomicInteger parkedCount = new AtomicInteger();

    /** @param atomic JCTools' field-updater variant ({@code MpmcAtomicArrayQueue}), the one Turntable's workers use */
    SpinParkQueue(boolean atomic) {
        queue = atomic ? new org.jctools.queues.atomic.MpmcAtomicArrayQueue<>(CAPACITY) : new MpmcArrayQueue<>(CAPACITY);
    }

    @Override
    public boolean offer(Runnable task) {
        Objects.requireNonNull(task, "task");
        if (!queue.offer(task)) {
            return false;
        }
        // Dekker with await(): a parking taker raises the count, then polls once more; we push,
        // then read the count. The fence keeps the push (whose element and sequence are
        // release stores after the index CAS) before that read, so one side sees the other.
        java.lang.invoke.VarHandle.fullFence();
        if (parkedCount.get() > 0) {
            Thread t = parked.poll();
            if (t != null) {
                LockSupport.unpark(t);
            }
        }
        return true;
    }

    @Override
    public Runnable take() throws InterruptedException {
        return await(false, 0L);
    }

    @Override
    public Runnable poll(long timeout, TimeUnit unit) throws InterruptedException {
        return await(true, unit.toNanos(timeout));
    }

    private Runnable await(boolean timed, long nanos) throws InterruptedException {
        Runnable r = queue.poll();
        if (r != null) {
            return r;
        }
        for (int i = 0; i < SPINS + YIELDS; i++) {
            if (i < SPINS) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
            if ((r = queue.poll()) != null) {
                return r;
            }
        }
        long deadline = timed ? System.nanoTime() + nanos : 0L;
        Thread me = Thread.currentThread();
        for (;;) {
            parkedCount.incrementAndGet(); // full barrier: before the re-check below
            parked.offer(me);
            try {
                if ((r = queue.poll()) != null) {
                    return r;
                }
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
                if (timed) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return null;
                    }
                    LockSupport.parkNanos(this, left);
                } else {
                    LockSupport.park(this);
                }
            } finally {
                parked.remove(me); // cold path: after a park, not per task
                parkedCount.decrementAndGet();
            }
            // Woken (or a spurious return): back to the top, which counts us again and polls.
        }
    }

    @Override
    public Runnable poll() {
        return queue.poll();
    }

    @Override
    public Runnable peek() {
        return queue.peek();
    }

    @Override
    public void put(Runnable task) throws InterruptedException {
        while (!offer(task)) {
            Thread.yield();
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
        }
    }

    @Override
    public boolean offer(Runnable task, long timeout, TimeUnit unit) {
        return offer(task);
    }

    @Override
    public int remainingCapacity() {
        return CAPACITY - queue.size();
    }

    @Override
    public int drainTo(Collection<? super Runnable> c) {
        return drainTo(c, Integer.MAX_VALUE);
    }

    @Override
    public int drainTo(Collection<? super Runnable> c, int max) {
        int n = 0;
        Runnable r;
        while (n < max && (r = queue.poll()) != null) {
            c.add(r);
            n++;
        }
        return n;
    }

    @Override
    public int size() {
        return queue.size();
    }

    @Override
    public boolean isEmpty() {
        return queue.isEmpty();
    }

    /** Weakly consistent, as JCTools' own iterator; enough for the executor's shutdown paths. */
    @Override
    public Iterator<Runnable> iterator() {
        return queue.iterator();
    }
}
