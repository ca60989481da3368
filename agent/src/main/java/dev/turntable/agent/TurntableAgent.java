package dev.turntable.agent;

import java.lang.instrument.Instrumentation;

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
        try {
            if (!inst.isRetransformClassesSupported()) {
                Log.line("this JVM cannot retransform classes, leaving the application untouched");
                return;
            }
            if (BootClasses.alreadyInstalled()) {
                Log.line("the agent is already running in this JVM; this load does nothing");
                return;
            }
            BootClasses.install(inst);
            AgentRuntime.start(agentArgs, inst, attached);
        } catch (Throwable t) {
            Log.line("could not start, leaving the application untouched: " + t);
        }
    }
}
