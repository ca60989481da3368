package dev.turntable.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.TurntableQueue;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * A pool the agent took over whose hand-off engine counts a put waiting for a worker in
 * {@code size()}: when the put gives up after shutdown, the pool must still terminate (the
 * engine runs the termination check the agent gives it). The window (the last worker's
 * {@code tryTerminate} read the put's count, then the put gave up before
 * {@code processWorkerExit}'s {@code addWorker} read it again) is held open by the application's
 * queue, which the engine replaces and whose {@code size()} it reads after the count.
 */
class HandOffTerminationCheckTest {

    /** {@code size()} holds one chosen thread on demand. */
    @SuppressWarnings("serial")
    static final class GatedQueue extends SynchronousQueue<Runnable> {
        volatile Thread target;
        volatile CountDownLatch entered = new CountDownLatch(1);
        volatile CountDownLatch release = new CountDownLatch(1);
        volatile CountDownLatch held = new CountDownLatch(1);

        void arm(Thread t) {
            entered = new CountDownLatch(1);
            release = new CountDownLatch(1);
            target = t;
        }

        void awaitEntered() throws InterruptedException {
            assertTrue(entered.await(30, TimeUnit.SECONDS), "the worker reads size()");
        }

        void open() {
            held.countDown();
        }

        @Override
        public int size() {
            if (Thread.currentThread() == target) {
                target = null;
                CountDownLatch r = release;
                held = r;
                entered.countDown();
                try {
                    r.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return 0;
        }
    }

    @Test
    void aManagedHandOffPoolTerminatesWhenAPutGivesUpAsItsLastWorkerLeaves() throws Exception {
        OptionsParser.Result parsed = OptionsParser.parse(null, new Properties());
        assertEquals(List.of(), parsed.messages());
        Takeover t = new Takeover(parsed.options(), new PoolRegistry(), () -> { });
        GatedQueue gated = new GatedQueue();
        TurntableQueue q = t.newQueue(new QueuePolicy.Verdict(true, TurntableQueue.Capacity.HAND_OFF, 0, "test"),
                1, 1, "gated", gated);
        AtomicReference<Thread> worker = new AtomicReference<>();
        RejectedExecutionHandler block = (r, e) -> {
            try {
                e.getQueue().put(r);
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
                throw new RejectedExecutionException(ie);
            }
        };
        ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, q, r -> {
            Thread w = new Thread(r, "worker");
            worker.set(w);
            return w;
        }, block);
        t.onConstructed(pool, new PoolRecord("gated", "test", true, "test", ThreadPoolExecutor.class.getName(), q));
        CountDownLatch busy = new CountDownLatch(1);
        CountDownLatch gate = new CountDownLatch(1);
        try {
            pool.execute(() -> {
                busy.countDown();
                try {
                    gate.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            assertTrue(busy.await(30, TimeUnit.SECONDS));
            pool.shutdown();
            Takeover.onOwnerShutDown(q); // what the shutdown advice does

            gated.arm(worker.get());
            gate.countDown();      // getTask: isEmpty() reads no waiting put (held after that read)
            gated.awaitEntered();
            Thread submitter = new Thread(() -> {
                try {
                    pool.execute(() -> { });
                } catch (RejectedExecutionException expected) {
                    // interrupted below
                }
            }, "submitter");
            submitter.start();     // a put racing the shutdown waits, counted
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> LockSupport.getBlocker(submitter) == q);
            gated.arm(worker.get());
            gated.open();          // the worker leaves; tryTerminate reads isEmpty(): false ...
            gated.awaitEntered();
            submitter.interrupt(); // ... and the put gives up
            submitter.join(30_000);
            assertFalse(submitter.isAlive());
            gated.open();          // processWorkerExit's addWorker reads empty: no worker

            assertTrue(pool.awaitTermination(5, TimeUnit.SECONDS), "shut down, empty, no worker: " + pool);
        } finally {
            gate.countDown();
            gated.open();
            pool.shutdownNow();
        }
    }
}
