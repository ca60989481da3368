package dev.turntable.agent;

import dev.turntable.agent.bootstrap.TurntableBridge;
import dev.turntable.pool.TurntableQueue;
import dev.turntable.pool.WorkerRetirement;
import java.lang.instrument.Instrumentation;

/**
 * Starts the agent once the bridge is on the bootstrap class path: reads the options, wires the
 * bridge's hooks to a {@link Takeover} (and, with {@code jmx=true}, managed pools and rejection
 * counts to {@link AgentJmx}), installs the advice (saying so in one line if
 * {@code max-lifetime-tasks} asks for worker retirement this JVM cannot do), and (after an attach)
 * lists the pools that already exist. Called once, on the {@code premain}/{@code agentmain} thread.
 */
final class AgentRuntime {

    private AgentRuntime() {
    }

    static void start(String agentArgs, Instrumentation inst, boolean attached) {
        OptionsParser.Result parsed = OptionsParser.parse(agentArgs, System.getProperties());
        parsed.messages().forEach(Log::line);
        if (parsed.untouched()) {
            return;
        }
        String unsupported = Instrumenter.unsupportedReason();
        if (unsupported != null) {
            Log.line("this JDK (" + System.getProperty("java.version") + ") is not supported, leaving the"
                    + " application untouched: " + unsupported);
            return;
        }
        Options options = parsed.options();
        PoolRegistry registry = new PoolRegistry();
        boolean countRejections = Instrumenter.countsRejections();
        Retirement retirement = new Retirement();
        AgentJmx jmx = options.jmx() ? new AgentJmx(options, registry, countRejections, retirement) : null;
        Takeover takeover = jmx == null
                ? new Takeover(options, registry, () -> { }, (pool, record) -> { }, retirement::supported)
                : new Takeover(options, registry, jmx::registerSoon, jmx::poolManaged, retirement::supported);

        TurntableBridge.engineQueueClass = TurntableQueue.class;
        TurntableBridge.workerExiting = Takeover::onWorkerExiting;
        TurntableBridge.retirementSignal = WorkerRetirement::isRetirement;
        TurntableBridge.ownerShutDown = Takeover::onOwnerShutDown;
        TurntableBridge.ownerStopping = Takeover::onOwnerStopping;
        TurntableBridge.poolConstructed = takeover::onConstructed;
        TurntableBridge.forkJoinPoolConstructed = takeover::onForkJoinPool;
        TurntableBridge.poolConstructing = takeover::onConstructing;
        if (jmx != null && countRejections) {
            TurntableBridge.poolRejected = takeover::onRejected; // only RejectedTaskCount needs it
        }
        Instrumenter.install(inst, retirement);
        Warmup.startSoon();
        String noRetirement = retirement.unavailableLine(options);
        if (noRetirement != null) {
            Log.line(noRetirement);
        }

        if (attached) {
            PreexistingPools.list(inst, takeover);
            if (jmx != null) {
                jmx.registerSoon();
            }
        }
    }
}
