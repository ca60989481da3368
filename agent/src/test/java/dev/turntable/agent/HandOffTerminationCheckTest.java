package dev.turntable.agent;

import static dev.turntable.pool.testing.BlockingPuts.BLOCK;
import static dev.turntable.pool.testing.BlockingPuts.blockedSubmitter;
import static dev.turntable.pool.testing.Waits.awaitGone;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.TurntableQueue;
import dev.turntable.pool.testing.GatedQueue;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A pool the agent took over whose hand-off engine counts a put waiting for a worker in
 * {@code size()}: when the put gives up after shutdown, the pool must still terminate (the
 * agent makes the pool the engine's owner, which re-checks its termination). The window (the last worker's
 * {@code tryTerminate} read the put's count, then the put gave up before
 * {@code processWorkerExit}'s {@code addWorker} read it again) is held open by the application's
 * queue, which the engine replaces and whose {@code size()} it reads after the count.
 */
class HandOffTerminationCheckTest {

    @Test
    void aManagedHandOffPoolTerminatesWhenAPutGivesUpAsItsLastWorkerLeaves() throws Exception {
        OptionsParser.Result parsed = OptionsParser.parse(null, new Properties());
        assertEquals(List.of(), parsed.messages());
        Takeover t = new Takeover(parsed.options(), new PoolRegistry(), () -> { });
        GatedQueue gated = new GatedQueue();
        TurntableQueue q = t.newQueue(new QueuePolicy.Verdict(true, TurntableQueue.Capacity.HAND_OFF, 0, "test"),
                1, 1, "gated", "gated", gated);
        AtomicReference<Thread> worker = new AtomicReference<>();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, q, r -> {
            Thread w = new Thread(r, "worker");
            worker.set(w);
            return w;
        }, BLOCK);
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
            // A put racing the shutdown waits, counted (interrupted below: its rejection is expected).
            Thread submitter = blockedSubmitter(pool, () -> { }, new AtomicReference<>());
            gated.arm(worker.get());
            gated.open();          // the worker leaves; tryTerminate reads isEmpty(): false ...
            gated.awaitEntered();
            submitter.interrupt(); // ... and the put gives up
            awaitGone(submitter);
            gated.open();          // processWorkerExit's addWorker reads empty: no worker

            assertTrue(pool.awaitTermination(5, TimeUnit.SECONDS), "shut down, empty, no worker: " + pool);
        } finally {
            gate.countDown();
            gated.open();
            pool.shutdownNow();
        }
    }
}
