package dev.turntable.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * JDK 25 prints a warning when code calls a {@code sun.misc.Unsafe} memory-access method. The
 * agent itself (its bytecode rewriting and bridge) must cause none; the engine's own
 * queues are checked separately so a failure names the module to change.
 */
class UnsafeWarningIT {

    private static ForkedJvm jdk25() {
        return ForkedJvm.jdks().filter(ForkedJvm::isJdk25).findFirst().orElseThrow().assumeInstalled();
    }

    @Test
    void theAgentCausesNoUnsafeWarningOnJdk25() throws Exception {
        ForkedJvm jvm = jdk25();
        // exclude=*: the agent runs fully (advice, hooks, MBean) but builds no engine queue
        ForkedJvm.Result r = jvm.run(jvm.command(List.of(ForkedJvm.agent("exclude=*")),
                "com.example.apps.QuickApp", "--dump"), 60);
        assertEquals(0, r.exitCode, r::toString);
        assertEquals(List.of(), ForkedJvm.unsafeWarnings(r), r::toString);
    }

    @Test
    void theEngineCausesNoUnsafeWarningOnJdk25() throws Exception {
        ForkedJvm jvm = jdk25();
        ForkedJvm.Result r = jvm.run(jvm.command(List.of(ForkedJvm.agent(null)), "com.example.apps.QuickApp"), 60);
        assertEquals(0, r.exitCode, r::toString);
        jvm.assertNoAgentUnsafeWarning(r);
        // The engine's worker queues are JCTools' atomic (Unsafe-free) variant for this reason.
        assertEquals(List.of(), ForkedJvm.unsafeWarnings(r), r::toString);
    }
}
