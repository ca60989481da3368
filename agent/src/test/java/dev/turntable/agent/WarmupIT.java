package dev.turntable.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The agent's start-up warm-up leaves nothing running in an application that never builds a
 * pool: its worker threads end, and so does the housekeeper their private queue started.
 */
class WarmupIT {

    @ParameterizedTest(name = "{0}")
    @MethodSource(ForkedJvm.JDKS)
    void anApplicationWithoutPoolsIsLeftWithNoThreadOfTheWarmUp(ForkedJvm jvm) throws Exception {
        jvm.assumeInstalled();
        ForkedJvm.Result r = jvm.run(jvm.command(List.of(ForkedJvm.agent("jmx=false")), "com.example.apps.NoPoolApp"), 60);
        assertEquals(0, r.exitCode, r::toString);
        assertEquals(List.of("[]"), r.lines("LEFT "), r::toString);
        assertEquals(List.of(), r.agentLines(), r::toString);
    }
}
