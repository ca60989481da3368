package dev.turntable.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** A null listener is bad input like any other: an IllegalArgumentException saying what is allowed, nothing registered. */
class ListenerArgumentsTest {

    @Test
    void aNullRetirementListenerIsRefusedSayingWhatIsAllowed() {
        TurntableQueue queue = TurntableQueue.builder().build();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> queue.addRetirementListener(null));
        assertEquals("retirement listener null is not allowed: a Consumer<RetiredWorker>,"
                + " called on the retiring worker thread", e.getMessage());
    }

    @Test
    void aNullRebalanceListenerIsRefusedSayingWhatIsAllowedAndSetsNothingUp() {
        TurntableQueue queue = TurntableQueue.builder().build();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> queue.addRebalanceListener(null));
        assertEquals("rebalance listener null is not allowed: a Consumer<Rebalance>,"
                + " called each time the pool rebalances its classes", e.getMessage());
        assertNull(queue.classes, "a refused listener made the class scheduler a real one makes");
    }
}
