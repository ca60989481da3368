package dev.turntable.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Worker retirement under the agent, in forked JVMs on each JDK: {@code RetirementApp} (a fixed
 * pool of 4 with its own counting ThreadFactory and an UncaughtExceptionHandler that prints)
 * runs 200 tasks with {@code max-lifetime-tasks=10}: every result is right, workers were replaced
 * through the application's factory, the retirement signal never reaches the handler or stderr,
 * the Pool MBean shows the limit and the staircase, and the application exits normally.
 */
class RetirementIT {

    static final String APP = "com.example.apps.RetirementApp";

    @ParameterizedTest(name = "{0}")
    @MethodSource(ForkedJvm.JDKS)
    void workersRetireAfterTheirLifetimeUnseenByTheApplication(ForkedJvm jvm) throws Exception {
        jvm.assumeInstalled();
        List<String> options = new ArrayList<>(ForkedJvm.VERIFY_JDK_CLASSES);
        options.add(ForkedJvm.agent("strategy=LIFETIME_FIRST,max-lifetime-tasks=10"));
        ForkedJvm.Result r = jvm.run(jvm.command(options, APP), 120);
        assertEquals(0, r.exitCode, r::toString);
        assertEquals(List.of("200"), r.lines("RESULTS-OK "), "every result correct\n" + r);
        assertEquals(List.of(), r.lines("RESULTS-BAD"), r::toString);
        assertQuiet(jvm, r);

        int threads = Integer.parseInt(r.lines("THREADS ").get(0));
        assertTrue(threads > 4, "workers were replaced through the application's ThreadFactory: " + threads + "\n" + r);
        assertEquals(List.of("10"), r.lines("MAX-LIFETIME "), r::toString);
        List<Integer> lifetimes = Arrays.stream(r.lines("LIFETIMES ").get(0).split(";"))
                .map(Integer::valueOf).collect(Collectors.toList());
        // One entry per slot a thread has registered in. newFixedThreadPool does not prestart its
        // threads and a thread takes a slot when it first asks the queue for a task, so a
        // retiree's freed slot can be reused before the fourth thread ever registers: 1 to 4.
        assertTrue(lifetimes.size() >= 1 && lifetimes.size() <= 4, "one lifetime per worker slot, at most the pool's 4: " + r);
        assertTrue(lifetimes.stream().allMatch(l -> l >= 0 && l <= 10), "no worker past its lifetime: " + lifetimes);
        long retired = Long.parseLong(r.lines("RETIRED ").get(0));
        assertTrue(retired >= threads - 4 - 1 && retired > 0, "retired " + retired + ", threads made " + threads + "\n" + r);
        assertTrue(Integer.parseInt(r.lines("NOTIFICATIONS ").get(0)) > 0, "a dev.turntable.worker.retired notification\n" + r);
        String n = r.lines("NOTIFICATION ").get(0);
        assertTrue(n.matches("worker \\d \\(app-worker-\\d+\\) retired after 10 tasks \\(LIFETIME\\)\\|index=\\d,"
                + "threadName=app-worker-\\d+,lifetimeTasks=10,reason=LIFETIME,retirements=\\d+"), n);
        assertEquals(List.of("true"), r.lines("TERMINATED "), r::toString);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(ForkedJvm.JDKS)
    void aBadLifetimePrintsOneLineAndTheAppRunsAtTheDefaultWhereRecycleStillWorks(ForkedJvm jvm) throws Exception {
        jvm.assumeInstalled();
        ForkedJvm.Result r = jvm.run(jvm.command(List.of(
                ForkedJvm.agent("strategy=LIFETIME_FIRST,max-lifetime-tasks=-5")), APP, "--recycle"), 120);
        assertEquals(0, r.exitCode, r::toString);
        assertEquals(List.of("[turntable] option max-lifetime-tasks=-5 is not allowed: an integer from 0 (off) to "
                + Integer.MAX_VALUE + "; using the default 0"), r.agentLines(), r::toString);
        assertEquals(List.of("200", "20"), r.lines("RESULTS-OK "), r::toString);
        assertEquals(List.of("4"), r.lines("THREADS "), "the default: no worker retires\n" + r);
        assertEquals(List.of("0"), r.lines("MAX-LIFETIME "), r::toString);
        assertEquals(List.of("0"), r.lines("RETIRED "), r::toString);
        // recycleWorker through JMX: one worker replaced through the application's factory, quietly.
        assertEquals(List.of("1 threads=5"), r.lines("RECYCLED "), r::toString);
        assertEquals(List.of("true"), r.lines("TERMINATED "), r::toString);
        assertQuiet(jvm, r);
    }

    /**
     * A fixed pool's threads start with the tasks ThreadPoolExecutor hands them directly: the
     * agent attaches each as a worker before that task runs, so long first tasks show in the
     * Workers table, a hung one is reported STUCK, and one can be recycled. They used to show
     * no workers at all until each thread first asked the queue for a task, and recycle
     * answered "worker index 0 is not in 0..-1".
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource(ForkedJvm.JDKS)
    void threadsBusyInTheirFirstTasksAreWorkersTheHeartbeatWatchesAndRecycleReaches(ForkedJvm jvm) throws Exception {
        jvm.assumeInstalled();
        for (String pool : List.of("fixed", "cached")) {
            ForkedJvm.Result r = jvm.run(jvm.command(List.of(ForkedJvm.agent("heartbeat-timeout-ms=200")),
                    "com.example.apps.FirstTaskApp", pool), 120);
            assertEquals(0, r.exitCode, r::toString);
            assertEquals(List.of("2 STUCK,STUCK"), r.lines("WORKERS "), pool + "\n" + r);
            assertEquals(List.of(""), r.lines("RECYCLE-OK"), pool + "\n" + r);
            assertEquals(List.of("22"), r.lines("RAN "), "every task ran once\n" + r);
            int threads = Integer.parseInt(r.lines("THREADS ").get(0));
            if (pool.equals("fixed")) {
                assertEquals(3, threads, "the recycled worker was replaced through the app's factory\n" + r);
            } else {
                assertTrue(threads >= 3, "a cached pool makes what it needs, the recycled worker's replacement too\n" + r);
            }
            assertEquals(List.of("true"), r.lines("TERMINATED "), r::toString);
            assertEquals(List.of(), r.agentLines(), r::toString);
        }
    }

    /**
     * A single-thread executor keeps submission order while its worker retires every 10 tasks
     * (and, in the second pool, also dies at every tenth task): 60,000 tasks per pool in order.
     * Before, a submit that came after a worker left and before ThreadPoolExecutor had made its
     * replacement was handed to the new thread to run first, ahead of the tasks the old one left
     * queued ([98, 99, 1825, 100, 101] in 3 of 10 rounds at lifetime 100).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource(ForkedJvm.JDKS)
    void aSingleThreadExecutorKeepsSubmissionOrderAcrossRetirementsAndDeaths(ForkedJvm jvm) throws Exception {
        jvm.assumeInstalled();
        List<String> options = new ArrayList<>(ForkedJvm.VERIFY_JDK_CLASSES);
        options.add(ForkedJvm.agent("max-lifetime-tasks=10"));
        ForkedJvm.Result r = jvm.run(jvm.command(options, "com.example.apps.OrderApp"), 180);
        assertEquals(0, r.exitCode, r::toString);
        assertEquals(List.of("OK plain 60000", "OK dying 60000"), r.lines("ORDER-"), r::toString);
        for (String kind : List.of("plain", "dying")) {
            int threads = Integer.parseInt(r.lines("THREADS " + kind + " ").get(0));
            assertTrue(threads > 1_000, kind + ": workers were replaced about every 10 tasks, made " + threads + "\n" + r);
        }
        assertEquals(List.of("true"), r.lines("TERMINATED "), r::toString);
        assertEquals(List.of(), r.lines("UEH "), r::toString);
        assertEquals(List.of(), r.agentLines(), r::toString);
    }

    /** Nothing reached the application's handler, and no stack trace or agent complaint on stderr. */
    private static void assertQuiet(ForkedJvm jvm, ForkedJvm.Result r) {
        assertEquals(List.of(), r.lines("UEH "), "the retirement signal reached the UncaughtExceptionHandler\n" + r);
        List<String> traces = r.err().stream()
                .filter(l -> l.startsWith("\tat ") || l.contains("Exception") || l.contains("WorkerRetirement"))
                .collect(Collectors.toList());
        assertEquals(List.of(), traces, r::toString);
        assertTrue(r.agentLines().stream().noneMatch(l -> l.contains("failed") || l.contains("could not")), r::toString);
        jvm.assertNoAgentUnsafeWarning(r);
    }
}
