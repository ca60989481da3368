package dev.turntable.pool;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * How a queuing worker waits once it runs out of work: it yields before it parks only while work
 * has recently come back within its waits. A mostly idle pool's workers stop burning CPU on
 * yields that never find anything (a {@code ThreadPoolExecutor}'s worker parks at once), and one
 * wait in {@link TurntableQueue#YIELD_PROBE_EVERY} yields anyway, so a pool whose work comes back
 * sooner again notices.
 */
class IdleWaitTest {

    @Test
    void aFreshWorkerYieldsBeforeItParks() {
        WorkerSlot s = new WorkerSlot(0, 16);
        assertEquals(TurntableQueue.YIELDS, TurntableQueue.yieldsBeforePark(s));
    }

    @Test
    void afterWaitsThatAllParkedOnlyOneWaitInEightYields() {
        WorkerSlot s = new WorkerSlot(0, 16);
        s.parkStreak = TurntableQueue.PARKS_BEFORE_SKIPPING_YIELDS;
        int yielding = 0;
        int waits = 8 * TurntableQueue.YIELD_PROBE_EVERY;
        for (int i = 0; i < waits; i++) {
            if (TurntableQueue.yieldsBeforePark(s) == TurntableQueue.YIELDS) {
                yielding++;
            }
        }
        assertEquals(waits / TurntableQueue.YIELD_PROBE_EVERY, yielding, "the probes, evenly spaced");
        s.parkStreak = 0; // a wait found work within its spins or yields
        assertEquals(TurntableQueue.YIELDS, TurntableQueue.yieldsBeforePark(s), "every wait yields again");
    }

    /**
     * A real worker fed one task at a time, each long after it has parked: its streak fills, then
     * stays. (A park that work ends within {@link TurntableQueue#SHORT_IDLE_NANOS} resets it, as
     * a thief woken for each steal is; that takes timing a test cannot promise.)
     */
    @Test
    void aWorkerWhoseEveryWaitEndsParkedCountsItsStreak() throws Exception {
        TurntableQueue queue = TurntableQueue.builder().build();
        Thread worker = new Thread(() -> {
            try {
                for (;;) {
                    queue.take().run();
                }
            } catch (InterruptedException e) {
                // the test is over
            }
        }, "idle-wait-worker");
        worker.setDaemon(true);
        worker.start();
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> queue.slots.length == 1);
            WorkerSlot s = queue.slots[0];
            int tasks = TurntableQueue.PARKS_BEFORE_SKIPPING_YIELDS + 3;
            for (int i = 1; i <= tasks; i++) {
                awaitParked(s);
                CountDownLatch ran = new CountDownLatch(1);
                queue.offer(ran::countDown);
                assertEquals(true, ran.await(10, TimeUnit.SECONDS), "task " + i + " ran");
            }
            awaitParked(s);
            // read by the test only once the worker is parked: its last write came before that
            assertEquals(TurntableQueue.PARKS_BEFORE_SKIPPING_YIELDS, s.parkStreak,
                    "every wait ended parked: the streak is full (and saturates there)");
        } finally {
            worker.interrupt();
        }
    }

    /** Until the worker is parked, and still parked past a short idle: work now comes back late. */
    private static void awaitParked(WorkerSlot s) {
        await().atMost(Duration.ofSeconds(10)).until(() -> s.waitState == WorkerSlot.PARKED);
        await().pollDelay(Duration.ofNanos(2 * TurntableQueue.SHORT_IDLE_NANOS)).atMost(Duration.ofSeconds(10))
                .until(() -> s.waitState == WorkerSlot.PARKED);
    }
}
