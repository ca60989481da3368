package dev.turntable.agent;

import dev.turntable.agent.bootstrap.TurntableBridge;
import dev.turntable.pool.TurntableQueue;
import java.lang.instrument.Instrumentation;

/**
 * Starts the agent once the bridge is on the bootstrap class path: reads the options, wires the
 * bridge's hooks to a {@link Takeover} (and, with {@code jmx=true}, managed pools and rejection
 * counts to {@link AgentJmx}), installs the advice, and (after an attach) lists the pools that
 * already exist. Called once, on the {@code premain}/{@code agentmain} thread.
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
        AgentJmx jmx = options.jmx() ? new AgentJmx(options, registry, countRejections) : null;
        Takeover takeover = jmx == null
                ? new Takeover(options, registry, () -> { })
                : new Takeover(options, registry, jmx::registerSoon, jmx::poolManaged);

        TurntableBridge.engineQueueClass = TurntableQueue.class;
        TurntableBridge.workerExiting = Takeover::onWorkerExiting;
        TurntableBridge.poolConstructed = takeover::onConstructed;
        TurntableBridge.forkJoinPoolConstructed = takeover::onForkJoinPool;
        TurntableBridge.poolConstructing = takeover::onConstructing;
        if (jmx != null && countRejections) {
            TurntableBridge.poolRejected = takeover::onRejected; // only RejectedTaskCount needs it
        }
        Instrumenter.install(inst);

        if (attached) {
            PreexistingPools.list(inst, takeover);
            if (jmx != null) {
                jmx.registerSoon();
            }
        }
    }
}
