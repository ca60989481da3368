package dev.turntable.agent;

import dev.turntable.pool.TurntableQueue;
import java.lang.ref.WeakReference;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the agent knows about one pool it saw: its name, creation site, whether it is managed and
 * why (not), and for a managed pool how many tasks it rejected. Immutable apart from that counter;
 * any thread. The engine queue is held weakly so a record never keeps a discarded pool's workers
 * reachable.
 */
final class PoolRecord {

    private static final AtomicLong SEQUENCE = new AtomicLong();

    private final long sequence = SEQUENCE.incrementAndGet();
    private final String name;
    private final String creationSite;
    private final boolean managed;
    private final String reason;
    private final String poolClass;
    private final WeakReference<TurntableQueue> queue;
    /** Rejections of a managed pool, counted by the hook in {@code ThreadPoolExecutor.reject}; {@code null} if unmanaged. */
    private final LongAdder rejections;

    PoolRecord(String name, String creationSite, boolean managed, String reason, String poolClass,
               TurntableQueue queue) {
        this.name = name;
        this.creationSite = creationSite;
        this.managed = managed;
        this.reason = reason;
        this.poolClass = poolClass;
        this.queue = queue == null ? null : new WeakReference<>(queue);
        this.rejections = managed ? new LongAdder() : null;
    }

    long sequence() {
        return sequence;
    }

    String name() {
        return name;
    }

    String creationSite() {
        return creationSite;
    }

    boolean managed() {
        return managed;
    }

    String reason() {
        return reason;
    }

    String poolClass() {
        return poolClass;
    }

    /** The engine standing in for the pool's queue, or {@code null} if unmanaged or collected. */
    TurntableQueue queue() {
        return queue == null ? null : queue.get();
    }

    /** The managed pool's rejection count (every call of its handler), or {@code null} if unmanaged. */
    LongAdder rejections() {
        return rejections;
    }

    @Override
    public String toString() {
        return name + " [" + creationSite + "] " + (managed ? "managed" : "not managed") + ": " + reason;
    }
}
