package dev.turntable.pool.testing;

import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A thread factory that remembers every thread it made, makes them daemons (a broken pool cannot
 * keep the test JVM alive), and records what escapes a worker (a task that threw) instead of
 * printing it.
 */
public final class CountingThreadFactory implements ThreadFactory {

    private final String prefix;
    private final AtomicInteger created = new AtomicInteger();
    private final Set<Thread> threads = ConcurrentHashMap.newKeySet();
    private final Queue<Throwable> uncaught = new ConcurrentLinkedQueue<>();

    public CountingThreadFactory(String prefix) {
        this.prefix = prefix;
    }

    @Override
    public Thread newThread(Runnable r) {
        Thread t = new Thread(r, prefix + "-" + created.incrementAndGet());
        t.setDaemon(true);
        t.setUncaughtExceptionHandler((thread, e) -> uncaught.add(e));
        threads.add(t);
        return t;
    }

    /** How many threads this factory has made. */
    public int created() {
        return created.get();
    }

    /** Whether this factory made {@code t}. */
    public boolean made(Thread t) {
        return threads.contains(t);
    }

    /** The threads this factory made. */
    public Set<Thread> threads() {
        return Set.copyOf(threads);
    }

    /** Whether every live thread this factory made is parked, i.e. idle in the work queue. */
    public boolean allLiveThreadsParked() {
        for (Thread t : threads) {
            Thread.State s = t.getState();
            if (t.isAlive() && s != Thread.State.WAITING && s != Thread.State.TIMED_WAITING) {
                return false;
            }
        }
        return true;
    }

    /** What escaped the workers' run methods, in order. */
    public List<Throwable> uncaught() {
        return List.copyOf(uncaught);
    }
}
