package dev.turntable.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Options end to end, in forked JVMs: bad values print one line each and the application runs
 * (with that key at its default, or untouched where a default is unsafe); the three sources
 * combine by precedence; a config file names a pool.
 */
class OptionsIT {

    static final String APP = "com.example.apps.QuickApp";
    static final String ENGINE = "dev.turntable.pool.TurntableQueue";

    @ParameterizedTest(name = "{0}")
    @MethodSource(ForkedJvm.JDKS)
    void badValuesPrintOneLineEachAndTheAppRunsWithDefaults(ForkedJvm jvm) throws Exception {
        jvm.assumeInstalled();
        ForkedJvm.Result r = jvm.run(jvm.command(List.of(
                ForkedJvm.agent("strategy=NOPE,weights=0;x,max-lifetime-tasks=5,requestor=THREAD,foo=1"),
                "-Dturntable.median=maybe"), APP, "--dump"), 60);
        assertEquals(0, r.exitCode, r::toString);
        assertTrue(r.out().contains("SUM 5050"), r::toString);
        assertEquals(List.of(ENGINE), r.lines("QUEUE quick "), "bad values of safe keys fall back to defaults\n" + r);
        List<String> lines = r.agentLines();
        assertEquals(5, lines.size(), "one line per problem\n" + r);
        assertOneLine(lines, "option strategy=NOPE is not allowed: one of ROUND_ROBIN, LEAST_USED", "using the default LEAST_USED");
        assertOneLine(lines, "option weights=0;x is not allowed: worker weights in ms", "using the default (derived from the CPUs)");
        assertOneLine(lines, "option median=maybe (system property turntable.median) is not allowed: true or false",
                "using the default false");
        assertOneLine(lines, "option requestor=THREAD is not allowed: one of THREAD_NAME, TASK_CLASS, POOL_NAME",
                "task classes stay off");
        assertOneLine(lines, "unknown option foo=1 ignored", "");
        assertTrue(r.lines("OPTION ").contains("strategy=LEAST_USED"), r::toString);
        assertTrue(r.lines("OPTION ").contains("requestor=THREAD_NAME"), r::toString);
        assertTrue(r.lines("OPTION ").contains("max-lifetime-tasks=5"), "a good value: no line, no note\n" + r);
        assertTrue(r.lines("POOL ").contains("QuickApp.main|com.example.apps.QuickApp.main|true|LinkedBlockingQueue, unbounded"),
                r::toString);
        jvm.assertNoAgentUnsafeWarning(r);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(ForkedJvm.JDKS)
    void anUnsafeBadValueLeavesTheApplicationUntouched(ForkedJvm jvm) throws Exception {
        jvm.assumeInstalled();
        for (String options : List.of("exclude=bad glob!", "config=/nonexistent/turntable.properties", "include,strategy=FAIR_SHARE")) {
            ForkedJvm.Result r = jvm.run(jvm.command(List.of(ForkedJvm.agent(options)), APP), 60);
            assertEquals(0, r.exitCode, r::toString);
            assertTrue(r.out().contains("SUM 5050"), r::toString);
            assertEquals(List.of("java.util.concurrent.LinkedBlockingQueue"), r.lines("QUEUE quick "),
                    options + " must leave the pool untouched\n" + r);
            assertEquals(1, r.agentLines().size(), "one line\n" + r);
            assertTrue(r.agentLines().get(0).endsWith("leaving the application untouched"), r::toString);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(ForkedJvm.JDKS)
    void agentOptionsBeatSystemPropertiesBeatTheConfigFile(ForkedJvm jvm, @TempDir Path dir) throws Exception {
        jvm.assumeInstalled();
        Path config = dir.resolve("turntable.properties");
        Files.writeString(config, "strategy=ROUND_ROBIN\nmedian=true\ntask-stealing=false\nmeasurement=CPU_TIME\n"
                + "pool.*QuickApp.main.name=quick\n");
        ForkedJvm.Result r = jvm.run(jvm.command(List.of(
                ForkedJvm.agent("config=" + config + ",strategy=LEAST_BUSY"),
                "-Dturntable.strategy=FAIR_SHARE", "-Dturntable.measurement=WAIT_TIME"), APP, "--dump"), 60);
        assertEquals(0, r.exitCode, r::toString);
        // The one line: stealing off is valid, and risky where a plain pool is not.
        assertEquals(List.of("[turntable] task-stealing=false: a task that waits for another task queued behind it"
                + " on the same worker waits for good, where a plain ThreadPoolExecutor would run the other on"
                + " another thread"), r.agentLines(), r::toString);
        List<String> opts = r.lines("OPTION ");
        assertTrue(opts.contains("strategy=LEAST_BUSY"), "agent option wins\n" + r);
        assertTrue(opts.contains("measurement=WAIT_TIME"), "system property beats the file\n" + r);
        assertTrue(opts.contains("median=true") && opts.contains("task-stealing=false"), "the file beats defaults\n" + r);
        assertTrue(r.lines("POOL ").contains("quick|com.example.apps.QuickApp.main|true|LinkedBlockingQueue, unbounded"),
                r::toString);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(ForkedJvm.JDKS)
    void jmxFalseRegistersNoMBeanButStillManages(ForkedJvm jvm) throws Exception {
        jvm.assumeInstalled();
        ForkedJvm.Result r = jvm.run(jvm.command(List.of(ForkedJvm.agent("jmx=false"), "-Dapps.dumpWaitMs=3000"),
                APP, "--dump"), 60);
        assertEquals(0, r.exitCode, r::toString);
        assertEquals(List.of(ENGINE), r.lines("QUEUE quick "), r::toString);
        assertTrue(r.out().contains("NO-AGENT-MBEAN"), r::toString);
        // So turntablectl jvms does not connect there (starting a management agent) for nothing.
        assertEquals(List.of("true"), r.lines("JMX-OFF "), r::toString);
        assertEquals(List.of(), r.agentLines(), r::toString);
    }

    private static void assertOneLine(List<String> lines, String start, String end) {
        long n = lines.stream().filter(l -> l.startsWith("[turntable] " + start) && l.endsWith(end)).count();
        assertEquals(1, n, "expected one line '" + start + " ... " + end + "' in " + lines);
    }
}
