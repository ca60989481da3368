package dev.turntable.pool;

import static dev.turntable.pool.testing.Waits.awaitIgnoringInterrupts;
import static dev.turntable.pool.testing.Waits.awaitLatch;
import static dev.turntable.pool.testing.Waits.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.turntable.pool.testing.Blocker;
import dev.turntable.pool.testing.ManualTicker;
import dev.turntable.pool.testing.PoolCleanup;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A hand-off worker's long spins ({@link TurntableQueue#HAND_OFF_LONG_SPINS}) are for a worker
 * looking for its next task: the few places ({@link TurntableQueue#HAND_OFF_LONG_SPINNERS}) must
 * not be held by a worker that takes nothing (one due to retire, waiting for its turn).
 */
final class HandOffLongSpinTest {

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();

    @Test
    void aWorkerWaitingForItsTurnToRetireHoldsNoLongSpinPlace() {
        assumeTrue(TurntableQueue.HAND_OFF_LONG_SPINNERS > 0, "no long spinners on this host");
                AtomicInteger creations = new AtomicInteger();
        CountDownLatch replacementAsked = new CountDownLatch(1);
        CountDownLatch makeReplacement = cleanup.latch(1);
        TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(2).handOff()
                .maxLifetimeTasks(1)
                .rejectionHandler((r, e) -> { // a worker not yet waiting: wait for it
                    try {
                        e.getQueue().put(r);
                    } catch (InterruptedException ie) {
                        Thread.currentThread().interrupt();
                        throw new RejectedExecutionException(ie);
                    }
                })
                .ticker(new ManualTicker()) // the housekeeper never gives up on the held replacement
                .threadFactory(r -> {
                    if (creations.incrementAndGet() == 3) { // the first retiree's replacement: held
                        replacementAsked.countDown();
                        awaitIgnoringInterrupts(makeReplacement);
                    }
                    return new Thread(r, "worker-" + creations.get());
                }).build());
        TurntableQueue q = pool.getTurntableQueue();
        CountDownLatch busy = new CountDownLatch(2);
        CountDownLatch gate = cleanup.latch(1);
        List<Thread> ran = new CopyOnWriteArrayList<>();
        for (int i = 0; i < 2; i++) {
            Blocker b = new Blocker("task " + i, busy, gate);
            pool.execute(() -> {
                ran.add(Thread.currentThread());
                b.run();
            });
        }
        awaitLatch(busy, "both workers run a task: both are due to retire after it");
        gate.countDown();
        awaitLatch(replacementAsked, "one worker retired; its replacement is held");
        // The other one waits for the retirement turn, parked in its hand-off wait.
        eventually("a worker waits for its turn to retire", () -> ran.stream().anyMatch(
                t -> LockSupport.getBlocker(t) == q));
        assertEquals(0, q.handOffLongSpinnerCount(),
                "a worker waiting to retire takes nothing: it must not hold a long-spin place");
    }
}
