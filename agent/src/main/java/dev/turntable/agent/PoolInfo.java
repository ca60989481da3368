package dev.turntable.agent;

import javax.management.ConstructorParameters;

/**
 * One row of the Agent MBean's {@code Pools} table (a {@code CompositeData} to JMX clients):
 * {@code name}, {@code creationSite}, {@code managed}, {@code reason}. Immutable; any thread.
 */
public final class PoolInfo {

    private final String name;
    private final String creationSite;
    private final boolean managed;
    private final String reason;

    @ConstructorParameters({"name", "creationSite", "managed", "reason"})
    public PoolInfo(String name, String creationSite, boolean managed, String reason) {
        this.name = name;
        this.creationSite = creationSite;
        this.managed = managed;
        this.reason = reason;
    }

    /** The pool's contract name, e.g. {@code OrderService.start}. */
    public String getName() {
        return name;
    }

    /** {@code fully.qualified.Class.method} of the code that created the pool, or {@code unknown}. */
    public String getCreationSite() {
        return creationSite;
    }

    /** Whether the engine stands in for the pool's work queue. */
    public boolean isManaged() {
        return managed;
    }

    /** Why the pool is (not) managed. */
    public String getReason() {
        return reason;
    }

    @Override
    public String toString() {
        return name + " | " + creationSite + " | " + (managed ? "managed" : "not managed") + " | " + reason;
    }
}
