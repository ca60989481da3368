package dev.turntable.agent;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.turntable.jmx.cli.MiniJson;
import dev.turntable.jmx.cli.Turntablectl;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The agent's Pool MBeans end to end: {@code JmxTargetApp} (two managed pools doing steady work,
 * one scheduled pool the agent does not manage) runs under the agent in a forked JVM, and is
 * driven the way an operator would: by turntablectl (its in-process entry point) through
 * {@code --pid} (Attach API) and through {@code --url} to the JDK's own JMX agent on loopback, and
 * by jmxterm in batch mode as a forked process. Reads, a strategy switch the application itself
 * sees take effect, bad writes refused with their reason, {@code --json} documents, and
 * {@code RejectedTaskCount} counted without touching the pool's rejection handler.
 */
class JmxEndToEndIT {

    static final String APP = "com.example.apps.JmxTargetApp";
    static final String ORDERS = "JmxTargetApp.orders";
    static final String REPORTS = "JmxTargetApp.reports";
    static final String TICKER = "JmxTargetApp.ticker";
    static final Path JMXTERM = Paths.get(System.getProperty("turntable.it.jmxtermJar", "jmxterm-uber.jar"));
    static final Duration WAIT = Duration.ofSeconds(30);

    @ParameterizedTest(name = "{0}")
    @MethodSource(ForkedJvm.JDKS)
    void turntablectlByPid(ForkedJvm jvm) throws Exception {
        jvm.assumeInstalled();
        try (ForkedJvm.Running app = jvm.start(jvm.command(List.of(ForkedJvm.agent(null)), APP))) {
            app.awaitLine("READY ", 60);
            operate(app, "--pid", Long.toString(app.pid()));
            stopCleanly(jvm, app);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(ForkedJvm.JDKS)
    void turntablectlAndJmxtermOverLoopback(ForkedJvm jvm) throws Exception {
        jvm.assumeInstalled();
        int port = freeLoopbackPort();
        List<String> options = List.of(ForkedJvm.agent(null),
                "-Dcom.sun.management.jmxremote.port=" + port,
                "-Dcom.sun.management.jmxremote.rmi.port=" + port,
                "-Dcom.sun.management.jmxremote.host=127.0.0.1",
                "-Djava.rmi.server.hostname=127.0.0.1",
                "-Dcom.sun.management.jmxremote.authenticate=false",
                "-Dcom.sun.management.jmxremote.ssl=false");
        try (ForkedJvm.Running app = jvm.start(jvm.command(options, APP))) {
            app.awaitLine("READY ", 60);
            String url = "127.0.0.1:" + port;
            operate(app, "--url", url);
            jmxterm(app, url);
            stopCleanly(jvm, app);
        }
    }

    /**
     * What an operator does with turntablectl, from a fresh application: list, read, switch the
     * strategy (and see the application run its next tasks under it), fail to write nonsense.
     */
    private static void operate(ForkedJvm.Running app, String... target) throws Exception {
        // pools: the managed ones with their engine figures, the others with the agent's reason
        await().atMost(WAIT).until(() -> number(poolRow(app, target, ORDERS).get("completed")) > 0);
        Ctl pools = ctl(target, "pools");
        assertEquals(0, pools.exit, pools::toString);
        List<String> orders = row(pools.out, ORDERS);
        assertEquals(List.of(ORDERS, "yes", "LEAST_USED", "3"), orders.subList(0, 4), pools::toString);
        assertEquals(List.of(REPORTS, "yes", "LEAST_USED", "2"), row(pools.out, REPORTS).subList(0, 4), pools::toString);
        List<String> ticker = row(pools.out, TICKER);
        assertEquals(List.of(TICKER, "no", "-", "-", "-", "-", "ScheduledThreadPoolExecutor:"),
                ticker.subList(0, 7), pools::toString);

        Map<String, Object> json = poolRow(app, target, ORDERS);
        assertEquals(true, json.get("managed"), json::toString);
        assertEquals("LEAST_USED", json.get("strategy"), json::toString);
        assertEquals(3L, json.get("workers"), json::toString);
        assertTrue(json.containsKey("queued"), json::toString);
        Map<String, Object> tickerJson = poolRow(app, target, TICKER);
        assertEquals(false, tickerJson.get("managed"), tickerJson::toString);
        assertTrue(String.valueOf(tickerJson.get("reason")).startsWith("ScheduledThreadPoolExecutor"), tickerJson::toString);

        // get
        Ctl strategy = ctl(target, "get", ORDERS, "Strategy");
        assertEquals(0, strategy.exit, strategy::toString);
        assertEquals("LEAST_USED", strategy.out.trim());

        // RejectedTaskCount: the application's own count, and its handler is still its own
        assertTrue(app.lines().contains("REJECTED 3"), app.stdout());
        assertTrue(app.lines().contains("HANDLER same=true java.util.concurrent.ThreadPoolExecutor$AbortPolicy"),
                app.stdout());
        Ctl rejected = ctl(target, "get", REPORTS, "RejectedTaskCount");
        assertEquals("3", rejected.out.trim(), rejected::toString);
        assertEquals("0", ctl(target, "get", ORDERS, "RejectedTaskCount").out.trim());

        // set: the switch, seen by the application, and the next tasks complete under it
        long completedBefore = number(poolRow(app, target, ORDERS).get("completed"));
        Ctl set = ctl(target, "set", ORDERS, "Strategy", "ROUND_ROBIN");
        assertEquals(0, set.exit, set::toString);
        assertEquals("Strategy: LEAST_USED -> ROUND_ROBIN", set.out.trim());
        app.awaitLine("AFTER " + ORDERS + " Strategy=ROUND_ROBIN tasks=", 60);
        assertTrue(app.lines().contains("CHANGE " + ORDERS + " Strategy LEAST_USED -> ROUND_ROBIN"), app.stdout());
        assertEquals("ROUND_ROBIN", ctl(target, "get", ORDERS, "Strategy").out.trim());
        await().atMost(WAIT).until(() -> number(poolRow(app, target, ORDERS).get("completed")) > completedBefore + 30);

        Map<String, Object> got = MiniJson.object(ok(ctl(target, "--json", "get", ORDERS, "Strategy")));
        assertEquals(Map.of("pool", ORDERS, "attribute", "Strategy", "value", "ROUND_ROBIN"), got);
        Map<String, Object> setJson = MiniJson.object(ok(ctl(target, "--json", "set", REPORTS, "Strategy", "fair-share")));
        assertEquals("LEAST_USED", setJson.get("oldValue"), setJson::toString);
        assertEquals("FAIR_SHARE", setJson.get("value"), setJson::toString);

        // bad writes: refused (exit 4) with the JVM's reason, and nothing changes
        Ctl nope = ctl(target, "set", ORDERS, "Strategy", "NOPE");
        assertEquals(Turntablectl.EXIT_REFUSED, nope.exit, nope::toString);
        assertTrue(nope.err.contains("NOPE") && nope.err.contains("ROUND_ROBIN"), nope::toString);
        Ctl weights = ctl(target, "set", ORDERS, "WorkerWeightsMillis", "-1");
        assertEquals(Turntablectl.EXIT_REFUSED, weights.exit, weights::toString);
        assertTrue(weights.err.contains("WorkerWeightsMillis"), weights::toString);
        assertEquals("ROUND_ROBIN", ctl(target, "get", ORDERS, "Strategy").out.trim());
        assertEquals(1, app.lines().stream().filter(l -> l.startsWith("CHANGE " + ORDERS + " ")).count(),
                "a refused write sends no change notification\n" + app.stdout());
    }

    /**
     * jmxterm 1.0.4 in batch mode ({@code -n}) as a forked process: by pid (through jconsole's
     * local attach, hence the {@code --add-exports}) and by {@code host:port}. The batch is the one
     * in docs/jmx.md.
     */
    private static void jmxterm(ForkedJvm.Running app, String hostPort) throws Exception {
        assumeTrue(Files.isRegularFile(JMXTERM), "jmxterm jar not found: " + JMXTERM);
        String bean = "dev.turntable:name=" + ORDERS + ",type=Pool";
        String batch = String.join("\n",
                "get -b " + bean + " Strategy",
                "set -b " + bean + " Strategy FAIR_SHARE",
                "get -b " + bean + " Strategy QueuedTaskCount",
                "get -b dev.turntable:name=" + REPORTS + ",type=Pool RejectedTaskCount",
                "");
        ForkedJvm.Result byPid = jmxterm(List.of("--add-exports", "jdk.jconsole/sun.tools.jconsole=ALL-UNNAMED"),
                Long.toString(app.pid()), "silent", batch);
        assertEquals(0, byPid.exitCode, byPid::toString);
        assertEquals(List.of("Strategy = ROUND_ROBIN;", "Strategy = FAIR_SHARE;", "QueuedTaskCount = ",
                        "RejectedTaskCount = 3;"),
                byPid.out().stream().filter(l -> !l.isBlank()).map(l -> l.startsWith("QueuedTaskCount = ")
                        ? "QueuedTaskCount = " : l).collect(Collectors.toList()), byPid::toString);
        app.awaitLine("AFTER " + ORDERS + " Strategy=FAIR_SHARE tasks=", 60);
        assertTrue(app.lines().contains("CHANGE " + ORDERS + " Strategy ROUND_ROBIN -> FAIR_SHARE"), app.stdout());

        // A bad write: jmxterm prints the MBean's IllegalArgumentException (verbosity brief, on
        // standard error) and goes on; the value stays.
        ForkedJvm.Result bad = jmxterm(List.of(), hostPort, "brief", String.join("\n",
                "set -b " + bean + " Strategy NOPE",
                "set -b " + bean + " WorkerWeightsMillis -1",
                "get -b " + bean + " Strategy",
                ""));
        assertEquals(0, bad.exitCode, bad::toString);
        assertTrue(bad.out().contains("Strategy = FAIR_SHARE;"), bad::toString);
        List<String> errors = bad.err().stream().filter(l -> l.startsWith("#RuntimeMBeanException"))
                .collect(Collectors.toList());
        assertEquals(2, errors.size(), bad::toString);
        assertTrue(errors.get(0).contains("IllegalArgumentException: strategy 'NOPE' is not one of"), bad::toString);
        assertTrue(errors.get(1).contains("IllegalArgumentException: WorkerWeightsMillis [-1]"), bad::toString);
        assertEquals(2, app.lines().stream().filter(l -> l.startsWith("CHANGE " + ORDERS + " ")).count(), app.stdout());
    }

    private static ForkedJvm.Result jmxterm(List<String> jvmOptions, String location, String verbosity, String batch)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-jar", JMXTERM.toString(), "-n", "-v", verbosity, "-l", location));
        Path in = Files.createTempFile("turntable-jmxterm-", ".in");
        Path out = Files.createTempFile("turntable-jmxterm-", ".out");
        Path err = Files.createTempFile("turntable-jmxterm-", ".err");
        try {
            Files.writeString(in, batch);
            Process p = new ProcessBuilder(cmd).redirectInput(in.toFile()).redirectOutput(out.toFile())
                    .redirectError(err.toFile()).start();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                throw new AssertionError("jmxterm did not finish within 60 s: " + cmd + "\n" + Files.readString(err));
            }
            return new ForkedJvm.Result(p.exitValue(), Files.readString(out), Files.readString(err));
        } finally {
            Files.deleteIfExists(in);
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    /** Closes the application's input: it stops its work and exits cleanly, the agent silent. */
    private static void stopCleanly(ForkedJvm jvm, ForkedJvm.Running app) throws Exception {
        ForkedJvm.Result r = app.stop(60);
        assertEquals(0, r.exitCode, r::toString);
        assertTrue(r.out().contains("BYE"), r::toString);
        assertTrue(r.lines("DRIVER-FAILED").isEmpty(), r::toString);
        assertEquals(List.of(), r.agentLines(), r::toString);
        assertTrue(!r.stderr.contains("is not registered in JMX"), r::toString);
        jvm.assertNoAgentUnsafeWarning(r);
    }

    // ------------------------------------------------------------------ turntablectl, in process

    /** One turntablectl run: exit code and what it printed. */
    static final class Ctl {
        final int exit;
        final String out;
        final String err;

        Ctl(int exit, String out, String err) {
            this.exit = exit;
            this.out = out;
            this.err = err;
        }

        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout\n" + out + "\n--- stderr\n" + err;
        }
    }

    static Ctl ctl(String[] target, String... args) {
        List<String> all = new ArrayList<>(List.of(target));
        all.addAll(List.of(args));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = Turntablectl.run(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), all.toArray(new String[0]));
        return new Ctl(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static String ok(Ctl c) {
        assertEquals(0, c.exit, c::toString);
        return c.out;
    }

    /** The pool's row of {@code pools --json} (which must parse). */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> poolRow(ForkedJvm.Running app, String[] target, String pool) throws IOException {
        Ctl c = ctl(target, "--json", "pools");
        assertEquals(0, c.exit, () -> c + "\n--- application\n" + safeStdout(app));
        for (Object row : (List<Object>) MiniJson.object(c.out).get("pools")) {
            Map<String, Object> m = (Map<String, Object>) row;
            if (pool.equals(m.get("name"))) {
                return m;
            }
        }
        throw new AssertionError("pool " + pool + " is not listed: " + c);
    }

    private static String safeStdout(ForkedJvm.Running app) {
        try {
            return app.stdout();
        } catch (IOException e) {
            return e.toString();
        }
    }

    private static long number(Object o) {
        return o instanceof Number ? ((Number) o).longValue() : -1;
    }

    /** The whitespace-separated cells of the table row for {@code pool}. */
    private static List<String> row(String table, String pool) {
        for (String line : table.split("\\R")) {
            List<String> cells = List.of(line.trim().split("\\s+"));
            if (cells.get(0).equals(pool)) {
                return cells;
            }
        }
        throw new AssertionError("no row for " + pool + " in\n" + table);
    }

    /** A port free on loopback now (bound to port 0, then released), for the child's JMX agent. */
    static int freeLoopbackPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
