package dev.turntable.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.turntable.pool.testing.PoolCleanup;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Builder settings that conflict or that ThreadPoolExecutor allows: each is refused with a message
 * naming the value and what is allowed, and changes nothing, or builds the pool it describes.
 */
class TurntableExecutorBuilderTest {

    private final PoolCleanup cleanup = new PoolCleanup();

    @AfterEach
    void stopPools() {
        cleanup.close();
    }

    @Test
    void aSecondCapacityIsRefusedAndTheFirstStays() {
        TurntableExecutor.Builder bounded = TurntableExecutor.builder().workers(1).queueCapacity(10);
        assertState("queue capacity already set to queueCapacity(10); handOff() conflicts with it:"
                + " call only one of queueCapacity(n) or handOff()", bounded::handOff);
        assertState("queue capacity already set to queueCapacity(10); queueCapacity(20) conflicts",
                () -> bounded.queueCapacity(20));
        TurntableExecutor pool = cleanup.track(bounded.build());
        assertEquals(TurntableQueue.Capacity.BOUNDED, pool.getTurntableQueue().getCapacityMode());
        assertEquals(10, pool.getQueue().remainingCapacity());

        TurntableExecutor.Builder handOff = TurntableExecutor.builder().workers(1).handOff();
        assertState("queue capacity already set to handOff(); queueCapacity(10) conflicts",
                () -> handOff.queueCapacity(10));
        assertEquals(TurntableQueue.Capacity.HAND_OFF,
                cleanup.track(handOff.build()).getTurntableQueue().getCapacityMode());
    }

    @Test
    void aSecondCapacityOfTheQueueBuilderIsRefusedAndTheFirstStays() {
        TurntableQueueBuilder b = TurntableQueue.builder().bounded(10);
        assertState("queue capacity already set to bounded(10); handOff() conflicts with it:"
                + " call only one of unbounded(), bounded(n) or handOff()", b::handOff);
        assertState("queue capacity already set to bounded(10); unbounded() conflicts", b::unbounded);
        assertState("queue capacity already set to bounded(10); bounded(3) conflicts", () -> b.bounded(3));
        assertEquals(10, b.build().remainingCapacity());

        TurntableQueueBuilder h = TurntableQueue.builder().handOff();
        assertState("queue capacity already set to handOff(); bounded(10) conflicts", () -> h.bounded(10));
        assertEquals(TurntableQueue.Capacity.HAND_OFF, h.build().getCapacityMode());

        TurntableQueueBuilder u = TurntableQueue.builder().unbounded();
        assertState("queue capacity already set to unbounded(); handOff() conflicts", u::handOff);
        assertEquals(TurntableQueue.Capacity.UNBOUNDED, u.build().getCapacityMode());
    }

    private static void assertState(String expected, Executable call) {
        IllegalStateException e = assertThrows(IllegalStateException.class, call);
        assertContains(expected, e.getMessage());
    }

    private static void assertContains(String expected, String message) {
        if (message == null || !message.contains(expected)) {
            throw new AssertionError("expected '" + expected + "' in: " + message);
        }
    }
}
