package dev.turntable.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Runs {@code CapturedQueueApp} (an application that keeps and uses its own reference to the
 * queue it gave its pools) without and with the agent: the checks that pass without it must pass
 * with it. The agent stands the engine in for that queue, and the engine runs what the
 * application still puts there: a rejection handler that blocks on its own queue's
 * {@code put} neither loses tasks nor hangs, and tasks placed there before
 * {@code prestartAllCoreThreads()} run.
 */
class CapturedQueueIT {

    static final String APP = "com.example.apps.CapturedQueueApp";

    static Stream<ForkedJvm> jdks() {
        return ForkedJvm.jdks();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void anApplicationUsingItsOwnQueueReferenceLosesNoTask(ForkedJvm jvm) throws Exception {
        jvm.assumeInstalled();
        ForkedJvm.Result plain = jvm.run(jvm.command(List.of(), APP), 60);
        assertEquals(0, plain.exitCode, plain::toString);
        assertEquals(List.of(), plain.lines("FAIL "), plain::toString);
        assertTrue(plain.out().contains("END"), plain::toString);

        ForkedJvm.Result agent = jvm.run(jvm.command(List.of(ForkedJvm.agent(null)), APP), 60);
        assertEquals(0, agent.exitCode, agent::toString);
        assertTrue(agent.out().contains("END"), agent::toString);
        assertEquals(List.of(), agent.lines("FAIL "), "a check that passes without the agent fails with it\n" + agent);
        assertEquals(List.of("TurntableQueue", "TurntableQueue", "TurntableQueue", "TurntableQueue"),
                agent.lines("QUEUE "), "every pool of the application is taken over\n" + agent);
    }
}
