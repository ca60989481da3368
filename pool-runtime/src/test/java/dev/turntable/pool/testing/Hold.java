package dev.turntable.pool.testing;

import static dev.turntable.pool.testing.Waits.awaitLatch;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One point where a thread is held, the first time it gets there, until the test releases it:
 * for a test seam's callbacks (which must not throw). Optionally only one chosen thread is held;
 * any other passes through.
 */
public final class Hold {
    private final String what;
    private final Thread only;
    private final CountDownLatch held = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);
    private final AtomicBoolean used = new AtomicBoolean();
    private volatile Thread holder;

    /** Holds whichever thread gets there first. */
    public Hold(String what) {
        this(what, null);
    }

    /** Holds {@code only} (null: whichever thread gets there first). */
    public Hold(String what, Thread only) {
        this.what = what;
        this.only = only;
    }

    /**
     * On the held thread: never throws; gives up after {@link Waits#LONG}. Deaf to interrupts
     * while held ({@link Waits#holdDeafToInterrupts}): a pool's worker held here may be
     * interrupted by the executor meanwhile (shutdown, tryTerminate) and must not slip past.
     */
    public void hold() {
        if ((only != null && Thread.currentThread() != only) || !used.compareAndSet(false, true)) {
            return;
        }
        holder = Thread.currentThread();
        held.countDown();
        Waits.holdDeafToInterrupts(release);
    }

    public void awaitHeld() {
        awaitLatch(held, what);
    }

    public boolean wasHeld() {
        return held.getCount() == 0;
    }

    /** The thread held here (once {@link #awaitHeld} has returned), or null. */
    public Thread holder() {
        return holder;
    }

    public void release() {
        release.countDown();
    }
}
