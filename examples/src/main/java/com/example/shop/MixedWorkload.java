package com.example.shop;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Interactive requests and batch jobs through the same fixed pool of four, as many legacy
 * services do: two submitter threads, {@code interactive-submitter} and {@code batch-submitter},
 * each flooding the pool with 2 ms tasks, batch first. A sampler counts how many tasks of each
 * kind run at once while both have work. Without task classes the pool runs them in arrival
 * order, so interactive waits behind the whole batch flood; under the agent with
 * {@code class-load-percents=interactive:75;batch:25} and
 * {@code requestor-map=interactive-.*:interactive;batch-.*:batch} it holds 3 interactive and 1
 * batch while both are busy. Methods are called on the application's main thread.
 */
final class MixedWorkload {

    private final int tasksPerKind;
    private final AtomicInteger interactiveRunning = new AtomicInteger();
    private final AtomicInteger batchRunning = new AtomicInteger();
    private final AtomicInteger interactivePending = new AtomicInteger();
    private final AtomicInteger batchPending = new AtomicInteger();
    private final AtomicLong interactiveWaitNanos = new AtomicLong();
    private final AtomicLong samples = new AtomicLong();
    private final AtomicLong interactiveSum = new AtomicLong();
    private final AtomicLong batchSum = new AtomicLong();

    MixedWorkload(int tasksPerKind) {
        this.tasksPerKind = tasksPerKind;
    }

    /** Runs both floods to the end and prints the mean number of workers each kind held. */
    void run() throws InterruptedException {
        ExecutorService workPool = Executors.newFixedThreadPool(4);
        Thread batch = submitter("batch-submitter", workPool, batchRunning, batchPending, null);
        Thread interactive = submitter("interactive-submitter", workPool, interactiveRunning, interactivePending,
                interactiveWaitNanos);
        Thread sampler = new Thread(this::sample, "mixed-sampler");
        sampler.setDaemon(true);
        batch.start();
        batch.join(); // the batch flood is queued first; interactive work arrives behind it
        interactive.start();
        sampler.start();
        batch.join();
        interactive.join();
        workPool.shutdown();
        workPool.awaitTermination(60, TimeUnit.SECONDS);
        sampler.interrupt();
        long n = Math.max(1, samples.get());
        System.out.printf("work pool, while both kinds had work: interactive held %.2f workers, batch %.2f"
                + " (of 4; %d samples); interactive tasks waited %.1f ms on average%n",
                interactiveSum.get() / (double) n, batchSum.get() / (double) n, samples.get(),
                interactiveWaitNanos.get() / 1e6 / tasksPerKind);
    }

    private Thread submitter(String name, ExecutorService pool, AtomicInteger running, AtomicInteger pending,
                             AtomicLong waitNanos) {
        return new Thread(() -> {
            for (int i = 0; i < tasksPerKind; i++) {
                pending.incrementAndGet();
                long submitted = System.nanoTime();
                pool.execute(() -> {
                    if (waitNanos != null) {
                        waitNanos.addAndGet(System.nanoTime() - submitted);
                    }
                    running.incrementAndGet();
                    try {
                        Work.busy(2_000);
                    } finally {
                        running.decrementAndGet();
                        pending.decrementAndGet();
                    }
                });
            }
        }, name);
    }

    /** Every 5 ms while both kinds have work submitted and not finished: how many of each run now. */
    private void sample() {
        while (!Thread.currentThread().isInterrupted()) {
            int i = interactiveRunning.get();
            int b = batchRunning.get();
            if (interactivePending.get() > 0 && batchPending.get() > 0) {
                samples.incrementAndGet();
                interactiveSum.addAndGet(i);
                batchSum.addAndGet(b);
            }
            try {
                Thread.sleep(5); // a sampling period, not a wait for state
            } catch (InterruptedException e) {
                return;
            }
        }
    }
}
