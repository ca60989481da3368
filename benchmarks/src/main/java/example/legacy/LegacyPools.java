package example.legacy;

import java.util.concurrent.Executors;
import java.util.concurrent.ThreadPoolExecutor;

/**
 * Pools built the way an application builds them, from a package outside {@code dev.turntable.*}:
 * the agent never takes over pools Turntable's own code builds, so a benchmark that measures a
 * pool under the agent must have it built here. Stateless; any thread.
 */
public final class LegacyPools {

    private LegacyPools() {
    }

    /** {@code Executors.newCachedThreadPool()}: a {@code SynchronousQueue}, or the engine under the agent. */
    public static ThreadPoolExecutor newCachedThreadPool() {
        return (ThreadPoolExecutor) Executors.newCachedThreadPool();
    }
}
