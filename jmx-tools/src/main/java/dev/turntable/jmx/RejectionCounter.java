package dev.turntable.jmx;

import java.util.Objects;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.LongAdder;

/**
 * A {@link RejectedExecutionHandler} that counts rejections and then calls the handler it wraps,
 * so the pool's own policy (abort, caller-runs, discard, or the application's) still decides what
 * happens. Installed by {@link TurntableJmx#register}; any thread may call it.
 */
public final class RejectionCounter implements RejectedExecutionHandler {

    /** Makes check-then-set of {@link #install} atomic against another install of ours. */
    private static final Object INSTALL_LOCK = new Object();

    private final RejectedExecutionHandler delegate;
    private final LongAdder rejected = new LongAdder();

    private RejectionCounter(RejectedExecutionHandler delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /**
     * Wraps {@code executor}'s current handler in a counter, unless it already is one; returns the
     * counter in place.
     */
    public static RejectionCounter install(ThreadPoolExecutor executor) {
        synchronized (INSTALL_LOCK) {
            RejectedExecutionHandler h = executor.getRejectedExecutionHandler();
            if (h instanceof RejectionCounter) {
                return (RejectionCounter) h;
            }
            RejectionCounter c = new RejectionCounter(h);
            executor.setRejectedExecutionHandler(c);
            return c;
        }
    }

    /** Counts, then lets the wrapped handler decide (it may throw, as {@code AbortPolicy} does). */
    @Override
    public void rejectedExecution(Runnable task, ThreadPoolExecutor executor) {
        rejected.increment();
        delegate.rejectedExecution(task, executor);
    }

    /** Rejections counted since installation. */
    public long count() {
        return rejected.sum();
    }

    /** The handler this counter calls. */
    public RejectedExecutionHandler delegate() {
        return delegate;
    }
}
