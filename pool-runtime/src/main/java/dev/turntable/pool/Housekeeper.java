package dev.turntable.pool;

import java.lang.ref.WeakReference;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The one background thread (per class loader) that looks after every live {@link TurntableQueue}
 * every {@value #TICK_MILLIS} ms: it marks workers stuck in one task past the heartbeat timeout
 * and hands the retirement turn on if a replacement never came. Daemon, named
 * {@code turntable-housekeeper}, started when the first pool gets a worker and ended when no pool
 * is left. Holds pools weakly, so an application that drops a pool without shutting it down still
 * lets it be collected. Thread-safe; called by queues on their registering workers.
 *
 * <p>Why a thread rather than checks on the task path: a stuck worker is by definition one that
 * does not come back to the queue, and reading a clock per task would cost every pool what only
 * heartbeats need (as HikariCP runs its housekeeper apart from getConnection).
 */
final class Housekeeper {

    static final long TICK_MILLIS = 100;

    private static final CopyOnWriteArrayList<WeakReference<TurntableQueue>> POOLS = new CopyOnWriteArrayList<>();
    private static final Object LOCK = new Object();
    private static Thread thread; // guarded by LOCK

    private Housekeeper() {
    }

    /** Starts looking after {@code q} (idempotent per queue: the queue calls it once). */
    static void register(TurntableQueue q) {
        POOLS.add(new WeakReference<>(q));
        synchronized (LOCK) {
            if (thread == null) {
                // Keeps no class loader of the worker that needs it first: see ServiceThreads. Each
                // pool's own context class loader is set while it is looked after (visit).
                Thread t = ServiceThreads.newThread("turntable-housekeeper", Housekeeper::run);
                t.setPriority(Thread.NORM_PRIORITY);
                thread = t;
                t.start();
            }
        }
    }

    private static void run() {
        for (;;) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(TICK_MILLIS));
            for (WeakReference<TurntableQueue> ref : POOLS) {
                TurntableQueue q = ref.get();
                try {
                    if (q == null || !visit(q)) {
                        POOLS.remove(ref);
                    }
                } catch (Throwable t) {
                    // Never let one pool's failure end housekeeping for all; the next tick retries.
                }
            }
            synchronized (LOCK) {
                if (POOLS.isEmpty()) {
                    thread = null;
                    return;
                }
            }
        }
    }

    /**
     * {@code q.housekeep()} with the context class loader of the thread that built {@code q}:
     * what it may call of the application's (a rebalance listener, a strategy of its own) sees
     * the loader it would on the application's own threads, and the housekeeper keeps none of
     * it between looks. A security manager that refuses the change leaves the loader as it is.
     */
    static boolean visit(TurntableQueue q) {
        Thread me = Thread.currentThread();
        java.lang.ref.WeakReference<ClassLoader> creator = q.creatorContextLoader;
        boolean set = ServiceThreads.setContextLoader(me, creator == null ? null : creator.get());
        try {
            return q.housekeep();
        } finally {
            if (set) {
                ServiceThreads.setContextLoader(me, null);
            }
        }
    }
}
