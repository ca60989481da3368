package dev.turntable.agent;

import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The pools the agent has seen: a weak identity map from pool to {@link PoolRecord}. Identity,
 * because a pool subclass may override {@code equals}/{@code hashCode}; weak, so a discarded pool
 * and its record go away. Any thread; every method takes the map's lock briefly, except
 * {@link #countRejection}, which is on the submit path of a saturated pool and takes no lock.
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
    /** The managed pools' rejection counters, under the same keys as {@link #records}; read without the lock. */
    private final Map<Key, LongAdder> rejections = new ConcurrentHashMap<>();
    private final ReferenceQueue<Object> cleared = new ReferenceQueue<>();

    /** Records {@code pool} unless it is already known; returns whether it was added. */
    synchronized boolean register(Object pool, PoolRecord record) {
        expunge();
        Key k = new Key(pool, cleared);
        if (records.containsKey(k)) {
            return false;
        }
        records.put(k, record);
        if (record.rejections() != null) {
            rejections.put(k, record.rejections());
        }
        return true;
    }

    /** Counts one rejection of {@code pool} if it is a managed pool; lock-free. */
    void countRejection(Object pool) {
        LongAdder counter = rejections.get(new Key(pool, null));
        if (counter != null) {
            counter.increment();
        }
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
            rejections.remove(r);
        }
    }
}
