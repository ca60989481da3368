package dev.turntable.agent;

import dev.turntable.pool.TurntableQueue;
import dev.turntable.pool.WorkerRetirement;
import java.lang.instrument.Instrumentation;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Starts the agent once the bridge is defined in {@code java.base} ({@link BootClasses}) and the
 * options are read ({@link OptionsParser}, before the bridge: see {@code TurntableAgent}): wires the
 * bridge's hooks to a {@link Takeover} (and, with {@code jmx=true}, managed pools and rejection
 * counts to {@link AgentJmx}), installs the advice (saying so in one line if
 * {@code max-lifetime-tasks} asks for worker retirement this JVM cannot do), and (after an attach)
 * lists the pools that already exist. Called once, on the {@code premain}/{@code agentmain} thread.
 */
final class AgentRuntime {

    private AgentRuntime() {
    }

    /**
     * Set once {@link #start} has installed the advice. The agent's classes are loaded once per
     * JVM (every load of the jar goes through the system class loader), so a later load reads it.
     */
    private static volatile boolean started;

    /** Whether an earlier load of the agent in this JVM started it. */
    static boolean started() {
        return started;
    }

    static void start(Options options, Instrumentation inst, boolean attached) throws Exception {
        PoolRegistry registry = new PoolRegistry();
        boolean countRejections = Instrumenter.countsRejections();
        Retirement retirement = new Retirement();
        AgentJmx jmx = options.jmx() ? new AgentJmx(options, registry, countRejections, retirement) : null;
        AgentStatus.recordJmx(options.jmx());
        Takeover takeover = jmx == null
                ? new Takeover(options, registry, () -> { }, (pool, record) -> { }, retirement::supported)
                : new Takeover(options, registry, jmx::registerSoon, jmx::poolManaged, retirement::supported);

        // The field names and types of dev.turntable.agent.bootstrap.TurntableBridge.
        BootClasses.setHook("engineQueueClass", Class.class, TurntableQueue.class);
        BootClasses.setHook("workerExiting", Consumer.class, (Consumer<Object>) Takeover::onWorkerExiting);
        BootClasses.setHook("workerStarting", BiConsumer.class, (BiConsumer<Object, Object>) Takeover::onWorkerStarting);
        BootClasses.setHook("firstTaskQueueing", Predicate.class, (Predicate<Object[]>) Takeover::onFirstTask);
        BootClasses.setHook("retirementSignal", Predicate.class, (Predicate<Throwable>) WorkerRetirement::isRetirement);
        BootClasses.setHook("ownerShutDown", Consumer.class, (Consumer<Object>) Takeover::onOwnerShutDown);
        BootClasses.setHook("ownerStopping", BiConsumer.class, (BiConsumer<Object, Boolean>) Takeover::onOwnerStopping);
        BootClasses.setHook("ownerTerminated", Consumer.class, (Consumer<Object>) Takeover::onOwnerTerminated);
        BootClasses.setHook("poolConstructed", BiConsumer.class, (BiConsumer<Object, Object>) takeover::onConstructed);
        BootClasses.setHook("forkJoinPoolConstructed", Consumer.class, (Consumer<Object>) takeover::onForkJoinPool);
        BootClasses.setHook("poolConstructing", Function.class, (Function<Object[], Object[]>) takeover::onConstructing);
        if (jmx != null && countRejections) {
            // only RejectedTaskCount needs it
            BootClasses.setHook("poolRejected", Consumer.class, (Consumer<Object>) takeover::onRejected);
        }
        Instrumenter.install(inst, retirement);
        started = true;
        Warmup.startSoon();
        String noRetirement = retirement.unavailableLine(options);
        if (noRetirement != null) {
            Log.line(noRetirement);
        }
        if (!options.taskStealing()) {
            // Valid, and risky in a way a plain pool is not: said once, at start.
            Log.line("task-stealing=false: a task that waits for another task queued behind it on the same worker"
                    + " waits for good, where a plain ThreadPoolExecutor would run the other on another thread");
        }

        if (attached) {
            PreexistingPools.list(takeover);
            if (jmx != null) {
                jmx.registerSoon();
            }
        }
    }
}
