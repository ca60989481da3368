package dev.turntable.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.strategy.WorkerView;
import org.junit.jupiter.api.Test;

/**
 * How submitters date a running task whose start its owner did not publish (an untimed task of
 * the sampled run time, under FAIR_SHARE with stealing on): {@link TurntableQueue#observeUnknownStarts}
 * and {@link WorkerSlot#observedStartNanos}, driven on the test thread with given looks and task
 * counts on slots no worker owns. What a user would notice: a long task shows its age to
 * FAIR_SHARE, a tiny one never shows a start (which would cost every choice a clock read), no
 * date outlives its task or is older than it, and a late look cannot erase the date of the task
 * running now.
 */
class ObservedStartTest {

    private static final long CONFIRM = StatisticsCollector.SAMPLE_BELOW_NANOS;

    private final TurntableQueue queue = TurntableQueue.builder().strategy("FAIR_SHARE").build();
    private final WorkerSlot slot = runningSlot(0);

    ObservedStartTest() {
        queue.slots = new WorkerSlot[] {slot};
        queue.slotBound = queue.slots.length; // as registration raises it
    }

    /** A slot whose (imaginary) owner runs a task of unknown start. */
    private static WorkerSlot runningSlot(int index) {
        WorkerSlot s = new WorkerSlot(index, 16);
        s.state = WorkerSlot.ATTACHED;
        s.running = 1;
        s.setRunningSince(WorkerView.START_UNKNOWN);
        return s;
    }

    /** The owner of {@code s} has counted task {@code n} started (and completed the ones before it). */
    private static void running(WorkerSlot s, long n) {
        s.started = n;
        s.completed = n - 1;
    }

    /** One look by a submitter whose clock read {@code lookNanos} before it looked. */
    private void look(long lookNanos) {
        queue.observeUnknownStarts(lookNanos);
    }

    /** A first look at the running task; returns the date it recorded, checked to be its own fresh reading. */
    private long firstLook() {
        long before = System.nanoTime();
        look(before);
        long after = System.nanoTime();
        long date = slot.observedSinceNanos;
        assertTrue(date >= before && date <= after, "the first look dates the task with a reading of its own");
        return date;
    }

    @Test
    void aTaskSeenTwiceFarEnoughApartIsDatedFromTheFirstLook() {
        running(slot, 7);
        long first = firstLook();
        assertEquals(WorkerView.START_UNKNOWN, slot.observedStartNanos(7), "one look: could be a tiny task");
        look(first + CONFIRM - 1);
        assertEquals(WorkerView.START_UNKNOWN, slot.observedStartNanos(7), "a second look too soon confirms nothing");
        look(first + CONFIRM);
        assertEquals(first, slot.observedStartNanos(7), "still running 2 µs on: dated from the first look");
        look(first + 50 * CONFIRM);
        assertEquals(first, slot.observedStartNanos(7), "later looks keep the first date");
    }

    @Test
    void aDateBelongsToItsTaskOnly() {
        running(slot, 7);
        long first = firstLook();
        look(first + CONFIRM);
        assertEquals(WorkerView.START_UNKNOWN, slot.observedStartNanos(8), "the owner's next task is not the one dated");
        running(slot, 8);
        long second = firstLook();
        assertEquals(WorkerView.START_UNKNOWN, slot.observedStartNanos(8), "the next task starts over with a first look");
        look(second + CONFIRM);
        assertEquals(second, slot.observedStartNanos(8));
    }

    @Test
    void aTaskThatEndedShowsNoDateWhileItsWorkerClaimsTheNext() {
        running(slot, 7);
        long first = firstLook();
        look(first + CONFIRM);
        // Task 7 ends; after an idle spell the worker claims task 8 (running reads 1) a moment
        // before it counts it started: the count still reads 7.
        slot.completed = 7;
        assertEquals(WorkerView.START_UNKNOWN, slot.observedStartNanos(7),
                "an ended task's date would make the waking worker look busy since before its idle spell");
    }

    @Test
    void aLateLookAtAnEarlierTaskNeitherDatesNorErasesAnything() {
        running(slot, 8);
        long first = firstLook();
        look(first + CONFIRM);
        // A submitter that read count 7 before task 8 began, and looks only now.
        assertFalse(slot.beginFirstLook(7), "no first look for a task the owner has left");
        slot.confirmLook(7, first + 2 * CONFIRM);
        assertEquals(first, slot.observedStartNanos(8), "task 8 keeps its date");
    }

    @Test
    void aLookDelayedAfterItsChecksLosesItsCasToTheNextTasksNote() {
        running(slot, 7);
        long seenByLateLook = slot.observedStarted; // a look reads the value and passes its checks for task 7...
        running(slot, 8); // ...then waits while the owner moves on and another look notes task 8
        long first = firstLook();
        look(first + CONFIRM);
        assertFalse(slot.takeFirstLook(seenByLateLook, 7), "the late look's CAS fails: the value it read is gone");
        assertEquals(first, slot.observedStartNanos(8), "task 8 keeps its date");
    }

    @Test
    void aLookDelayedBetweenItsClockReadingAndItsLookCannotAgeTheTask() {
        running(slot, 7);
        long staleNanos = System.nanoTime() - 1_000_000_000L; // read a second before the look
        long before = System.nanoTime();
        look(staleNanos);
        assertTrue(slot.observedSinceNanos >= before, "dated when seen, not when that submitter read its clock");
        look(staleNanos + CONFIRM);
        assertEquals(WorkerView.START_UNKNOWN, slot.observedStartNanos(7), "a stale reading confirms nothing");
    }

    @Test
    void oneLookDatesEveryNewTaskWithOneReading() {
        WorkerSlot other = runningSlot(1);
        queue.slots = new WorkerSlot[] {slot, other};
        queue.slotBound = queue.slots.length; // as registration raises it
        running(slot, 4);
        running(other, 9);
        long before = System.nanoTime();
        look(before);
        long after = System.nanoTime();
        assertEquals(slot.observedSinceNanos, other.observedSinceNanos, "one reading for both first looks");
        assertTrue(other.observedSinceNanos >= before && other.observedSinceNanos <= after);
        look(other.observedSinceNanos + CONFIRM);
        assertEquals(other.observedSinceNanos, other.observedStartNanos(9));
        assertEquals(slot.observedSinceNanos, slot.observedStartNanos(4));
    }

    @Test
    void whileOneLookDatesATaskNoOtherLookWrites() {
        running(slot, 7);
        assertTrue(slot.beginFirstLook(7), "the first look takes the right to date task 7");
        long before = System.nanoTime();
        look(before + 10 * CONFIRM); // another submitter meanwhile
        assertEquals(7 | WorkerSlot.BEING_DATED, slot.observedStarted, "left alone while being dated");
        slot.endFirstLook(before);
        assertEquals(7, slot.observedStarted);
        assertEquals(before, slot.observedSinceNanos);
    }

    @Test
    void aNewOwnerInheritsNoDate() {
        running(slot, 3);
        long first = firstLook();
        look(first + CONFIRM);
        slot.resetForNewOwner();
        running(slot, 3);
        assertEquals(WorkerView.START_UNKNOWN, slot.observedStartNanos(3), "task 3 of the new owner is another task");
    }

    @Test
    void aLookStillDatingWhenItsOwnerLeavesCannotDateTheNextOwnersTaskFromBeforeItBegan() {
        running(slot, 7);
        assertTrue(slot.beginFirstLook(7), "a submitter takes the right to date the old owner's task 7...");
        long delayedReading = System.nanoTime(); // ...reads its clock, and is descheduled
        // The owner leaves; a new owner attaches to the slot and starts its first task.
        slot.resetForNewOwner();
        slot.state = WorkerSlot.ATTACHED;
        slot.running = 1;
        slot.setRunningSince(WorkerView.START_UNKNOWN);
        long newTaskBegan = System.nanoTime() + 1; // strictly after the delayed reading
        running(slot, 1);
        look(newTaskBegan); // another submitter looks at the new task meanwhile
        slot.endFirstLook(delayedReading); // the delayed look wakes up and ends
        long now = System.nanoTime();
        look(now);
        look(Math.max(now, slot.observedSinceNanos) + CONFIRM);
        long date = slot.observedStartNanos(1);
        assertTrue(date != WorkerView.START_UNKNOWN, "the new owner's task, still running, gets dated");
        assertTrue(date >= newTaskBegan, "dated " + (newTaskBegan - date)
                + " ns before it began: FAIR_SHARE would count its worker busier than it is");
    }

    @Test
    void theViewPrefersTheOwnersPublishedStart() {
        SlotView view = new SlotView(queue, false);
        running(slot, 5);
        long first = firstLook();
        look(first + CONFIRM);
        assertEquals(first, view.runningSinceNanos(0), "unknown to its owner: the submitters' date");
        slot.setRunningSince(first + 7);
        assertEquals(first + 7, view.runningSinceNanos(0), "timed by its owner: the exact start");
    }
}
