package dev.turntable.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Runs {@code CapturedQueueApp} (an application that keeps and uses its own reference to the
 * queue it gave its pools) without and with the agent: the checks that pass without it must pass
 * with it. A pool whose building method visibly keeps its queue is left alone, so the
 * application's own gauge on that queue still counts the pool's tasks; a pool whose queue comes
 * from elsewhere is taken over, and the engine runs what the application still puts into that
 * queue: a rejection handler that blocks on its {@code put} neither loses tasks nor hangs, and
 * tasks placed there before {@code prestartAllCoreThreads()} run.
 */
class CapturedQueueIT {

    static final String APP = "com.example.apps.CapturedQueueApp";

    @ParameterizedTest(name = "{0}")
    @MethodSource(ForkedJvm.JDKS)
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
        assertEquals(List.of("blockingHandler ArrayBlockingQueue", "synchronousHandler SynchronousQueue",
                "gauge LinkedBlockingQueue", "prestart LinkedBlockingQueue",
                "held.blockingHandler TurntableQueue", "held.synchronousHandler TurntableQueue",
                "held.prestart TurntableQueue"),
                agent.lines("QUEUE "), "pools that keep their queue in sight are left alone, the others taken over\n" + agent);
        // Each pool left alone is said once on standard error, with where the queue goes.
        List<String> said = agent.agentLines();
        assertEquals(4, said.size(), agent::toString);
        assertTrue(said.stream().allMatch(l -> l.matches("\\[turntable] pool CapturedQueueApp\\.\\S+ left untouched: the"
                + " application keeps its own reference to the work queue \\(.+\\), which the engine would leave empty")),
                agent::toString);
    }
}
