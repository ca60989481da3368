package dev.turntable.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Runs {@code SemanticsApp} (pools used the way applications use them, each behaviour checked)
 * in a forked JVM without and with the agent, on each JDK: the same checks pass, managed pools run
 * on the engine, and the Agent MBean lists every pool under its contract name with the reason.
 */
class SemanticsIT {

    static final String APP = "com.example.apps.SemanticsApp";

    @ParameterizedTest(name = "{0}")
    @MethodSource(ForkedJvm.JDKS)
    void poolsBehaveAsWithoutTheAgentAndAreListedByName(ForkedJvm jvm) throws Exception {
        jvm.assumeInstalled();
        ForkedJvm.Result plain = jvm.run(jvm.command(List.of(), APP), 120);
        assertEquals(0, plain.exitCode, plain::toString);
        assertTrue(plain.out().contains("ALL-OK"), plain::toString);

        List<String> options = new ArrayList<>(ForkedJvm.VERIFY_JDK_CLASSES);
        options.addAll(List.of(ForkedJvm.agent("exclude=SemanticsApp.excludedPool"),
                "-Dturntable.pool.*SemanticsApp.named.name=orders"));
        ForkedJvm.Result agent = jvm.run(jvm.command(options, APP, "--dump"), 120);
        assertEquals(0, agent.exitCode, agent::toString);
        assertTrue(agent.out().contains("ALL-OK"), agent::toString);
        assertTrue(agent.lines("FAIL").isEmpty(), agent::toString);
        assertTrue(agent.lines("OK ").containsAll(plain.lines("OK ")), "a check that passes without the agent fails with it\n" + agent);
        assertTrue(agent.lines("OK ").containsAll(List.of("engine.lifecycle.slotsRetired", "engine.hooks.slotsRetired")),
                "the worker-exit advice did not tell the engine\n" + agent);
        // One line: the pool on a queue subclass is left alone and said once. The scheduled
        // pool and the priority queue's are left alone by design (the order is the app's), quietly.
        assertEquals(List.of("[turntable] pool SemanticsApp.otherQueues-2 left untouched: custom queue"
                + " com.example.apps.SemanticsApp$1 (a subclass may change how tasks are queued)"), agent.agentLines(),
                "only an untouched pool the application may have expected taken over\n" + agent);
        assertEquals(2, plain.lines("SHAPE ").size(), plain::toString);
        assertEquals(plain.lines("SHAPE "), agent.lines("SHAPE "), "no field or method added to a JDK class");
        jvm.assertNoAgentUnsafeWarning(agent);

        Map<String, String> queues = agent.lines("QUEUE ").stream()
                .collect(Collectors.toMap(l -> l.split(" ")[0], l -> l.split(" ")[1], (a, b) -> a, LinkedHashMap::new));
        String engine = "dev.turntable.pool.TurntableQueue";
        for (String managed : List.of("fixed", "lifecycle", "hooked", "cached", "bounded", "named")) {
            assertEquals(engine, queues.get(managed), managed + " should run on the engine\n" + agent);
        }
        assertEquals("java.util.concurrent.PriorityBlockingQueue", queues.get("priority"));
        assertEquals("com.example.apps.SemanticsApp$1", queues.get("subclassQueue"));
        assertEquals("java.util.concurrent.SynchronousQueue", queues.get("fair"));
        assertEquals("java.util.concurrent.LinkedBlockingQueue", queues.get("nonEmpty"));
        assertEquals("java.util.concurrent.LinkedBlockingQueue", queues.get("excluded"));

        Map<String, String[]> pools = agent.lines("POOL ").stream()
                .map(l -> l.split("\\|", 4))
                .collect(Collectors.toMap(a -> a[0], a -> a, (a, b) -> a, LinkedHashMap::new));
        String app = "com.example.apps.SemanticsApp";
        expect(pools, "SemanticsApp.fixed", app + ".fixed", true, "LinkedBlockingQueue, unbounded");
        expect(pools, "SemanticsApp.lifecycle", app + ".lifecycle", true, "LinkedBlockingQueue, unbounded");
        expect(pools, "SemanticsApp.hooks", app + ".hooks", true, "LinkedBlockingQueue, unbounded");
        expect(pools, "SemanticsApp.cached", app + ".cached", true, "SynchronousQueue, hand-off");
        expect(pools, "SemanticsApp.bounded", app + ".bounded", true, "ArrayBlockingQueue, bounded to 1");
        expect(pools, "SemanticsApp.sameSiteTwice", app + ".sameSiteTwice", true, "LinkedBlockingQueue");
        expect(pools, "SemanticsApp.sameSiteTwice-2", app + ".sameSiteTwice", true, "LinkedBlockingQueue");
        expect(pools, "SemanticsApp.lambdas", app + ".lambda$lambdas$", true, "LinkedBlockingQueue");
        expect(pools, "Service.new", app + "$Service.<init>", true, "LinkedBlockingQueue");
        expect(pools, "SemanticsApp.otherQueues", app + ".otherQueues", false, "priority queue");
        expect(pools, "SemanticsApp.otherQueues-2", app + ".otherQueues", false, "custom queue");
        expect(pools, "SemanticsApp.otherQueues-3", app + ".otherQueues", false, "fair SynchronousQueue");
        expect(pools, "SemanticsApp.otherQueues-4", app + ".otherQueues", false, "already holds 1 task");
        expect(pools, "SemanticsApp.excludedPool", app + ".excludedPool", false, "excluded by exclude=SemanticsApp.excludedPool");
        expect(pools, "orders", app + ".named", true, "LinkedBlockingQueue");
        expect(pools, "SemanticsApp.scheduled", app + ".scheduled", false, "ScheduledThreadPoolExecutor");
        expect(pools, "SemanticsApp.forkJoin", app + ".forkJoin", false, "ForkJoinPool");
        expect(pools, "HttpClientImpl.new", "jdk.internal.net.http.HttpClientImpl.<init>", false, "created by the JDK");
        for (String[] p : pools.values()) {
            assertTrue(p[0].matches("[A-Za-z0-9._-]+"), "pool name outside [A-Za-z0-9._-]: " + p[0]);
            if (p[1].startsWith("java.") || p[1].startsWith("jdk.") || p[1].startsWith("sun.")) {
                assertEquals("false", p[2], "a JDK-created pool is never managed: " + String.join("|", p));
            }
        }
    }

    private static void expect(Map<String, String[]> pools, String name, String sitePrefix, boolean managed,
                               String reasonPart) {
        String[] p = pools.get(name);
        assertTrue(p != null, "pool " + name + " is not listed: " + pools.keySet());
        assertTrue(p[1].startsWith(sitePrefix), name + ": creation site " + p[1] + ", expected " + sitePrefix);
        assertEquals(Boolean.toString(managed), p[2], name + " managed");
        assertTrue(p[3].contains(reasonPart), name + ": reason '" + p[3] + "' lacks '" + reasonPart + "'");
    }
}
