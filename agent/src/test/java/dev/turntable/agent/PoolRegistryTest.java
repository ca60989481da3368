package dev.turntable.agent;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class PoolRegistryTest {

    /** A pool-like object whose equals says every instance is the same: the registry must not care. */
    static final class Liar {
        @Override
        public boolean equals(Object o) {
            return o instanceof Liar;
        }

        @Override
        public int hashCode() {
            return 1;
        }
    }

    private static PoolRecord record(String name) {
        return new PoolRecord(name, "site", false, "test", "Liar", null);
    }

    @Test
    void identityNotEquality() {
        PoolRegistry r = new PoolRegistry();
        Liar a = new Liar();
        Liar b = new Liar();
        assertTrue(r.register(a, record("a")));
        assertFalse(r.register(a, record("a-again")));
        assertTrue(r.register(b, record("b")));
        assertEquals("a", r.get(a).name());
        assertEquals("b", r.get(b).name());
        assertEquals(List.of("a", "b"), r.snapshot().stream().map(PoolRecord::name).collect(Collectors.toList()));
    }

    @Test
    void rejectionsAreCountedForManagedPoolsOnly() {
        PoolRegistry r = new PoolRegistry();
        Liar managed = new Liar();
        Liar unmanaged = new Liar();
        PoolRecord m = new PoolRecord("m", "site", true, "test", "Liar", null);
        r.register(managed, m);
        r.register(unmanaged, record("u"));
        r.countRejection(managed);
        r.countRejection(managed);
        r.countRejection(unmanaged);
        r.countRejection(new Liar()); // never seen: ignored
        assertEquals(2, m.rejections().sum());
        assertEquals(null, r.get(unmanaged).rejections(), "an unmanaged pool has no counter");
    }

    @Test
    void aCollectedPoolLeavesTheList() {
        PoolRegistry r = new PoolRegistry();
        Object kept = new Object();
        r.register(kept, record("kept"));
        r.register(new Object(), record("dropped"));
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            System.gc();
            return r.size() == 1;
        });
        assertSame(kept, kept);
        assertEquals(List.of("kept"), r.snapshot().stream().map(PoolRecord::name).collect(Collectors.toList()));
    }
}
