package dev.turntable.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Pools the application drops without shutting them down are collected under the agent as
 * without it, MBeans and all, on each JDK. On JDK 21 and later a dead thread keeps its
 * {@code Runnable} (the executor's worker, and through it the executor); the engine's look at
 * each worker's last thread kept it from the pool's MBean, and about a fifth of the pools of
 * {@code AbandonedPoolsApp} stayed reachable for good on JDK 25 (none on JDK 17).
 */
class AbandonedPoolsIT {

    @ParameterizedTest(name = "{0}")
    @MethodSource(ForkedJvm.JDKS)
    void droppedPoolsAreCollectedAndTheirMBeansGo(ForkedJvm jvm) throws Exception {
        jvm.assumeInstalled();
        ForkedJvm.Result r = jvm.run(jvm.command(List.of(ForkedJvm.agent(null)), "com.example.apps.AbandonedPoolsApp",
                "200"), 60);
        assertEquals(0, r.exitCode, r::toString);
        assertEquals(List.of("0"), r.lines("ALIVE "), r::toString);
        assertEquals(List.of("0"), r.lines("MBEANS "), r::toString);
        assertEquals(List.of(), r.agentLines(), r::toString);
    }
}
