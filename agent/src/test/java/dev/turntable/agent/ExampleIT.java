package dev.turntable.agent;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.tools.attach.VirtualMachine;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The example application under the agent: its load mode gives correct results and exits; its
 * serve mode, read over JMX like an operator would, lists its two pools as managed under their
 * contract names and the JDK's own JMX/RMI pools as not managed.
 */
class ExampleIT {

    private static void assumeExample() {
        assumeTrue(Files.isRegularFile(ForkedJvm.EXAMPLE_JAR), "example jar not built: " + ForkedJvm.EXAMPLE_JAR);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(ForkedJvm.JDKS)
    void loadModeRunsUnderTheAgentAndExits(ForkedJvm jvm) throws Exception {
        jvm.assumeInstalled();
        assumeExample();
        ForkedJvm.Result r = jvm.run(jvm.command(List.of(ForkedJvm.agent("strategy=LEAST_USED"),
                "-jar", ForkedJvm.EXAMPLE_JAR.toString()), null, "--requests", "300"), 120);
        assertEquals(0, r.exitCode, r::toString);
        assertTrue(r.out().stream().anyMatch(l -> l.startsWith("load: 300 requests, 8 concurrent, 0 errors")), r::toString);
        assertTrue(r.out().contains("request pool: 300 tasks; per thread:"), r::toString);
        assertTrue(r.out().contains("report pool: 60 tasks; per thread:"), r::toString);
        assertTrue(r.out().stream().anyMatch(l -> l.matches("latency ms: p50=[0-9.]+ p90=[0-9.]+ p99=[0-9.]+ p99\\.9=[0-9.]+ max=[0-9.]+")),
                r::toString);
        assertEquals(List.of(), r.agentLines(), r::toString);
        jvm.assertNoAgentUnsafeWarning(r);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(ForkedJvm.JDKS)
    void serveModeListsItsPoolsOverJmx(ForkedJvm jvm) throws Exception {
        jvm.assumeInstalled();
        assumeExample();
        Path out = Files.createTempFile("turntable-example-", ".out");
        Path err = Files.createTempFile("turntable-example-", ".err");
        Process p = new ProcessBuilder(jvm.command(List.of(ForkedJvm.agent(null), "-jar", ForkedJvm.EXAMPLE_JAR.toString()), null))
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> Files.readString(out).contains("listening on"));
            Matcher m = Pattern.compile("http://127\\.0\\.0\\.1:(\\d+)/quote").matcher(Files.readString(out));
            assertTrue(m.find(), Files.readString(out));
            HttpClient http = HttpClient.newHttpClient();
            for (int i = 0; i < 20; i++) {
                HttpResponse<String> resp = http.send(HttpRequest.newBuilder(URI.create(m.group(0) + "?id=" + i)).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertEquals(200, resp.statusCode());
                assertTrue(resp.body().startsWith("{\"id\":" + i + ","), resp.body());
            }

            VirtualMachine vm = VirtualMachine.attach(Long.toString(p.pid()));
            String url;
            try {
                url = vm.startLocalManagementAgent();
            } finally {
                vm.detach();
            }
            try (JMXConnector c = JMXConnectorFactory.connect(new JMXServiceURL(url))) {
                MBeanServerConnection conn = c.getMBeanServerConnection();
                ObjectName agent = new ObjectName("dev.turntable:type=Agent");
                await().atMost(Duration.ofSeconds(30)).until(() -> conn.isRegistered(agent));
                // the JDK builds its JMX/RMI pools while serving this connection: wait until they are listed
                await().atMost(Duration.ofSeconds(30)).until(() -> rows(conn, agent).stream()
                        .anyMatch(r -> r[1].startsWith("sun.") || r[1].startsWith("java.") || r[1].startsWith("com.sun.")
                                || r[1].startsWith("jdk.") || r[1].startsWith("javax.")));
                List<String[]> rows = rows(conn, agent);
                List<String> lines = new ArrayList<>();
                rows.forEach(r -> lines.add(String.join("|", r)));
                assertTrue(lines.contains("QuoteServer.start|com.example.shop.QuoteServer.start|true|LinkedBlockingQueue, unbounded"),
                        lines::toString);
                assertTrue(lines.contains("ReportService.start|com.example.shop.ReportService.start|true|ArrayBlockingQueue, bounded to 100"),
                        lines::toString);
                for (String[] r : rows) {
                    if (!r[1].startsWith("com.example.")) {
                        assertEquals("false", r[2], "only the application's pools are managed: " + lines);
                    }
                }
            }
        } finally {
            p.destroy();
            p.waitFor();
            String stderr = Files.readString(err);
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
            assertTrue(stderr.lines().noneMatch(l -> l.startsWith("[turntable] ")), stderr);
        }
    }

    private static List<String[]> rows(MBeanServerConnection conn, ObjectName agent) throws Exception {
        List<String[]> out = new ArrayList<>();
        for (CompositeData row : (CompositeData[]) conn.getAttribute(agent, "Pools")) {
            out.add(new String[] {(String) row.get("name"), (String) row.get("creationSite"),
                Boolean.toString((Boolean) row.get("managed")), (String) row.get("reason")});
        }
        return out;
    }
}
