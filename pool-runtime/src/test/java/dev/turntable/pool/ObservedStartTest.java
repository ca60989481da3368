package dev.turntable.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.strategy.WorkerView;
import org.junit.jupiter.api.Test;

/**
 * How submitters date a running task whose start its owner did not publish (an untimed task of
 * the sampled run time, under FAIR_SHARE with stealing on): {@link WorkerSlot#observeStart} and
 * {@link WorkerSlot#observedStartNanos}, driven on the test thread with given looks and task
 * counts, no worker thread. What a user would notice: a long task shows its age to FAIR_SHARE, a
 * tiny one never shows a start (which would cost every choice a clock read), no date outlives
 * its task or is older than it, and a late look cannot erase the date of the task running now.
 */
class ObservedStartTest {

    private static final long CONFIRM = StatisticsCollector.SAMPLE_BELOW_NANOS;

    private final WorkerSlot slot = new WorkerSlot(0, 16);

    /** The owner has counted task {@code n} started (and completed the ones before it). */
    private void running(long n) {
        slot.started = n;
        slot.completed = n - 1;
    }

    /** A first look at task {@code n}; returns the date it recorded (a fresh clock reading). */
    private long firstLook(long n) {
        long before = System.nanoTime();
        slot.observeStart(n, before);
        long after = System.nanoTime();
        long date = slot.observedSinceNanos;
        assertTrue(date >= before && date <= after, "the first look dates the task with its own reading");
        return date;
    }

    @Test
    void aTaskSeenTwiceFarEnoughApartIsDatedFromTheFirstLook() {
        running(7);
        long first = firstLook(7);
        assertEquals(WorkerView.START_UNKNOWN, slot.observedStartNanos(7), "one look: could be a tiny task");
        slot.observeStart(7, first + CONFIRM - 1);
        assertEquals(WorkerView.START_UNKNOWN, slot.observedStartNanos(7), "a second look too soon confirms nothing");
        slot.observeStart(7, first + CONFIRM);
        assertEquals(first, slot.observedStartNanos(7), "still running 2 µs on: dated from the first look");
        slot.observeStart(7, first + 50 * CONFIRM);
        assertEquals(first, slot.observedStartNanos(7), "later looks keep the first date");
    }

    @Test
    void aDateBelongsToItsTaskOnly() {
        running(7);
        long first = firstLook(7);
        slot.observeStart(7, first + CONFIRM);
        assertEquals(WorkerView.START_UNKNOWN, slot.observedStartNanos(8), "the owner's next task is not the one dated");
        running(8);
        long second = firstLook(8);
        assertEquals(WorkerView.START_UNKNOWN, slot.observedStartNanos(8), "the next task starts over with a first look");
        slot.observeStart(8, second + CONFIRM);
        assertEquals(second, slot.observedStartNanos(8));
    }

    @Test
    void aTaskThatEndedShowsNoDateWhileItsWorkerClaimsTheNext() {
        running(7);
        long first = firstLook(7);
        slot.observeStart(7, first + CONFIRM);
        // Task 7 ends; after an idle spell the worker claims task 8 (running reads 1) a moment
        // before it counts it started: the count still reads 7.
        slot.completed = 7;
        assertEquals(WorkerView.START_UNKNOWN, slot.observedStartNanos(7),
                "an ended task's date would make the waking worker look busy since before its idle spell");
    }

    @Test
    void aLateLookAtAnEarlierTaskNeitherDatesNorErasesAnything() {
        running(8);
        long first = firstLook(8);
        slot.observeStart(8, first + CONFIRM);
        slot.observeStart(7, first + 2 * CONFIRM); // a submitter that read count 7 before task 8 began
        assertEquals(first, slot.observedStartNanos(8), "task 8 keeps its date");
    }

    @Test
    void aLookDelayedBetweenItsClockReadingAndItsLookCannotAgeTheTask() {
        running(7);
        long staleNanos = System.nanoTime() - 1_000_000_000L; // read a second before the look
        long before = System.nanoTime();
        slot.observeStart(7, staleNanos);
        assertTrue(slot.observedSinceNanos >= before, "dated when seen, not when that submitter read its clock");
        slot.observeStart(7, staleNanos + CONFIRM);
        assertEquals(WorkerView.START_UNKNOWN, slot.observedStartNanos(7), "a stale reading confirms nothing");
    }

    @Test
    void aNewOwnerInheritsNoDate() {
        running(3);
        long first = firstLook(3);
        slot.observeStart(3, first + CONFIRM);
        slot.resetForNewOwner();
        running(3);
        assertEquals(WorkerView.START_UNKNOWN, slot.observedStartNanos(3), "task 3 of the new owner is another task");
    }

    @Test
    void theViewPrefersTheOwnersPublishedStart() {
        TurntableQueue queue = TurntableQueue.builder().strategy("FAIR_SHARE").build();
        WorkerSlot s = new WorkerSlot(0, 16);
        queue.slots = new WorkerSlot[] {s};
        SlotView view = new SlotView(queue, false);
        s.started = 5;
        s.completed = 4;
        s.setRunningSince(WorkerView.START_UNKNOWN);
        long lookNanos = System.nanoTime();
        s.observeStart(5, lookNanos);
        long first = s.observedSinceNanos;
        s.observeStart(5, first + CONFIRM);
        assertEquals(first, view.runningSinceNanos(0), "unknown to its owner: the submitters' date");
        s.setRunningSince(first + 7);
        assertEquals(first + 7, view.runningSinceNanos(0), "timed by its owner: the exact start");
    }
}
