package com.example.apps;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A test application that keeps its own reference to the work queue it gives its pools, as
 * legacy code often does, and uses it: a "block the caller instead of rejecting" handler that
 * puts into that queue, a gauge that reads the pool's queue, and tasks placed in it before
 * {@code prestartAllCoreThreads()} (which ThreadPoolExecutor documents). Prints {@code OK} or
 * {@code FAIL} per check, then {@code END}; every wait is bounded, so it never hangs.
 */
public final class CapturedQueueApp {

    private CapturedQueueApp() {
    }

    public static void main(String[] args) throws Exception {
        blockingHandlerPutsIntoItsQueue();
        blockingHandlerPutsIntoItsSynchronousQueue();
        poolQueueCountsItsTasks();
        tasksPlacedBeforePrestartRun();
        System.out.println("END");
        System.exit(0); // a submitter stuck in put() must not keep the JVM alive
    }

    static void check(String name, boolean ok, Object detail) {
        System.out.println((ok ? "OK " : "FAIL ") + name + (ok ? "" : ": " + detail));
    }

    static void blockingHandlerPutsIntoItsQueue() throws Exception {
        ArrayBlockingQueue<Runnable> queue = new ArrayBlockingQueue<>(1);
        ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS, queue, blockingPutInto(queue));
        queueIs(pool);
        CountDownLatch ran = new CountDownLatch(4);
        CountDownLatch gate = new CountDownLatch(1);
        Thread submitter = new Thread(() -> {
            pool.execute(() -> {
                CapturedQueueApp.await(gate);
                ran.countDown();
            });
            for (int i = 0; i < 3; i++) {
                pool.execute(ran::countDown);
                gate.countDown();
            }
        }, "submitter");
        submitter.setDaemon(true);
        submitter.start();
        check("capturedQueue.blockingHandler.allRan", ran.await(10, TimeUnit.SECONDS), ran.getCount() + " of 4 never ran");
        pool.shutdownNow();
    }

    static void blockingHandlerPutsIntoItsSynchronousQueue() throws Exception {
        SynchronousQueue<Runnable> queue = new SynchronousQueue<>();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(0, 2, 60L, TimeUnit.SECONDS, queue, blockingPutInto(queue));
        queueIs(pool);
        CountDownLatch ran = new CountDownLatch(6);
        CountDownLatch gate = new CountDownLatch(1);
        Thread submitter = new Thread(() -> {
            for (int i = 0; i < 2; i++) {
                pool.execute(() -> {
                    CapturedQueueApp.await(gate);
                    ran.countDown();
                });
            }
            for (int i = 0; i < 4; i++) {
                pool.execute(ran::countDown); // both threads busy, none may be added: the handler puts
            }
        }, "sync-submitter");
        submitter.setDaemon(true);
        submitter.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (submitter.getState() != Thread.State.WAITING && System.nanoTime() < deadline) {
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000L); // until it waits in put()
        }
        gate.countDown();
        check("capturedQueue.synchronousHandler.allRan", ran.await(10, TimeUnit.SECONDS), ran.getCount() + " of 6 never ran");
        pool.shutdownNow();
    }

    static void poolQueueCountsItsTasks() throws Exception {
        LinkedBlockingQueue<Runnable> queue = new LinkedBlockingQueue<>(100);
        ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS, queue);
        queueIs(pool);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch gate = new CountDownLatch(1);
        pool.execute(() -> {
            started.countDown();
            CapturedQueueApp.await(gate);
        });
        started.await(10, TimeUnit.SECONDS);
        for (int i = 0; i < 3; i++) {
            pool.execute(() -> { });
        }
        // Under the agent the pool's tasks wait in the engine, so a gauge on the queue the
        // application made reads 0 there (a documented limitation); the pool's own view counts them.
        check("capturedQueue.poolQueue.size", pool.getQueue().size() == 3, "the pool's queue holds "
                + pool.getQueue().size());
        System.out.println("INFO own queue gauge reads " + queue.size());
        gate.countDown();
        pool.shutdown();
        pool.awaitTermination(10, TimeUnit.SECONDS);
    }

    static void tasksPlacedBeforePrestartRun() throws Exception {
        LinkedBlockingQueue<Runnable> queue = new LinkedBlockingQueue<>();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(2, 2, 0L, TimeUnit.MILLISECONDS, queue);
        queueIs(pool);
        CountDownLatch ran = new CountDownLatch(3);
        for (int i = 0; i < 3; i++) {
            queue.add(ran::countDown);
        }
        pool.prestartAllCoreThreads();
        check("capturedQueue.prestart.allRan", ran.await(10, TimeUnit.SECONDS), ran.getCount() + " of 3 never ran");
        pool.shutdownNow();
    }

    /** "Block the caller instead of rejecting": waits for room in (or a taker of) the application's own queue. */
    static RejectedExecutionHandler blockingPutInto(BlockingQueue<Runnable> queue) {
        return (r, e) -> {
            try {
                queue.put(r);
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
                throw new RejectedExecutionException(ie);
            }
        };
    }

    /** Says what stands behind the pool's queue, so a run can tell whether the agent took it over. */
    static void queueIs(ThreadPoolExecutor pool) {
        System.out.println("QUEUE " + pool.getQueue().getClass().getSimpleName());
    }

    static void await(CountDownLatch l) {
        try {
            l.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
