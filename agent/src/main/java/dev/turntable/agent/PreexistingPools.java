package dev.turntable.agent;

import dev.turntable.agent.bootstrap.WorkerThreads;
import java.lang.instrument.Instrumentation;
import java.util.Map;
import java.util.Set;
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

    static void list(Instrumentation inst, Takeover takeover) {
        try {
            Module bootstrap = WorkerThreads.class.getModule(); // the bootstrap loader's unnamed module only
            Module base = Object.class.getModule();
            inst.redefineModule(base, Set.of(), Map.of(),
                    Map.of("java.lang", Set.of(bootstrap), "java.util.concurrent", Set.of(bootstrap)),
                    Set.of(), Map.of());
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                Object pool = t instanceof ForkJoinWorkerThread
                        ? ((ForkJoinWorkerThread) t).getPool()
                        : WorkerThreads.poolOf(t);
                if (pool != null) {
                    takeover.onPreexisting(pool);
                }
            }
        } catch (Throwable e) {
            Log.line("cannot list the pools created before attach: " + e);
        }
    }
}
