package dev.turntable.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The agent's start-up warm-up: it reads its own sample as a private queue and ends the worker
 * threads it started ({@code WarmupIT} checks, in a JVM of its own, that the housekeeper they
 * started ends too).
 */
class WarmupTest {

    @Test
    void theWarmUpReadsItsSampleAsAPrivateQueue() {
        assertEquals(QueueSharing.Kind.PRIVATE, QueueSharing.warmUp().kind());
    }

    @Test
    void theWarmUpEndsItsWorkerThreads() {
        Warmup.run();
        List<String> left = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith(Warmup.THREAD_NAME + "-"))
                .map(Thread::getName).collect(Collectors.toList());
        assertEquals(List.of(), left, "worker threads the warm-up started and did not end");
    }
}
