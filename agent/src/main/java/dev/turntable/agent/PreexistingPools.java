package dev.turntable.agent;

import java.util.concurrent.ForkJoinWorkerThread;

/**
 * After a dynamic attach, lists the pools that already run worker threads as not managed
 * ("created before attach"): their queue field is final and their idle workers are blocked in the
 * old queue, so they cannot be taken over safely. Pools without a live worker are not visible.
 * Called once, on the {@code agentmain} thread.
 */
final class PreexistingPools {

    private PreexistingPools() {
    }

    static void list(Takeover takeover) {
        try {
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                Object pool = t instanceof ForkJoinWorkerThread
                        ? ((ForkJoinWorkerThread) t).getPool()
                        : BootClasses.poolOf(t); // in java.base, so it reads the JDK's private fields without opens
                if (pool != null) {
                    takeover.onPreexisting(pool);
                }
            }
        } catch (Throwable e) {
            Log.line("cannot list the pools created before attach: " + e);
        }
    }
}
