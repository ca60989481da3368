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
 * puts into that queue, a gauge that reads it, and tasks placed in it before
 * {@code prestartAllCoreThreads()} (which ThreadPoolExecutor documents). Each check is made twice:
 * with the queue in a local variable of the method that builds the pool (the agent sees it kept,
 * and leaves the pool alone), and with the queue from a {@link QueueHolder}'s method (the agent
 * cannot see where it goes, takes the pool over, and the engine also runs what is put into it).
 * Prints {@code QUEUE <check> <class>} per pool, {@code OK} or {@code FAIL} per check, then
 * {@code END}; every wait is bounded, so it never hangs.
 */
public final class CapturedQueueApp {

    private CapturedQueueApp() {
    }

    public static void main(String[] args) throws Exception {
        blockingHandlerPutsIntoItsQueue();
        blockingHandlerPutsIntoItsSynchronousQueue();
        ownGaugeCountsTheTasks();
        tasksPlacedBeforePrestartRun();
        QueueHolder a = new QueueHolder(new ArrayBlockingQueue<>(1));
        boundedHandlerRuns("held.blockingHandler", new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS,
                a.queue(), a.blockingPut()));
        QueueHolder s = new QueueHolder(new SynchronousQueue<>());
        handOffHandlerRuns("held.synchronousHandler", new ThreadPoolExecutor(0, 2, 60L, TimeUnit.SECONDS,
                s.queue(), s.blockingPut()));
        QueueHolder p = new QueueHolder(new LinkedBlockingQueue<>());
        prestartRuns("held.prestart", new ThreadPoolExecutor(2, 2, 0L, TimeUnit.MILLISECONDS, p.queue()), p.queue());
        System.out.println("END");
        System.exit(0); // a submitter stuck in put() must not keep the JVM alive
    }

    /**
     * Gives out a queue it keeps, and a handler that blocks on it. Not final, so its methods may
     * be overridden: the agent cannot tell what {@code queue()} returns (as with Spring's
     * {@code createQueue}), takes the pool over, and watches the queue.
     */
    static class QueueHolder {
        private final BlockingQueue<Runnable> queue;

        QueueHolder(BlockingQueue<Runnable> queue) {
            this.queue = queue;
        }

        BlockingQueue<Runnable> queue() {
            return queue;
        }

        RejectedExecutionHandler blockingPut() {
            return blockingPutInto(queue);
        }
    }

    static void check(String name, boolean ok, Object detail) {
        System.out.println((ok ? "OK " : "FAIL ") + name + (ok ? "" : ": " + detail));
    }

    static void blockingHandlerPutsIntoItsQueue() throws Exception {
        ArrayBlockingQueue<Runnable> queue = new ArrayBlockingQueue<>(1);
        boundedHandlerRuns("blockingHandler", new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS, queue,
                blockingPutInto(queue)));
    }

    static void boundedHandlerRuns(String name, ThreadPoolExecutor pool) throws Exception {
        queueIs(name, pool);
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
        check("capturedQueue." + name + ".allRan", ran.await(10, TimeUnit.SECONDS), ran.getCount() + " of 4 never ran");
        pool.shutdownNow();
    }

    static void blockingHandlerPutsIntoItsSynchronousQueue() throws Exception {
        SynchronousQueue<Runnable> queue = new SynchronousQueue<>();
        handOffHandlerRuns("synchronousHandler", new ThreadPoolExecutor(0, 2, 60L, TimeUnit.SECONDS, queue,
                blockingPutInto(queue)));
    }

    static void handOffHandlerRuns(String name, ThreadPoolExecutor pool) throws Exception {
        queueIs(name, pool);
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
        }, name + "-submitter");
        submitter.setDaemon(true);
        submitter.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (submitter.getState() != Thread.State.WAITING && System.nanoTime() < deadline) {
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000L); // until it waits in put()
        }
        gate.countDown();
        check("capturedQueue." + name + ".allRan", ran.await(10, TimeUnit.SECONDS), ran.getCount() + " of 6 never ran");
        pool.shutdownNow();
    }

    /** A gauge on the application's own queue, as load shedding or HikariCP's connection adds read it. */
    static void ownGaugeCountsTheTasks() throws Exception {
        LinkedBlockingQueue<Runnable> queue = new LinkedBlockingQueue<>(100);
        ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS, queue);
        queueIs("gauge", pool);
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
        check("capturedQueue.gauge.ownQueue", queue.size() == 3, "the application's own queue holds " + queue.size());
        check("capturedQueue.gauge.poolQueue", pool.getQueue().size() == 3, "the pool's queue holds "
                + pool.getQueue().size());
        gate.countDown();
        pool.shutdown();
        pool.awaitTermination(10, TimeUnit.SECONDS);
    }

    static void tasksPlacedBeforePrestartRun() throws Exception {
        LinkedBlockingQueue<Runnable> queue = new LinkedBlockingQueue<>();
        prestartRuns("prestart", new ThreadPoolExecutor(2, 2, 0L, TimeUnit.MILLISECONDS, queue), queue);
    }

    static void prestartRuns(String name, ThreadPoolExecutor pool, BlockingQueue<Runnable> queue) throws Exception {
        queueIs(name, pool);
        CountDownLatch ran = new CountDownLatch(3);
        for (int i = 0; i < 3; i++) {
            queue.add(ran::countDown);
        }
        pool.prestartAllCoreThreads();
        check("capturedQueue." + name + ".allRan", ran.await(10, TimeUnit.SECONDS), ran.getCount() + " of 3 never ran");
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
    static void queueIs(String name, ThreadPoolExecutor pool) {
        System.out.println("QUEUE " + name + " " + pool.getQueue().getClass().getSimpleName());
    }

    static void await(CountDownLatch l) {
        try {
            l.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
