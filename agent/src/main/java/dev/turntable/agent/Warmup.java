package dev.turntable.agent;

import dev.turntable.pool.TurntableQueue;
import dev.turntable.pool.WorkerRetirement;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Runs, on a daemon thread of its own as the agent starts, what the application's first pool
 * would otherwise run cold on the application's threads: the engine's submit and worker paths
 * (a private queue, two plain worker threads, a few thousand no-op tasks in bursts), and the
 * bytecode reading of {@link QueueSharing}. No pool is constructed, so nothing is hooked or
 * listed. Started once from {@code premain}/{@code agentmain}; never throws.
 *
 * <p>Why: cold, the first worker of the first pool took ~20 ms to register (class loading, the
 * housekeeper's start) and ran the engine interpreted, so a burst of 200 tasks into a fresh
 * {@code (2, 4)} pool with 100 places, one second after start, was rejected in 7 of 10 runs
 * where a plain pool was in 1 of 10; after this warm-up, in 0 of 10
 * ({@code benchmarks/first-burst.sh}). It costs about 0.3 s of CPU once (mostly compiling engine
 * code that the application's pools would compile later), on its own threads.
 */
final class Warmup {

    /** Tasks run through the private queue: enough to load and link every class of the worker path. */
    static final int TASKS = 256;
    static final int BURST = 64;
    static final String THREAD_NAME = "turntable-warmup";

    private Warmup() {
    }

    static void startSoon() {
        try {
            Thread t = new Thread(null, Warmup::run, THREAD_NAME, 0, false);
            t.setDaemon(true);
            t.start();
        } catch (Throwable ignored) { // no thread to spare: the first pool loads everything itself
        }
    }

    static void run() {
        try {
            engine();
            QueueSharing.warmUp();
        } catch (Throwable ignored) { // a cold start is all a failure here costs
        }
    }

    private static void engine() throws InterruptedException {
        TurntableQueue queue = TurntableQueue.builder().unbounded().expectedWorkers(2).build();
        AtomicInteger ran = new AtomicInteger();
        Thread[] workers = new Thread[2];
        for (int i = 0; i < workers.length; i++) {
            workers[i] = new Thread(null, () -> work(queue), THREAD_NAME + "-" + i, 0, false);
            workers[i].setDaemon(true);
            workers[i].start();
        }
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
            for (int sent = 0; sent < TASKS && System.nanoTime() < deadline; ) {
                for (int b = 0; b < BURST; b++, sent++) {
                    queue.offer(ran::incrementAndGet);
                }
                while (ran.get() < sent && System.nanoTime() < deadline) {
                    LockSupport.parkNanos(50_000L); // let the workers drain the burst, and park
                }
            }
        } finally {
            for (Thread w : workers) {
                w.interrupt();
            }
            for (Thread w : workers) {
                w.join(1_000L);
            }
            // Shut down and without workers, the queue is dropped by the housekeeper its first
            // worker started, which then ends too unless the application has a pool of its own.
            queue.ownerShutDown();
        }
    }

    private static void work(TurntableQueue queue) {
        try {
            for (;;) {
                queue.take().run();
            }
        } catch (InterruptedException | WorkerRetirement e) {
            // asked to stop
        } catch (Throwable t) {
            // never to the application's uncaught-exception handler: a cold start is all it costs
        } finally {
            queue.workerExiting();
        }
    }
}
