package dev.turntable.jmx.cli;

import static dev.turntable.jmx.cli.JmxFixture.run;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.jmx.TurntableJmx;
import dev.turntable.pool.TurntableExecutor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.management.ConstructorParameters;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;
import javax.management.remote.JMXAuthenticator;
import javax.management.remote.JMXConnectorServer;
import javax.management.remote.JMXConnectorServerFactory;
import javax.management.remote.JMXServiceURL;
import javax.management.remote.rmi.RMIConnectorServer;
import javax.security.auth.Subject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * turntablectl in-process, against a loopback JMX connector server in this JVM that exposes a
 * private MBean server with a real {@link TurntableExecutor} registered as {@code orders}.
 */
class TurntablectlTest {

    private static MBeanServer server;
    private static JMXConnectorServer connector;
    private static String url;

    private TurntableExecutor pool;
    private TurntableJmx.Registration registration;

    @BeforeAll
    static void startConnector() throws IOException {
        server = MBeanServerFactory.newMBeanServer();
        connector = JmxFixture.startConnector(server);
        url = connector.getAddress().toString();
    }

    @AfterAll
    static void stopConnector() throws IOException {
        connector.stop();
    }

    @BeforeEach
    void registerPool() {
        pool = TurntableExecutor.builder().workers(2).build();
        registration = TurntableJmx.register(server, "orders", pool, pool.getTurntableQueue());
        assertTrue(registration.isRegistered(), registration::toString);
        // Core threads are started by the constructor but join the engine when they first poll.
        await().atMost(Duration.ofSeconds(20)).until(() -> pool.getTurntableQueue().workers().size() == 2);
    }

    @AfterEach
    void closePool() throws InterruptedException {
        registration.close();
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(20, TimeUnit.SECONDS));
    }

    private static JmxFixture.Result ctl(String... args) {
        return run(new FakeJvms(), false, Map.of(), args);
    }

    private static String[] withUrl(String... args) {
        String[] a = new String[args.length + 2];
        a[0] = "--url";
        a[1] = url;
        System.arraycopy(args, 0, a, 2, args.length);
        return a;
    }

    private static JmxFixture.Result ok(String... args) {
        JmxFixture.Result r = ctl(withUrl(args));
        assertEquals(0, r.code, r::toString);
        assertEquals("", r.err, r::toString);
        return r;
    }

    private static JmxFixture.Result fails(int code, String... args) {
        JmxFixture.Result r = ctl(args);
        assertEquals(code, r.code, r::toString);
        assertFalse(r.err.isEmpty(), "a failure must say why");
        return r;
    }

    @SuppressWarnings("unchecked")
    private static <T> T at(Object json, Object... path) {
        Object v = json;
        for (Object p : path) {
            v = p instanceof Integer ? ((List<Object>) v).get((Integer) p) : ((Map<String, Object>) v).get(p);
        }
        return (T) v;
    }

    // ------------------------------------------------------------------ pools, show, get

    @Test
    void poolsListsNameManagedStrategyWorkersQueuedCompleted() {
        JmxFixture.Result r = ok("pools");
        String[] lines = r.out.split("\\R");
        assertTrue(lines[0].matches("NAME\\s+MANAGED\\s+STRATEGY\\s+WORKERS\\s+QUEUED\\s+COMPLETED"), lines[0]);
        assertTrue(lines[1].matches("orders\\s+yes\\s+LEAST_USED\\s+2\\s+0\\s+\\d+"), lines[1]);

        Map<String, Object> doc = MiniJson.object(ok("pools", "--json").out);
        assertEquals("orders", at(doc, "pools", 0, "name"));
        assertEquals(Boolean.TRUE, at(doc, "pools", 0, "managed"));
        assertEquals("LEAST_USED", at(doc, "pools", 0, "strategy"));
        assertEquals(2L, (Long) at(doc, "pools", 0, "workers"));
    }

    /** The agent's MXBean as the contract describes it, for {@code pools} to merge. */
    public interface AgentMXBean {
        AgentPool[] getPools();
    }

    /** One row of the agent's {@code Pools} table. */
    public static final class AgentPool {
        private final String name;
        private final String creationSite;
        private final boolean managed;
        private final String reason;

        @ConstructorParameters({"name", "creationSite", "managed", "reason"})
        public AgentPool(String name, String creationSite, boolean managed, String reason) {
            this.name = name;
            this.creationSite = creationSite;
            this.managed = managed;
            this.reason = reason;
        }

        public String getName() {
            return name;
        }

        public String getCreationSite() {
            return creationSite;
        }

        public boolean isManaged() {
            return managed;
        }

        public String getReason() {
            return reason;
        }
    }

    @Test
    void poolsAlsoListsWhatTheAgentSawButDoesNotManage() throws Exception {
        ObjectName agent = new ObjectName("dev.turntable:type=Agent");
        AgentMXBean bean = () -> new AgentPool[] {
            new AgentPool("orders", "OrderService.start", true, ""),
            new AgentPool("Scheduler.init", "Scheduler.init", false, "ScheduledThreadPoolExecutor"),
        };
        server.registerMBean(bean, agent);
        try {
            JmxFixture.Result r = ok("pools");
            assertTrue(r.out.contains("REASON"), r.out);
            assertTrue(r.out.matches("(?s).*Scheduler\\.init\\s+no\\s+-\\s+-\\s+-\\s+-\\s+ScheduledThreadPoolExecutor.*"), r.out);
            Map<String, Object> doc = MiniJson.object(ok("--json", "pools").out);
            List<Object> pools = at(doc, "pools");
            assertEquals(2, pools.size());
            assertEquals(Boolean.FALSE, at(doc, "pools", 1, "managed"));
            assertEquals("ScheduledThreadPoolExecutor", at(doc, "pools", 1, "reason"));
        } finally {
            server.unregisterMBean(agent);
        }
    }

    @Test
    void showPrintsEveryAttributeAndTheWorkersTable() {
        JmxFixture.Result r = ok("show", "orders");
        for (String a : List.of("Strategy", "AvailableStrategies", "Measurement", "Median", "WorkerWeightsMillis",
                "TaskStealing", "LatencyHistograms", "CorePoolSize", "MaximumPoolSize", "PoolSize", "ActiveCount",
                "QueuedTaskCount", "CompletedTaskCount", "RejectedTaskCount", "RunTimeMillis", "WaitTimeMillis")) {
            assertTrue(r.out.contains("\n" + a + " "), a + " missing:\n" + r.out);
        }
        assertTrue(r.out.matches("(?s).*\\n#\\s+THREAD\\s+STATE\\s+QUEUED\\s+RUNNING\\s+COMPLETED\\s+LIFETIME\\s+AVG_RUN_MS.*"), r.out);
        assertTrue(r.out.contains("AVAILABLE"), r.out);
        assertTrue(r.out.contains("n/c: not collected"), r.out);

        Map<String, Object> doc = MiniJson.object(ok("show", "orders", "--json").out);
        assertEquals("orders", doc.get("pool"));
        assertEquals("LEAST_USED", at(doc, "attributes", "Strategy"));
        assertEquals(-1L, (Long) at(doc, "attributes", "RunTimeMillis", "count"));
        List<Object> workers = at(doc, "workers");
        assertEquals(2, workers.size());
        assertEquals(0L, (Long) at(doc, "workers", 0, "index"));
        assertEquals("AVAILABLE", at(doc, "workers", 0, "state"));
        assertEquals(-1.0, (Double) at(doc, "workers", 0, "averageRunTimeMillis"));
    }

    @Test
    void getReadsOneAttribute() {
        assertEquals("LEAST_USED", ok("get", "orders", "Strategy").out.trim());
        assertEquals("2", ok("get", "orders", "corepoolsize").out.trim(), "names match ignoring case");
        assertTrue(ok("get", "orders", "AvailableStrategies").out.contains("ROUND_ROBIN, LEAST_USED"));
        pool.getTurntableQueue().setWorkerWeightsMillis(500, 250);
        assertEquals("500;250", ok("get", "orders", "WorkerWeightsMillis").out.trim());
        JmxFixture.Result latency = ok("get", "orders", "RunTimeMillis");
        assertTrue(latency.out.matches("(?s)p50\\s+n/c\\R.*count\\s+n/c\\R"), latency.out);
        assertTrue(ok("get", "orders", "Workers").out.startsWith("#"));

        Map<String, Object> doc = MiniJson.object(ok("--json", "get", "orders", "WorkerWeightsMillis").out);
        assertEquals(List.of(500L, 250L), doc.get("value"));
        assertEquals("WorkerWeightsMillis", doc.get("attribute"));
        assertEquals(Boolean.TRUE, MiniJson.object(ok("--json", "get", "orders", "TaskStealing").out).get("value"));
    }

    // ------------------------------------------------------------------ set

    @Test
    void setWritesThroughToTheEngine() {
        assertEquals("Strategy: LEAST_USED -> ROUND_ROBIN", ok("set", "orders", "Strategy", "ROUND_ROBIN").out.trim());
        assertEquals("ROUND_ROBIN", pool.getStrategy());
        ok("set", "orders", "WorkerWeightsMillis", "500;500");
        assertArrayEquals(new long[] {500, 500}, pool.getTurntableQueue().getWorkerWeightsMillis());
        ok("set", "orders", "TaskStealing", "FALSE");
        assertFalse(pool.isTaskStealing());
        ok("set", "orders", "MaximumPoolSize", "3");
        assertEquals(3, pool.getMaximumPoolSize());
        ok("set", "orders", "LatencyHistograms", "true");
        assertTrue(pool.getTurntableQueue().isLatencyHistograms());

        Map<String, Object> doc = MiniJson.object(ok("set", "orders", "Measurement", "cpu_time", "--json").out);
        assertEquals("RUN_TIME", doc.get("oldValue"));
        assertEquals("CPU_TIME", doc.get("value"));
        assertEquals("CPU_TIME", pool.getTurntableQueue().getMeasurement().name());
    }

    @Test
    void aValueTheJvmRefusesExitsFourWithItsMessageAndChangesNothing() {
        JmxFixture.Result r = fails(4, withUrl("set", "orders", "Strategy", "BOGUS"));
        assertTrue(r.err.contains("strategy 'BOGUS' is not one of"), r.err);
        assertEquals("LEAST_USED", pool.getStrategy());

        r = fails(4, withUrl("set", "orders", "CorePoolSize", "9"));
        assertTrue(r.err.contains("CorePoolSize 9 is not in 0..2"), r.err);
        assertEquals(2, pool.getCorePoolSize());

        r = fails(4, withUrl("set", "orders", "WorkerWeightsMillis", "500;-1"));
        assertTrue(r.err.contains("weight -1 of worker 1"), r.err);
        r = fails(4, withUrl("set", "orders", "WorkerWeightsMillis", "500"));
        assertTrue(r.err.contains("has 1 weights"), r.err);
        r = fails(4, withUrl("set", "orders", "Measurement", "WALL"));
        assertTrue(r.err.contains("'WALL'"), r.err);
        assertEquals("", r.out);
    }

    @Test
    void badInputForSetExitsTwoNamingTheValueAndWhatIsAllowed() {
        JmxFixture.Result r = fails(2, withUrl("set", "orders", "Median", "maybe"));
        assertTrue(r.err.contains("'maybe'") && r.err.contains("true or false"), r.err);
        r = fails(2, withUrl("set", "orders", "CorePoolSize", "two"));
        assertTrue(r.err.contains("'two'") && r.err.contains("whole number"), r.err);
        r = fails(2, withUrl("set", "orders", "WorkerWeightsMillis", "500;x"));
        assertTrue(r.err.contains("'x'") && r.err.contains("500;500;250"), r.err);
        r = fails(2, withUrl("set", "orders", "PoolSize", "3"));
        assertTrue(r.err.contains("PoolSize is read-only") && r.err.contains("Strategy"), r.err);
        r = fails(2, withUrl("get", "orders", "Colour"));
        assertTrue(r.err.contains("'Colour'") && r.err.contains("Strategy"), r.err);
        r = fails(2, withUrl("show", "invoices"));
        assertTrue(r.err.contains("no pool 'invoices'") && r.err.contains("orders"), r.err);
        r = fails(2, withUrl("show", "in voices"));
        assertTrue(r.err.contains("'in voices'"), r.err);
        assertEquals("LEAST_USED", pool.getStrategy());
    }

    // ------------------------------------------------------------------ usage and connection errors

    @Test
    void badUsageExitsTwoWithTheUsage() {
        for (String[] args : List.of(new String[0], new String[] {"frobnicate"}, new String[] {"--verbose", "pools"},
                new String[] {"get", "orders"}, new String[] {"show", "orders", "extra"},
                new String[] {"--pid", "abc", "pools"}, new String[] {"--pid", "1", "--url", url, "pools"},
                new String[] {"--url", url, "watch", "orders", "--interval", "0"},
                new String[] {"--url", url, "get", "orders", "Strategy", "--count", "2"},
                new String[] {"--url", url, "watch", "orders", "--json"},
                new String[] {"--url", "no:such url", "pools"}, new String[] {"--url"},
                new String[] {"--url", url, "jvms"}, new String[] {"attach", "12x"})) {
            JmxFixture.Result r = fails(2, args);
            assertTrue(r.err.contains("usage: turntablectl"), r::toString);
            assertEquals("", r.out, r::toString);
        }
        JmxFixture.Result help = ctl("--help");
        assertEquals(0, help.code);
        assertTrue(help.out.startsWith("usage: turntablectl"));
        assertFalse(help.out.contains("classes") || help.out.contains("lifetimes"), "commands of later issues stay out");
    }

    @Test
    void anUnreachableJvmExitsThree() throws IOException {
        int port = JmxFixture.freePort();
        JmxFixture.Result r = fails(3, "--url", "service:jmx:rmi:///jndi/rmi://127.0.0.1:" + port + "/jmxrmi", "pools");
        assertTrue(r.err.contains("cannot connect"), r.err);
        fails(3, "--url", "127.0.0.1:" + port, "show", "orders");
    }

    @Test
    void credentialsComeFromTheEnvironment() throws IOException {
        Map<String, Object> env = new HashMap<>();
        env.put(JMXConnectorServer.AUTHENTICATOR, (JMXAuthenticator) credentials -> {
            if (credentials instanceof String[] && Arrays.equals((String[]) credentials, new String[] {"ops", "s3cret"})) {
                return new Subject();
            }
            throw new SecurityException("bad credentials");
        });
        env.put(RMIConnectorServer.RMI_SERVER_SOCKET_FACTORY_ATTRIBUTE, new JmxFixture.LoopbackSockets());
        JMXConnectorServer guarded = JMXConnectorServerFactory.newJMXConnectorServer(
                new JMXServiceURL("service:jmx:rmi://127.0.0.1"), env, server);
        guarded.start();
        try {
            String address = guarded.getAddress().toString();
            JmxFixture.Result r = run(new FakeJvms(), false, Map.of(), "--url", address, "pools");
            assertEquals(3, r.code, r::toString);
            assertTrue(r.err.contains("bad credentials"), r.err);
            Map<String, String> login = Map.of(Turntablectl.USER_ENV, "ops", Turntablectl.PASSWORD_ENV, "s3cret");
            r = run(new FakeJvms(), false, login, "--url", address, "get", "orders", "Strategy");
            assertEquals(0, r.code, r::toString);
            assertEquals("LEAST_USED", r.out.trim());
            r = run(new FakeJvms(), false, Map.of(Turntablectl.USER_ENV, "ops"), "--url", address, "pools");
            assertEquals(2, r.code, r::toString);
        } finally {
            guarded.stop();
        }
    }

    // ------------------------------------------------------------------ watch

    @Test
    void watchRedrawsCountTimes() {
        pool.getTurntableQueue().setLatencyHistograms(true);
        JmxFixture.Result r = ok("watch", "orders", "--interval", "50", "--count", "2");
        assertEquals(2, r.out.split("pool orders  strategy LEAST_USED", -1).length - 1, r.out);
        assertTrue(r.out.contains("completed"), r.out);
        assertTrue(r.out.contains("run p99"), r.out);
        assertFalse(r.out.contains("\033["), "no escape codes when not on a terminal");

        JmxFixture.Result term = run(new FakeJvms(), true, Map.of(), withUrl("watch", "orders", "--interval=20", "--count=2"));
        assertEquals(0, term.code, term::toString);
        assertEquals(2, term.out.split("\033\\[H\033\\[2J", -1).length - 1, "one clear-screen per frame");

        Map<String, Object> doc = MiniJson.object(ok("watch", "orders", "--interval", "20", "--count", "3", "--json").out);
        List<Object> frames = at(doc, "frames");
        assertEquals(3, frames.size());
        assertEquals("LEAST_USED", at(doc, "frames", 2, "strategy"));
        assertEquals(2L, (Long) at(doc, "frames", 2, "poolSize"));
        List<Object> workers = at(doc, "frames", 0, "workers");
        assertEquals(2, workers.size());
    }

    // ------------------------------------------------------------------ local JVMs (a fake Attach API)

    /** Local JVMs by pid, each reachable at a JMX URL or failing to attach; records agent loads. */
    static final class FakeJvms implements LocalJvms {
        final Map<String, JMXServiceURL> reachable = new LinkedHashMap<>();
        final List<String> unreachable = new ArrayList<>();
        final List<String> loaded = new ArrayList<>();
        CliException loadFailure;

        @Override
        public List<Jvm> list() {
            List<Jvm> out = new ArrayList<>();
            reachable.keySet().forEach(p -> out.add(new Jvm(p, "app-" + p + ".jar")));
            unreachable.forEach(p -> out.add(new Jvm(p, "locked-" + p)));
            return out;
        }

        @Override
        public JMXServiceURL connectorAddress(String pid) throws CliException {
            JMXServiceURL u = reachable.get(pid);
            if (u == null) {
                throw CliException.connect("cannot attach to JVM " + pid + ": not allowed", null);
            }
            return u;
        }

        @Override
        public void loadAgent(String pid, String agentJar, String options) throws CliException {
            if (loadFailure != null) {
                throw loadFailure;
            }
            connectorAddress(pid);
            loaded.add(pid + " " + agentJar + " " + options);
        }
    }

    @Test
    void jvmsCountsPoolsPerLocalJvm() {
        FakeJvms jvms = new FakeJvms();
        jvms.reachable.put("4242", connector.getAddress());
        jvms.unreachable.add("777");
        JmxFixture.Result r = run(jvms, false, Map.of(), "jvms");
        assertEquals(0, r.code, r::toString);
        assertTrue(r.out.matches("(?s) *PID\\s+POOLS\\s+NAME\\R4242\\s+1\\s+app-4242.jar\\R +777\\s+\\?\\s+locked-777\\R.*not allowed.*"), r.out);

        Map<String, Object> doc = MiniJson.object(run(jvms, false, Map.of(), "jvms", "--json").out);
        assertEquals(4242L, (Long) at(doc, "jvms", 0, "pid"));
        assertEquals(1L, (Long) at(doc, "jvms", 0, "pools"));
        assertEquals(null, (Object) at(doc, "jvms", 1, "pools"));
    }

    @Test
    void withoutPidOrUrlTheOneLocalJvmRunningTurntableIsUsed() throws IOException {
        MBeanServer empty = MBeanServerFactory.newMBeanServer();
        JMXConnectorServer other = JmxFixture.startConnector(empty);
        try {
            FakeJvms jvms = new FakeJvms();
            jvms.reachable.put("1", other.getAddress());
            jvms.unreachable.add("2");
            JmxFixture.Result none = run(jvms, false, Map.of(), "pools");
            assertEquals(3, none.code, none::toString);
            assertTrue(none.err.contains("no local JVM has Turntable MBeans"), none.err);

            jvms.reachable.put("3", connector.getAddress());
            JmxFixture.Result one = run(jvms, false, Map.of(), "get", "orders", "Strategy");
            assertEquals(0, one.code, one::toString);
            assertEquals("LEAST_USED", one.out.trim());
            JmxFixture.Result byPid = run(jvms, false, Map.of(), "--pid", "3", "get", "orders", "Strategy");
            assertEquals("LEAST_USED", byPid.out.trim(), byPid::toString);
            assertEquals(3, run(jvms, false, Map.of(), "--pid", "2", "pools").code);

            jvms.reachable.put("4", connector.getAddress());
            JmxFixture.Result two = run(jvms, false, Map.of(), "pools");
            assertEquals(2, two.code, two::toString);
            assertTrue(two.err.contains("pids 3, 4") && two.err.contains("--pid"), two.err);
        } finally {
            other.stop();
        }
    }

    @Test
    void attachLoadsTheAgentJarFromWhereItIsFound(@TempDir Path dir) throws IOException {
        Path jar = Files.createFile(dir.resolve("turntable-agent.jar"));
        FakeJvms jvms = new FakeJvms();
        jvms.reachable.put("99", connector.getAddress());

        JmxFixture.Result r = run(jvms, false, Map.of(), "attach", "99", "strategy=ROUND_ROBIN", "--agent", jar.toString());
        assertEquals(0, r.code, r::toString);
        assertEquals(List.of("99 " + jar + " strategy=ROUND_ROBIN"), jvms.loaded);

        r = run(jvms, false, Map.of(Turntablectl.AGENT_ENV, jar.toString()), "--json", "attach", "99");
        assertEquals(0, r.code, r::toString);
        assertEquals(Boolean.TRUE, MiniJson.object(r.out).get("loaded"));
        assertEquals("99 " + jar + " ", jvms.loaded.get(1));

        r = run(jvms, false, Map.of(), "attach", "99", "--agent", dir.resolve("missing.jar").toString());
        assertEquals(3, r.code, r::toString);
        assertTrue(r.err.contains("missing.jar") && r.err.contains("does not exist"), r.err);

        r = run(jvms, false, Map.of(), "attach", "5", "--agent", jar.toString());
        assertEquals(3, r.code, r::toString);

        jvms.loadFailure = CliException.refused("JVM 99 refused the agent: bad option", null);
        r = run(jvms, false, Map.of(), "attach", "99", "--agent", jar.toString());
        assertEquals(4, r.code, r::toString);
        assertTrue(r.err.contains("bad option"), r.err);

        r = run(jvms, false, Map.of(), "--pid", "99", "attach", "99");
        assertEquals(2, r.code, r::toString);
    }
}
