package com.example.shop;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Sales reports, computed in the background on a pool of two threads with a queue of 100. A
 * batch submitter thread turns every 50 served requests into a batch of 10 report tasks of mixed
 * length. {@link #requestServed} is called on request threads; the rest on the owner's thread.
 */
final class ReportService {

    static final int BATCH_EVERY = 50;
    static final int BATCH_SIZE = 10;

    private final TaskCounts counts = new TaskCounts();
    private final Semaphore room = new Semaphore(100);
    private final Object lock = new Object();
    private long servedSoFar;
    private boolean stopping;
    private ThreadPoolExecutor reportPool;
    private Thread submitter;

    void start() {
        reportPool = new ThreadPoolExecutor(2, 2, 0L, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(100));
        submitter = new Thread(this::submitBatches, "report-batch-submitter");
        submitter.start();
    }

    void requestServed(long total) {
        synchronized (lock) {
            servedSoFar = Math.max(servedSoFar, total);
            lock.notifyAll();
        }
    }

    private void submitBatches() {
        long batches = 0;
        long nextTask = 0;
        try {
            for (;;) {
                synchronized (lock) {
                    while (!stopping && servedSoFar < (batches + 1) * BATCH_EVERY) {
                        lock.wait();
                    }
                    if (servedSoFar < (batches + 1) * BATCH_EVERY) {
                        return; // stopping, and no full batch is due
                    }
                }
                batches++;
                for (int i = 0; i < BATCH_SIZE; i++) {
                    long id = nextTask++;
                    room.acquire(); // back-pressure: never more than the queue holds
                    reportPool.execute(() -> {
                        try {
                            Work.busy(Work.isLong(id) ? 10_000 : 500);
                            counts.countCurrentThread();
                        } finally {
                            room.release();
                        }
                    });
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    TaskCounts counts() {
        return counts;
    }

    /** Submits the batches still due, then waits for every report to finish. */
    void stop() throws InterruptedException {
        synchronized (lock) {
            stopping = true;
            lock.notifyAll();
        }
        submitter.join();
        reportPool.shutdown();
        reportPool.awaitTermination(30, TimeUnit.SECONDS);
    }
}
