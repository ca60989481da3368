package dev.turntable.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.turntable.pool.strategy.WorkerView;
import org.junit.jupiter.api.Test;

/**
 * How submitters date a running task whose start its owner did not publish (an untimed task of
 * the sampled run time, under FAIR_SHARE with stealing on): {@link WorkerSlot#observeStart} and
 * {@link WorkerSlot#observedStartNanos}, driven with given times and task counts, no threads.
 * What a user would notice: a long task shows its age to FAIR_SHARE, a tiny one never shows a
 * start (which would cost every choice a clock read), and no date outlives its task.
 */
class ObservedStartTest {

    private static final long T0 = 1_000_000_000L;
    private static final long CONFIRM = StatisticsCollector.SAMPLE_BELOW_NANOS;

    private final WorkerSlot slot = new WorkerSlot(0, 16);

    @Test
    void aTaskSeenTwiceFarEnoughApartIsDatedFromTheFirstLook() {
        slot.observeStart(7, T0);
        assertEquals(WorkerView.START_UNKNOWN, slot.observedStartNanos(7), "one look: could be a tiny task");
        slot.observeStart(7, T0 + CONFIRM - 1);
        assertEquals(WorkerView.START_UNKNOWN, slot.observedStartNanos(7), "a second look too soon confirms nothing");
        slot.observeStart(7, T0 + CONFIRM);
        assertEquals(T0, slot.observedStartNanos(7), "still running 2 µs on: dated from the first look");
        slot.observeStart(7, T0 + 50 * CONFIRM);
        assertEquals(T0, slot.observedStartNanos(7), "later looks keep the first date");
    }

    @Test
    void aDateBelongsToItsTaskOnly() {
        slot.observeStart(7, T0);
        slot.observeStart(7, T0 + CONFIRM);
        assertEquals(WorkerView.START_UNKNOWN, slot.observedStartNanos(8), "the owner's next task is not the one dated");
        slot.observeStart(8, T0 + 2 * CONFIRM);
        assertEquals(WorkerView.START_UNKNOWN, slot.observedStartNanos(8), "the next task starts over with a first look");
        slot.observeStart(8, T0 + 3 * CONFIRM);
        assertEquals(T0 + 2 * CONFIRM, slot.observedStartNanos(8));
    }

    @Test
    void aNewOwnerInheritsNoDate() {
        slot.observeStart(3, T0);
        slot.observeStart(3, T0 + CONFIRM);
        slot.resetForNewOwner();
        assertEquals(WorkerView.START_UNKNOWN, slot.observedStartNanos(3), "task 3 of the new owner is another task");
    }

    @Test
    void theViewPrefersTheOwnersPublishedStart() {
        TurntableQueue queue = TurntableQueue.builder().strategy("FAIR_SHARE").build();
        WorkerSlot s = new WorkerSlot(0, 16);
        queue.slots = new WorkerSlot[] {s};
        SlotView view = new SlotView(queue, false);
        s.started = 5;
        s.setRunningSince(WorkerView.START_UNKNOWN);
        s.observeStart(5, T0);
        s.observeStart(5, T0 + CONFIRM);
        assertEquals(T0, view.runningSinceNanos(0), "unknown to its owner: the submitters' date");
        s.setRunningSince(T0 + 7);
        assertEquals(T0 + 7, view.runningSinceNanos(0), "timed by its owner: the exact start");
    }
}
