package dev.turntable.agent;

import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The pools the agent has seen: a weak identity map from pool to {@link PoolRecord}. Identity,
 * because a pool subclass may override {@code equals}/{@code hashCode}; weak, so a discarded pool
 * and its record go away. Any thread; every method takes the map's lock briefly.
 */
final class PoolRegistry {

    private static final class Key extends WeakReference<Object> {
        private final int hash;

        Key(Object pool, ReferenceQueue<Object> queue) {
            super(pool, queue);
            this.hash = System.identityHashCode(pool);
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object o) {
            if (this == o) {
                return true;
            }
            if (!(o instanceof Key)) {
                return false;
            }
            Object mine = get();
            return mine != null && mine == ((Key) o).get();
        }
    }

    private final Map<Key, PoolRecord> records = new HashMap<>();
    private final ReferenceQueue<Object> cleared = new ReferenceQueue<>();

    /** Records {@code pool} unless it is already known; returns whether it was added. */
    synchronized boolean register(Object pool, PoolRecord record) {
        expunge();
        Key k = new Key(pool, cleared);
        if (records.containsKey(k)) {
            return false;
        }
        records.put(k, record);
        return true;
    }

    synchronized boolean contains(Object pool) {
        return records.containsKey(new Key(pool, null));
    }

    synchronized PoolRecord get(Object pool) {
        return records.get(new Key(pool, null));
    }

    /** Records of the pools still reachable, in the order they were seen. */
    synchronized List<PoolRecord> snapshot() {
        expunge();
        List<PoolRecord> out = new ArrayList<>(records.values());
        out.sort(Comparator.comparingLong(PoolRecord::sequence));
        return out;
    }

    synchronized int size() {
        expunge();
        return records.size();
    }

    private void expunge() {
        Reference<?> r;
        while ((r = cleared.poll()) != null) {
            records.remove(r);
        }
    }
}
