package dev.turntable.pool.testing;

import static dev.turntable.pool.testing.Waits.awaitLatch;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.SynchronousQueue;

/**
 * An application's queue for a hand-off engine to replace ({@code replacing}), whose
 * {@code size()} holds one chosen thread on demand: the engine reads it last in its own
 * {@code size()}, so a worker held here has just read every other count, as a preemption at
 * that instant would leave it. Tests call {@link #arm}, {@link #awaitEntered} and {@link #open}
 * from one thread; the held thread is whichever was armed.
 */
@SuppressWarnings("serial")
public final class GatedQueue extends SynchronousQueue<Runnable> {
    private volatile Thread target;
    private volatile CountDownLatch entered = new CountDownLatch(1);
    private volatile CountDownLatch release = new CountDownLatch(1);
    private volatile CountDownLatch held = new CountDownLatch(1);

    /** The next {@code size()} of {@code t} blocks until {@link #open} (which releases the one held now, if any). */
    public void arm(Thread t) {
        entered = new CountDownLatch(1);
        release = new CountDownLatch(1);
        target = t;
    }

    /** Waits until the armed thread is held in {@code size()}. */
    public void awaitEntered() {
        awaitLatch(entered, "the worker reads size()");
    }

    /** Releases the thread held now. */
    public void open() {
        held.countDown();
    }

    @Override
    public int size() {
        if (Thread.currentThread() == target) {
            target = null;
            CountDownLatch r = release;
            held = r;
            entered.countDown();
            // Deaf to interrupts while held, as a preempted thread would be: a held worker may
            // be interrupted meanwhile (tryTerminate's interruptIdleWorkers), and returning then
            // would let it past the read the test holds it at. The interrupt is kept.
            Waits.holdDeafToInterrupts(r);
        }
        return 0;
    }
}
