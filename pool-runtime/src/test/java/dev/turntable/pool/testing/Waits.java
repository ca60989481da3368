package dev.turntable.pool.testing;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import org.awaitility.Awaitility;

/**
 * Waiting for state without sleeping: latches and Awaitility, each bounded by {@link #LONG}, a
 * limit generous enough that reaching it means the awaited thing is not going to happen.
 */
public final class Waits {

    /** How long a test waits for something that should happen almost at once. */
    public static final Duration LONG = Duration.ofSeconds(30);

    private Waits() {
    }

    /** Waits for the latch to open; fails the test if it does not within {@link #LONG}. */
    public static void awaitLatch(CountDownLatch latch, String what) {
        try {
            boolean opened = latch.await(LONG.toMillis(), MILLISECONDS);
            assertTrue(opened, () -> what + ": still " + latch.getCount() + " to go after " + LONG);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for " + what, e);
        }
    }

    /** Waits until the condition holds; fails the test if it does not within {@link #LONG}. */
    public static void eventually(String what, Callable<Boolean> condition) {
        Awaitility.await(what)
                .atMost(LONG)
                .pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(2))
                .until(condition);
    }

    /**
     * Waits for the latch to open, as a task that ignores interrupts would (shutdownNow's, a
     * rebalancing stop): each interrupt is noted and the wait goes on; the thread's interrupt
     * status is set again on the way out. Fails the test if the latch is not opened within
     * {@link #LONG}.
     */
    public static void awaitIgnoringInterrupts(CountDownLatch latch) {
        boolean interrupted = false;
        try {
            for (;;) {
                try {
                    if (latch.await(LONG.toMillis(), MILLISECONDS)) {
                        return;
                    }
                    throw new AssertionError("the test never opened the latch within " + LONG);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * For a thread a test holds at some point (a gate, a probe): waits for the latch to open, up
     * to {@link #LONG}, deaf to interrupts, as a thread preempted there would be (a pool's
     * worker may be interrupted by the executor meanwhile, and must not slip past the point it
     * is held at); the interrupt is set again on the way out. Never throws: it may run inside
     * the code under test.
     */
    public static void holdDeafToInterrupts(CountDownLatch latch) {
        long deadline = System.nanoTime() + LONG.toNanos();
        boolean interrupted = false;
        try {
            for (;;) {
                try {
                    latch.await(deadline - System.nanoTime(), NANOSECONDS);
                    return;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Waits for the thread to end; fails the test if it does not within {@link #LONG}. */
    public static void awaitGone(Thread t) {
        try {
            t.join(LONG.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for " + t.getName() + " to end", e);
        }
        assertFalse(t.isAlive(), () -> t.getName() + " still running after " + LONG);
    }

    /** Waits for the executor to terminate; fails the test if it does not within {@link #LONG}. */
    public static void awaitTerminated(ExecutorService executor) {
        try {
            assertTrue(executor.awaitTermination(LONG.toMillis(), MILLISECONDS),
                    () -> "executor did not terminate within " + LONG + ": " + executor);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while awaiting termination", e);
        }
    }
}
