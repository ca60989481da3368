package dev.turntable.pool;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A burst of tasks submitted while the workers sleep: the submitting thread wakes one worker,
 * and each woken worker wakes the next while work is left, as a {@code ThreadPoolExecutor}'s
 * takers signal one another. What a user would notice: the application's thread no longer pays
 * a wake-up (a system call, and often its CPU to the woken thread) per parked worker, and still
 * every task of the burst starts on a worker of its own when it needs one.
 */
class WakeInFlightTest {

    /** Four workers that are parked, with threads that were never started (unparking them does nothing). */
    private static TurntableQueue queueWithParkedWorkers(boolean stealing) {
        TurntableQueue queue = TurntableQueue.builder().strategy("ROUND_ROBIN").taskStealing(stealing).build();
        WorkerSlot[] slots = new WorkerSlot[4];
        for (int i = 0; i < slots.length; i++) {
            WorkerSlot s = new WorkerSlot(i, 64);
            s.thread = new Thread(() -> { }, "never-started-" + i);
            s.state = WorkerSlot.ATTACHED;
            s.waitState = WorkerSlot.PARKED;
            slots[i] = s;
        }
        queue.slots = slots;
        queue.slotBound = queue.slots.length; // as registration raises it
        return queue;
    }

    private static long count(TurntableQueue queue, int waitState) {
        return Arrays.stream(queue.slots).filter(s -> s.waitState == waitState).count();
    }

    @Test
    void aBurstOverParkedWorkersWakesOneOfThem() {
        TurntableQueue queue = queueWithParkedWorkers(true);
        for (int i = 0; i < 8; i++) {
            assertTrue(queue.offer(() -> { }));
        }
        assertEquals(8, queue.size(), "every task is queued");
        assertEquals(1, count(queue, WorkerSlot.WOKEN), "the first task's worker is woken");
        assertEquals(3, count(queue, WorkerSlot.PARKED), "the others are left to the woken one");
        assertEquals(1, queue.wakesInFlight());
    }

    @Test
    void withoutStealingEachTasksOwnWorkerIsWoken() {
        TurntableQueue queue = queueWithParkedWorkers(false);
        for (int i = 0; i < 4; i++) {
            assertTrue(queue.offer(() -> { }));
        }
        // No other worker may take a task queued on a parked one, so none is left asleep.
        assertEquals(4, count(queue, WorkerSlot.WOKEN));
    }

    @Test
    void turningStealingOffWakesTheOwnersLeftAsleepForAThief() {
        TurntableQueue queue = queueWithParkedWorkers(true);
        assertTrue(queue.offer(() -> { }));
        assertTrue(queue.offer(() -> { })); // left on a parked worker for the woken one to steal
        assertEquals(WorkerSlot.PARKED, queue.slots[1].waitState);
        queue.setTaskStealing(false); // now no one else may take it
        assertEquals(WorkerSlot.WOKEN, queue.slots[1].waitState, "its own worker is woken for it");
        assertEquals(2, count(queue, WorkerSlot.WOKEN));
        assertEquals(2, count(queue, WorkerSlot.PARKED), "workers with nothing queued sleep on");
    }

    /**
     * A retiring worker leaves its wait by an exception after it has freed its slot, and a new
     * thread may have adopted the slot and parked there meanwhile: the retiree must leave that
     * one's announced sleep alone, or no submitter would wake it for the next task.
     */
    @Test
    void aRetireeLeavesTheNextOwnerOfItsSlotWakeable() throws Exception {
        TurntableQueue queue = TurntableQueue.builder().strategy("ROUND_ROBIN").build();
        queue.setRetirementSupported(true);
        queue.setWorkerExitsReported(true); // idle workers park without rescans: only a wake ends their sleep
        CountDownLatch retiring = new CountDownLatch(1);
        CountDownLatch letItGo = new CountDownLatch(1);
        queue.addRetirementListener(retired -> {
            retiring.countDown(); // the slot is free already; the retiree is about to leave its wait
            try {
                letItGo.await(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        Thread retiree = takingThread(queue, "retiree");
        Thread adopter = null;
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> queue.slots.length == 1 && parkedIn(retiree, queue.slots[0]));
            queue.recycleWorker(0);
            assertTrue(retiring.await(10, TimeUnit.SECONDS));
            Thread next = takingThread(queue, "adopter");
            adopter = next;
            await().atMost(Duration.ofSeconds(10)).until(() -> parkedIn(next, queue.slots[0]));
            letItGo.countDown();
            retiree.join(TimeUnit.SECONDS.toMillis(10));
            assertTrue(!retiree.isAlive(), "the retiree left");

            CountDownLatch ran = new CountDownLatch(1);
            assertTrue(queue.offer(ran::countDown));
            assertTrue(ran.await(10, TimeUnit.SECONDS), "the slot's new owner is woken for the task");
        } finally {
            letItGo.countDown();
            retiree.interrupt();
            if (adopter != null) {
                adopter.interrupt();
            }
        }
    }

    /** A thread that takes and runs tasks from {@code queue} until it retires or is interrupted. */
    private static Thread takingThread(TurntableQueue queue, String name) {
        Thread t = new Thread(() -> {
            try {
                for (;;) {
                    queue.take().run();
                }
            } catch (WorkerRetirement | InterruptedException e) {
                // retired, or the test is over
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static boolean parkedIn(Thread t, WorkerSlot s) {
        return s.thread == t && s.waitState == WorkerSlot.PARKED && t.getState() == Thread.State.WAITING;
    }

    /**
     * Real workers, parked, then as many tasks as workers that can only finish together: each
     * waits until all have started. The submitter woke one worker; the rest must be woken by
     * the chain, or the first task waits beside sleeping workers for good. Repeated, so that
     * bursts meet workers at every point of their waits; afterwards no wake is left counted in
     * flight (a leaked one would leave every later burst to stealing).
     */
    @ParameterizedTest(name = "stealing {0}")
    @ValueSource(booleans = {true, false})
    void everyTaskOfABurstThatNeedsAWorkerOfItsOwnGetsOne(boolean stealing) throws Exception {
        int workers = 4;
        // TurntableExecutor reports its workers' exits, so idle workers park without looking
        // again every RESCAN_NANOS: nothing but a wake-up ends their sleep.
        TurntableExecutor pool = TurntableExecutor.builder().workers(workers).strategy("ROUND_ROBIN")
                .taskStealing(stealing).build();
        TurntableQueue queue = pool.getTurntableQueue();
        try {
            pool.prestartAllCoreThreads();
            for (int round = 0; round < 50; round++) {
                if (round % 5 == 0) {
                    // Now and then from sleep, the rest while workers still spin or yield.
                    await().atMost(Duration.ofSeconds(10)).until(() -> queue.slots.length == workers
                            && count(queue, WorkerSlot.PARKED) == workers);
                }
                CountDownLatch allStarted = new CountDownLatch(workers);
                List<Future<Boolean>> burst = new ArrayList<>();
                for (int i = 0; i < workers; i++) {
                    burst.add(pool.submit(() -> {
                        allStarted.countDown();
                        return allStarted.await(10, TimeUnit.SECONDS);
                    }));
                }
                for (Future<Boolean> f : burst) {
                    assertTrue(f.get(20, TimeUnit.SECONDS), "round " + round + ": every task found a worker of its own");
                }
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> count(queue, WorkerSlot.PARKED) == workers);
            assertEquals(0, queue.wakesInFlight(), "every wake was consumed");
        } finally {
            pool.shutdownNow();
            assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
        }
    }
}
