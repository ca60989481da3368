package dev.turntable.pool;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The submitters of a hand-off {@link TurntableQueue} that wait in {@code put} or a timed
 * {@code offer} because no worker was idle, each holding its task until a worker (or a foreign
 * {@code poll} or {@code drainTo}) takes it from its hands, as a {@code SynchronousQueue}'s
 * waiting {@code put} is taken. Any thread may call any method: submitters call
 * {@link #await}, workers and foreign readers {@link #claim}.
 *
 * <p>Guarantees:
 * <ul>
 *   <li>a waiting task is taken at most once, and {@link #await} returns true exactly when it
 *       was taken: one CAS on the waiting put decides between the taker and the submitter
 *       giving up (timeout or interrupt);</li>
 *   <li>{@link #count()} is raised before a put is published and lowered by whoever ends its
 *       wait (the taker, or the submitter giving up), so a reader that sees 0 has no put to find
 *       that was counted before its read; one that sees more may find none yet (published a
 *       moment later) and looks again;</li>
 *   <li>takers take in arrival order.</li>
 * </ul>
 */
final class WaitingPuts {

    private static final int WAITING = 0;
    private static final int TAKEN = 1;
    private static final int GAVE_UP = 2;

    /**
     * Looks for the submitter's task while it spins before parking: a worker that turns idle
     * takes it within a few microseconds when the pool is at its maximum for one task at a time,
     * which a park and its wake-up (~20-50 µs here) would cost every time. Spun only while the
     * machine has another CPU for the taker to run on.
     */
    private static final int SPINS = Runtime.getRuntime().availableProcessors() > 1 ? 256 : 0;

    /** At most this long in one park: a safety net, then the submitter asks for a taker again. */
    private static final long PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    /** One submitter's waiting task; its value is WAITING, then TAKEN or GAVE_UP, once. */
    private static final class Put extends AtomicInteger {
        final Thread thread;
        final Runnable element;

        Put(Thread thread, Runnable element) {
            this.thread = thread;
            this.element = element;
        }
    }

    private final ConcurrentLinkedQueue<Put> puts = new ConcurrentLinkedQueue<>();
    private final AtomicInteger count = new AtomicInteger();

    /** How many puts wait now (see the guarantees); one volatile read. */
    int count() {
        return count.get();
    }

    /**
     * Takes the oldest waiting put's task and lets its submitter go on, or returns null if none
     * waits. One volatile read when none does.
     */
    Runnable claim() {
        if (count.get() <= 0) {
            return null;
        }
        Put p;
        while ((p = puts.poll()) != null) {
            if (p.compareAndSet(WAITING, TAKEN)) {
                // Full fence (the CAS, then the decrement): the submitter, unparked or reading
                // TAKEN on its own, returns knowing the task is ours; what it wrote into the task
                // before it published the put happened-before its publication (the queue's add).
                count.decrementAndGet();
                LockSupport.unpark(p.thread);
                return p.element;
            }
            // It gave up (and removes itself, which our poll did already): the next one.
        }
        return null;
    }

    /**
     * The calling submitter waits, holding {@code element}, until a taker takes it (true), or
     * {@code nanos} pass (false), or it is interrupted ({@link InterruptedException}), whichever
     * comes first; a task taken in the same instant as the timeout or interrupt counts as taken
     * (true, with the interrupt kept). {@code askForTaker} runs once the put is counted and
     * published, and again after every park: it must wake an idle worker if none is about to look
     * (see {@link TurntableQueue}'s ordering argument). When it returns false or throws, the put
     * no longer counts: the queue may have become empty with no taker involved.
     */
    boolean await(Runnable element, long nanos, Runnable askForTaker, Object blocker)
            throws InterruptedException {
        boolean timed = nanos != Long.MAX_VALUE;
        long deadline = timed ? System.nanoTime() + nanos : 0L;
        Put p = new Put(Thread.currentThread(), element);
        // Counted before published: a taker that finds it has found it counted (claim lowers
        // the count only after it took a put), so the count never reads below what waits.
        count.incrementAndGet();
        puts.add(p);
        askForTaker.run();
        for (int i = 0; i < SPINS; i++) {
            if (p.get() == TAKEN) {
                return true;
            }
            Thread.onSpinWait();
        }
        for (;;) {
            if (p.get() == TAKEN) {
                return true;
            }
            boolean interrupted = Thread.interrupted();
            long left = timed ? deadline - System.nanoTime() : Long.MAX_VALUE;
            if (interrupted || left <= 0) {
                if (p.compareAndSet(WAITING, GAVE_UP)) {
                    count.decrementAndGet();
                    puts.remove(p);
                    if (interrupted) {
                        throw new InterruptedException();
                    }
                    return false;
                }
                if (interrupted) {
                    Thread.currentThread().interrupt(); // taken after all: the put succeeded
                }
                return true;
            }
            LockSupport.parkNanos(blocker, Math.min(left, PARK_NANOS));
            if (p.get() != TAKEN) {
                askForTaker.run();
            }
        }
    }
}
