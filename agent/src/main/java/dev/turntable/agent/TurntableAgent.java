package dev.turntable.agent;

import dev.turntable.jmx.AgentLoadStatus;
import java.lang.instrument.Instrumentation;
import java.util.ArrayList;
import java.util.List;

/**
 * The agent's entry points: {@code premain} for {@code -javaagent:} and {@code agentmain} for a
 * dynamic attach. Each runs once on the JVM's agent-loading thread and never throws: any problem
 * prints one line and leaves the application untouched.
 *
 * <p>No agent class refers to the bridge classes by name: {@link BootClasses} defines renamed
 * copies of them in {@code java.base} here, and the agent reaches those reflectively.
 */
public final class TurntableAgent {

    private TurntableAgent() {
    }

    public static void premain(String agentArgs, Instrumentation inst) {
        start(agentArgs, inst, false);
    }

    public static void agentmain(String agentArgs, Instrumentation inst) {
        start(agentArgs, inst, true);
    }

    private static void start(String agentArgs, Instrumentation inst, boolean attached) {
        List<String> said = new ArrayList<>();
        Log.capturing(said); // every line of this load, its helpers' too, for AgentStatus
        String state = AgentLoadStatus.UNTOUCHED;
        boolean starting = false;
        try {
            if (!inst.isRetransformClassesSupported()) {
                Log.line("this JVM cannot retransform classes, leaving the application untouched");
                return;
            }
            if (BootClasses.alreadyInstalled()) {
                // The bridge, once defined in java.base, stays; a load after one that defined it
                // and then could not start finds it too, and must not claim the agent runs.
                if (AgentRuntime.started()) {
                    state = AgentLoadStatus.ALREADY_RUNNING;
                    Log.line("the agent is already running in this JVM; this load does nothing");
                } else {
                    Log.line("an earlier load of the agent in this JVM could not start, and it cannot be loaded"
                            + " again until the JVM restarts; this load does nothing");
                }
                return;
            }
            // The options first: a load they leave untouched defines nothing, so the operator can
            // attach again with options corrected.
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
            BootClasses.install(inst);
            starting = true;
            AgentRuntime.start(parsed.options(), inst, attached);
            state = AgentLoadStatus.RUNNING;
        } catch (Throwable t) {
            if (starting && AgentRuntime.started()) {
                // The advice is in: pools built from now on are taken over, so say what failed after.
                state = AgentLoadStatus.RUNNING;
                Log.line("started, but a step after the hooks were installed failed: " + t);
            } else {
                Log.line("could not start, leaving the application untouched: " + t);
            }
        } finally {
            Log.stopCapturing();
            AgentStatus.record(state, said, OptionsParser.attachId(agentArgs));
        }
    }
}
