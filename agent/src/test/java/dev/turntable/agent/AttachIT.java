package dev.turntable.agent;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Dynamic attach: this test JVM loads the agent into a running child JVM by pid. The pool that
 * existed before is listed as not managed ("created before attach"); the pool created after is
 * managed; the options given at attach apply.
 */
class AttachIT {

    @ParameterizedTest(name = "{0}")
    @MethodSource(ForkedJvm.JDKS)
    void poolsCreatedAfterAttachAreTakenOverAndEarlierOnesListed(ForkedJvm jvm) throws Exception {
        jvm.assumeInstalled();
        ForkedJvm.Result r = attachedRun(jvm, "strategy=ROUND_ROBIN");
        assertEquals(List.of("java.util.concurrent.LinkedBlockingQueue"), r.lines("QUEUE before "), r::toString);
        assertEquals(List.of("dev.turntable.pool.TurntableQueue"), r.lines("QUEUE after "), r::toString);
        List<String> pools = r.lines("POOL ");
        assertTrue(pools.contains("ThreadPoolExecutor.beforeAttach|unknown|false|created before attach"), r::toString);
        assertTrue(pools.contains("AttachTargetApp.afterAttach|com.example.apps.AttachTargetApp.afterAttach|true"
                + "|LinkedBlockingQueue, unbounded"), r::toString);
        assertTrue(r.lines("OPTION ").contains("strategy=ROUND_ROBIN"), r::toString);
        assertEquals(List.of(), r.agentLines(), r::toString);
        jvm.assertNoAgentUnsafeWarning(r);
        assertTrue(new File(ForkedJvm.AGENT_JAR.toString()).isFile());
    }

    /**
     * An operator who attaches with a bad option is told so in the application's output, and the
     * application is left untouched: attaching again with the option corrected must work, not
     * be refused as "already running" until the JVM restarts.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource(ForkedJvm.JDKS)
    void anAttachLeftUntouchedByABadOptionCanBeCorrectedByAnother(ForkedJvm jvm) throws Exception {
        jvm.assumeInstalled();
        ForkedJvm.Result r = attachedRun(jvm, "include=[,strategy=NOPE", "strategy=ROUND_ROBIN");
        List<String> lines = r.agentLines();
        assertEquals(2, lines.size(), r::toString);
        assertTrue(lines.get(0).contains("include=[") && lines.get(0).endsWith("leaving the application untouched"), r::toString);
        // Nothing runs with the default strategy: that line names the problem and no consequence.
        assertTrue(lines.get(1).contains("strategy=NOPE is not allowed") && !lines.get(1).contains("default"), r::toString);
        assertEquals(List.of("dev.turntable.pool.TurntableQueue"), r.lines("QUEUE after "), "the second attach took over\n" + r);
        assertTrue(r.lines("OPTION ").contains("strategy=ROUND_ROBIN"), r::toString);
    }

    /**
     * What {@code turntablectl attach} tells the operator, who does not see the application's
     * output where the agent's lines go: bad options, and a config file the JVM could not read,
     * are refused before anything is loaded, and a load into a JVM that runs the agent already
     * is not made (it would do nothing).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource(ForkedJvm.JDKS)
    void turntablectlAttachReportsWhatTheJvmDid(ForkedJvm jvm) throws Exception {
        jvm.assumeInstalled();
        ForkedJvm.Result r = attachedRun(jvm, pid -> {
            Cli bad = Cli.attach(pid, "strategy=NOPE");
            assertEquals(2, bad.code, bad::toString);
            assertTrue(bad.err.contains("option strategy=NOPE is not allowed: one of ROUND_ROBIN"), bad::toString);

            // A config file the JVM could not read is refused before loading, as a bad option is.
            Cli missing = Cli.attach(pid, "config=/nonexistent/turntable.properties");
            assertEquals(2, missing.code, missing::toString);
            assertTrue(missing.err.contains("does not exist") && missing.err.contains("nothing attached"),
                    missing::toString);

            Cli good = Cli.attach(pid, "strategy=ROUND_ROBIN");
            assertEquals(0, good.code, good::toString);

            Cli again = Cli.attach(pid, "strategy=FAIR_SHARE");
            assertEquals(4, again.code, again::toString);
            assertTrue(again.err.contains("already runs"), again::toString);
        });
        assertEquals(List.of("dev.turntable.pool.TurntableQueue"), r.lines("QUEUE after "), r::toString);
        assertTrue(r.lines("OPTION ").contains("strategy=ROUND_ROBIN"), r::toString);
        assertEquals(List.of(), r.agentLines(),
                "nothing reached the JVM: the bad options, the unreadable file and the second load did not\n" + r);
    }

    /**
     * Two operators attaching one JVM at the same moment: one load starts the agent and its
     * attach says so; the other is told it did not. Reading the JVM's last status alone, both
     * could read the other's outcome (seen as both exiting 4 in 3 of 6 tries).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource(ForkedJvm.JDKS)
    void twoAttachesAtOnceAreEachToldWhatTheirOwnLoadDid(ForkedJvm jvm) throws Exception {
        jvm.assumeInstalled();
        ForkedJvm.Result r = attachedRun(jvm, pid -> {
            java.util.concurrent.CyclicBarrier together = new java.util.concurrent.CyclicBarrier(2);
            java.util.concurrent.ExecutorService two = java.util.concurrent.Executors.newFixedThreadPool(2);
            try {
                java.util.concurrent.Future<Cli> a = two.submit(() -> {
                    together.await();
                    return Cli.attach(pid, "strategy=ROUND_ROBIN");
                });
                java.util.concurrent.Future<Cli> b = two.submit(() -> {
                    together.await();
                    return Cli.attach(pid, "strategy=ROUND_ROBIN");
                });
                Cli first = a.get(60, TimeUnit.SECONDS);
                Cli second = b.get(60, TimeUnit.SECONDS);
                List<Integer> codes = new java.util.ArrayList<>(List.of(first.code, second.code));
                java.util.Collections.sort(codes);
                assertEquals(List.of(0, 4), codes, () -> "one started it, the other did not\n" + first + "\n" + second);
            } finally {
                two.shutdownNow();
            }
        });
        assertEquals(List.of("dev.turntable.pool.TurntableQueue"), r.lines("QUEUE after "), r::toString);
    }

    /** One turntablectl command's exit code and output. */
    private static final class Cli {
        final int code;
        final String out;
        final String err;

        private Cli(int code, String out, String err) {
            this.code = code;
            this.out = out;
            this.err = err;
        }

        /** {@code turntablectl attach <pid> <options> --agent <the agent jar under test>}. */
        static Cli attach(String pid, String options) {
            return run("attach", pid, options, "--agent", ForkedJvm.AGENT_JAR.toAbsolutePath().toString());
        }

        static Cli run(String... args) {
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
            int code = dev.turntable.jmx.cli.Turntablectl.run(new java.io.PrintStream(out, true, StandardCharsets.UTF_8),
                    new java.io.PrintStream(err, true, StandardCharsets.UTF_8), args);
            return new Cli(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        }

        @Override
        public String toString() {
            return "exit " + code + "\n--- out\n" + out + "\n--- err\n" + err;
        }
    }

    /** What a test does with the target's pid before the application goes on. */
    private interface WithPid {
        void accept(String pid) throws Exception;
    }

    /**
     * Starts {@code AttachTargetApp}, attaches the agent once per entry of {@code attaches} (its
     * options), lets the application go on and returns what it printed.
     */
    private static ForkedJvm.Result attachedRun(ForkedJvm jvm, String... attaches) throws Exception {
        return attachedRun(jvm, pid -> {
            for (String options : attaches) {
                Attach.attach(pid, ForkedJvm.AGENT_JAR, options);
            }
        });
    }

    /** Starts {@code AttachTargetApp}, runs {@code withPid}, lets the application go on and returns what it printed. */
    private static ForkedJvm.Result attachedRun(ForkedJvm jvm, WithPid withPid) throws Exception {
        Path out = Files.createTempFile("turntable-attach-", ".out");
        Path err = Files.createTempFile("turntable-attach-", ".err");
        Process p = new ProcessBuilder(jvm.command(List.of(), "com.example.apps.AttachTargetApp"))
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> Files.readString(out).contains("READY "));
            String pid = Files.readString(out).split("READY ")[1].trim().split("\\s")[0];
            assertEquals(Long.toString(p.pid()), pid);

            withPid.accept(pid);

            try (OutputStream in = p.getOutputStream()) {
                in.write("go\n".getBytes(StandardCharsets.UTF_8));
            }
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the attached JVM did not finish");
            ForkedJvm.Result r = new ForkedJvm.Result(p.exitValue(), Files.readString(out), Files.readString(err));
            assertEquals(0, r.exitCode, r::toString);
            assertTrue(r.out().contains("SUM 10100"), r::toString);
            return r;
        } finally {
            p.destroyForcibly();
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }
}
