package dev.turntable.pool;

import static dev.turntable.pool.testing.Waits.awaitIgnoringInterrupts;
import static dev.turntable.pool.testing.Waits.awaitLatch;
import static dev.turntable.pool.testing.Waits.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.testing.PoolCleanup;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A thread that registers in a single-worker pool hands on the tasks of any other attached
 * worker, which the pool must have counted out ({@code WorkerRegistry.handOnCountedOut}); here
 * that other worker is alive (as when the maximum was lowered to 1 under it), and a thread that
 * calls {@link TurntableQueue#workerStarting} stands in for the registrant. A queuing worker loses
 * no task and keeps their order; a hand-off worker that a submitter has reserved keeps the task
 * pushed to it (moved, it was left waiting for it for good: the pool refused every later task
 * and never terminated).
 */
final class CountedOutHandOnTest {

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();
    private final List<String> ran = Collections.synchronizedList(new ArrayList<>());

    private static WorkerSlot slotOf(TurntableQueue q, Thread t) {
        for (WorkerSlot s : q.slots) {
            if (s.thread == t) {
                return s;
            }
        }
        return null;
    }

    /** Registers a thread of the test's own as a worker with a first task, and lets it end. */
    private static void registerAnotherThread(TurntableQueue q) throws InterruptedException {
        Thread registrant = new Thread(() -> q.workerStarting(() -> { }), "registrant");
        registrant.start();
        registrant.join(TimeUnit.SECONDS.toMillis(30));
    }

    @Test
    void aBusyQueuingWorkersTasksMoveAndRunInOrderWhenAnotherRegisters() throws Exception {
        TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(1).build());
        TurntableQueue q = pool.getTurntableQueue();
        CountDownLatch longRunning = new CountDownLatch(1);
        CountDownLatch releaseLong = cleanup.latch(1);
        AtomicReference<Thread> worker = new AtomicReference<>();
        pool.execute(() -> {
            worker.set(Thread.currentThread());
            longRunning.countDown();
            awaitIgnoringInterrupts(releaseLong);
        });
        awaitLatch(longRunning, "the worker runs the long task");
        for (int i = 0; i < 5; i++) {
            int n = i;
            pool.execute(() -> ran.add("t" + n));
        }
        WorkerSlot slot = slotOf(q, worker.get());

        registerAnotherThread(q);
        assertEquals(WorkerSlot.DETACHED, slot.state, "the busy worker was counted out");
        assertEquals(5, q.sharedCount.get(), "its five tasks wait in the shared queue");

        releaseLong.countDown();
        eventually("all five ran", () -> ran.size() == 5);
        pool.shutdown();
        assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
        assertEquals(List.of("t0", "t1", "t2", "t3", "t4"), ran);
        assertEquals(0, q.size());
    }

    @Test
    void aHandOffWorkerReservedForATaskKeepsItWhenAnotherRegisters() throws Exception {
        TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(1).handOff().build());
        TurntableQueue q = pool.getTurntableQueue();
        AtomicReference<Thread> worker = new AtomicReference<>();
        CountDownLatch first = new CountDownLatch(1);
        pool.execute(() -> {
            worker.set(Thread.currentThread());
            first.countDown();
        });
        awaitLatch(first, "the worker ran a task");
        Thread w = worker.get();
        eventually("the worker waits for a hand-off", () -> {
            WorkerSlot s = slotOf(q, w);
            return s != null && s.state == WorkerSlot.ATTACHED && s.waitState == WorkerSlot.PARKED;
        });
        WorkerSlot slot = slotOf(q, w);
        // A submitter's hand-off up to its push: the worker reserved, the task on its queue, the
        // wake-up not yet given (the submitter descheduled there).
        assertTrue(slot.casWaitState(WorkerSlot.PARKED, WorkerSlot.RESERVED));
        assertTrue(slot.queue.offer(() -> ran.add("T on " + Thread.currentThread().getName())));

        registerAnotherThread(q);
        LockSupport.unpark(w); // the submitter's wake-up
        eventually("T ran", () -> ran.size() == 1);
        assertEquals("T on " + w.getName(), ran.get(0), "the reserved worker ran the task pushed to it");

        CountDownLatch later = new CountDownLatch(1);
        pool.execute(later::countDown);
        awaitLatch(later, "a later task runs");
        pool.shutdown();
        assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
    }
}
