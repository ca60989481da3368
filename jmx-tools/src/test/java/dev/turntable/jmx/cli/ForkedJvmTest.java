package dev.turntable.jmx.cli;

import static dev.turntable.jmx.cli.JmxFixture.run;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.RuntimeMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * turntablectl against a separate JVM ({@link ForkedPoolMain}), through the real Attach API
 * ({@code --pid}, {@code jvms}, {@code attach}, no target) and through {@code --url}.
 */
class ForkedJvmTest {

    private static final Duration STARTUP = Duration.ofSeconds(60);

    private static Process child;
    private static String pid;
    private static String url;
    /** The real Attach API, narrowed to the child so the test never touches other JVMs on the machine. */
    private static LocalJvms jvms;

    @BeforeAll
    static void startChild() throws Exception {
        Path java = Paths.get(System.getProperty("java.home"), "bin", "java");
        child = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
                "-Xmx64m", "-Djava.rmi.server.hostname=127.0.0.1", ForkedPoolMain.class.getName())
                .redirectErrorStream(true)
                .start();
        pid = Long.toString(child.pid());
        jvms = LocalJvms.attachApi().only(pid::equals);
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    lines.add(line);
                }
            } catch (IOException e) {
                lines.add("READ FAILED " + e);
            }
        }, "forked-jvm-output");
        reader.setDaemon(true);
        reader.start();
        long deadline = System.nanoTime() + STARTUP.toNanos();
        StringBuilder seen = new StringBuilder();
        for (;;) {
            String line = lines.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (line == null) {
                throw new AssertionError("child JVM not ready within " + STARTUP + "; it printed:\n" + seen);
            }
            seen.append(line).append('\n');
            if (line.startsWith("URL ")) {
                url = line.substring(4);
            } else if (line.equals("READY")) {
                break;
            }
        }
        assertNotNull(url, seen::toString);
    }

    @AfterAll
    static void stopChild() throws Exception {
        stop(child);
    }

    /** Asks a child JVM that exits when its standard input closes to exit, then ends it if it has not in 10 s. */
    static void stop(Process child) throws InterruptedException {
        if (child == null) {
            return;
        }
        try (OutputStream stdin = child.getOutputStream()) {
            stdin.flush(); // closing stdin asks the child to exit
        } catch (IOException e) {
            // already gone
        }
        if (!child.waitFor(10, TimeUnit.SECONDS)) {
            child.destroyForcibly();
            child.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static JmxFixture.Result ctl(String... args) {
        return run(jvms, false, Map.of(), args);
    }

    private static String ok(String... args) {
        JmxFixture.Result r = ctl(args);
        assertEquals(0, r.code, r::toString);
        return r.out.trim();
    }

    @Test
    void readAndSwitchStrategyByPidThenByUrl() {
        String before = ok("--pid", pid, "get", "forked", "Strategy");
        String next = before.equals("ROUND_ROBIN") ? "FAIR_SHARE" : "ROUND_ROBIN";
        assertEquals("Strategy: " + before + " -> " + next, ok("--pid", pid, "set", "forked", "Strategy", next));
        assertEquals(next, ok("--url", url, "get", "forked", "Strategy"));
        assertEquals("Strategy: " + next + " -> LEAST_BUSY", ok("--url", url, "set", "forked", "Strategy", "least-busy"));
        assertEquals("LEAST_BUSY", ok("get", "forked", "Strategy"), "no target: the one JVM running Turntable");
        assertTrue(ok("--pid", pid, "pools").matches("(?s)NAME.*\\Rforked\\s+yes\\s+LEAST_BUSY\\s+2\\s.*"));
        assertTrue(ok("--pid", pid, "show", "forked").contains("AvailableStrategies"));
    }

    @Test
    void badWritesAreRefusedByTheJvm() {
        String before = ok("--pid", pid, "get", "forked", "Strategy");
        JmxFixture.Result r = ctl("--pid", pid, "set", "forked", "Strategy", "NO_SUCH");
        assertEquals(4, r.code, r::toString);
        assertTrue(r.err.contains("'NO_SUCH' is not one of"), r.err);
        r = ctl("--url", url, "set", "forked", "WorkerWeightsMillis", "100;0");
        assertEquals(4, r.code, r::toString);
        assertTrue(r.err.contains("weight 0 of worker 1"), r.err);
        assertEquals(before, ok("--url", url, "get", "forked", "Strategy"));
    }

    @Test
    void jvmsCountsTheChildsPools() {
        assertTrue(ok("jvms").matches("(?s) *PID\\s+POOLS\\s+NAME\\R\\s*" + pid + "\\s+1\\s+.*ForkedPoolMain.*"), ok("jvms"));
    }

    @Test
    void attachLoadsAnAgentJar(@TempDir Path dir) throws Exception {
        Path jar = dir.resolve("test-agent.jar");
        Manifest m = new Manifest();
        m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        m.getMainAttributes().put(new Attributes.Name("Agent-Class"), TestAgent.class.getName());
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), m)) {
            out.flush();
        }
        assertEquals("loaded " + jar + " into JVM " + pid + " with options strategy=ROUND_ROBIN",
                ok("attach", pid, "strategy=ROUND_ROBIN", "--agent", jar.toString()));
        await().atMost(Duration.ofSeconds(20)).until(() -> "strategy=ROUND_ROBIN".equals(childProperty("turntable.test.agent")));

        JmxFixture.Result refused = ctl("attach", pid, "fail", "--agent", jar.toString());
        assertEquals(4, refused.code, refused::toString);
        assertTrue(refused.err.contains("refused the agent"), refused.err);

        JmxFixture.Result missing = ctl("attach", pid, "--agent", dir.resolve("nope.jar").toString());
        assertEquals(2, missing.code, "a missing jar is a bad argument: " + missing);
    }

    private static String childProperty(String key) throws IOException {
        try (JMXConnector c = JMXConnectorFactory.connect(new JMXServiceURL(url))) {
            RuntimeMXBean rt = ManagementFactory.newPlatformMXBeanProxy(c.getMBeanServerConnection(),
                    ManagementFactory.RUNTIME_MXBEAN_NAME, RuntimeMXBean.class);
            return rt.getSystemProperties().get(key);
        }
    }

    @Test
    void aPidThatIsNoJvmExitsThree() {
        JmxFixture.Result r = run(LocalJvms.attachApi(), false, Map.of(), "--pid", "999999999", "pools");
        assertEquals(3, r.code, r::toString);
        assertTrue(r.err.contains("999999999"), r.err);
        assertEquals("", r.out);
    }
}
