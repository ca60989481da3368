package dev.turntable.pool;

import static dev.turntable.pool.TurntableQueueTest.awaitAttached;
import static dev.turntable.pool.TurntableQueueTest.awaitParked;
import static dev.turntable.pool.testing.Waits.awaitLatch;
import static dev.turntable.pool.testing.Waits.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.testing.ManualTicker;
import java.lang.reflect.Field;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The retirement turn passes only to a thread that attaches while a retiree awaits its
 * replacement, and only for that retiree: a registrant delayed after it attached must not pass
 * the turn of a worker that retired later, or two workers would be out at once.
 */
final class RetirementTurnTest {

    @Test
    void aDelayedRegistrantDoesNotPassTheTurnOfALaterRetiree() throws Exception {
        TurntableQueue queue = TurntableQueue.builder().ticker(new ManualTicker()).build();
        queue.setRetirementSupported(true);
        queue.setWorkerExitsReported(true);
        try (TurntableQueueTest.LoopWorkers w = new TurntableQueueTest.LoopWorkers(queue, 3, "orig")) {
            awaitAttached(queue, 3);
            awaitParked(w.threads);
            queue.recycleWorker(0); // A leaves; the turn awaits its replacement
            eventually("A retired", () -> queue.getRetiredWorkerCount() == 1 && queue.awaitingReplacement());

            // Hold the next registrant just after it attached: a registration that finds the
            // queue not yet housekept registers it with the housekeeper, under that class's lock.
            Field housekept = WorkerRegistry.class.getDeclaredField("housekept");
            housekept.setAccessible(true);
            ((AtomicBoolean) housekept.get(queue.workerRegistry)).set(false);
            Field lockField = Housekeeper.class.getDeclaredField("LOCK");
            lockField.setAccessible(true);
            Object lock = lockField.get(null);
            CountDownLatch held = new CountDownLatch(1);
            CountDownLatch letGo = new CountDownLatch(1);
            Thread holder = new Thread(() -> {
                synchronized (lock) {
                    held.countDown();
                    awaitLatch(letGo, "the test lets the housekeeper lock go");
                }
            }, "housekeeper-lock-holder");
            holder.setDaemon(true);
            holder.start();
            awaitLatch(held, "lock held");
            try {
                xThenYThenB(queue, letGo);
            } finally {
                letGo.countDown();
            }
        }
    }

    /** X registers while the housekeeper lock is held (so it stalls after attaching), then Y, then B retires. */
    private static void xThenYThenB(TurntableQueue queue, CountDownLatch letGo) {
        try (TurntableQueueTest.LoopWorkers x = new TurntableQueueTest.LoopWorkers(queue, 1, "x")) {
            eventually("X attached, then held", () -> x.threads.get(0).getState() == Thread.State.BLOCKED);
            assertTrue(!queue.awaitingReplacement(), "X attached in A's place: A's turn passed with it");
            try (TurntableQueueTest.LoopWorkers y = new TurntableQueueTest.LoopWorkers(queue, 1, "y")) {
                awaitParked(y.threads); // Y attached after: no turn to pass
                queue.recycleWorker(1); // B leaves
                eventually("B retired", () -> queue.getRetiredWorkerCount() == 2 && queue.awaitingReplacement());
                letGo.countDown(); // X goes on
                awaitParked(x.threads);
                assertTrue(queue.awaitingReplacement(), "X attached before B left: B's turn still awaits B's replacement");
                assertEquals(2, queue.getRetiredWorkerCount());
            }
        }
    }
}
