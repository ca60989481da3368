package dev.turntable.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The agent tells a fair {@code SynchronousQueue} (left alone: its FIFO hand-off is the
 * application's choice) from a non-fair one (taken over) by reading the queue's private state
 * from {@code java.base}, on JDK 17 (its transferer's class) and on JDK 25 (its {@code fair}
 * field), without Java serialization: serializing the queue, the fallback, cost the
 * application's first hand-off pool some 60 ms of loading ObjectOutputStream's machinery.
 */
class HandOffFairnessIT {

    @ParameterizedTest(name = "{0}")
    @MethodSource(ForkedJvm.JDKS)
    void fairnessIsReadWithoutSerializingTheQueue(ForkedJvm jvm) throws Exception {
        jvm.assumeInstalled();
        ForkedJvm.Result r = jvm.run(jvm.command(List.of("-Xlog:class+load=info", ForkedJvm.agent("jmx=false")),
                "com.example.apps.HandOffApp"), 60);
        assertEquals(0, r.exitCode, r::toString);
        assertEquals(List.of("nonFair dev.turntable.pool.TurntableQueue", "fair java.util.concurrent.SynchronousQueue"),
                r.lines("QUEUE "), r::toString);
        assertEquals(List.of("3"), r.lines("RESULT "), r::toString);
        assertEquals(List.of(), r.out().stream().filter(l -> l.contains(" java.io.ObjectOutputStream source:"))
                .collect(Collectors.toList()), "the queue was serialized\n" + r);
        assertEquals(List.of(), r.agentLines(), r::toString);
    }
}
