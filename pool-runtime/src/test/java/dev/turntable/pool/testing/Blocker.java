package dev.turntable.pool.testing;

import static java.util.concurrent.TimeUnit.MILLISECONDS;

import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A task that holds its worker: it counts {@code started} down, then waits for {@code release}
 * (or an interrupt, which it records). Usable as a Runnable or as a Callable returning its name.
 */
public final class Blocker implements Runnable, Callable<String> {

    private final String name;
    private final CountDownLatch started;
    private final CountDownLatch release;
    private final AtomicInteger runs = new AtomicInteger();
    private final CountDownLatch finished = new CountDownLatch(1);
    private volatile boolean interrupted;
    private volatile Thread runner;

    public Blocker(String name, CountDownLatch started, CountDownLatch release) {
        this.name = name;
        this.started = started;
        this.release = release;
    }

    @Override
    public void run() {
        call();
    }

    @Override
    public String call() {
        runner = Thread.currentThread();
        runs.incrementAndGet();
        started.countDown();
        try {
            release.await(Waits.LONG.toMillis(), MILLISECONDS);
        } catch (InterruptedException e) {
            interrupted = true;
        } finally {
            finished.countDown();
        }
        return name;
    }

    public int runs() {
        return runs.get();
    }

    public boolean interrupted() {
        return interrupted;
    }

    /** The thread that ran this task, or null if it has not started. */
    public Thread runner() {
        return runner;
    }

    /** Opens once the task has returned. */
    public CountDownLatch finished() {
        return finished;
    }

    @Override
    public String toString() {
        return "blocker " + name;
    }
}
