package dev.turntable.jmx.cli;

import static dev.turntable.jmx.cli.JmxFixture.run;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.jmx.TurntableJmx;
import dev.turntable.pool.TurntableExecutor;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import dev.turntable.jmx.PoolMXBean;
import javax.management.JMX;
import javax.management.StandardMBean;
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
        return JmxFixture.withUrl(url, args);
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
            // show/get on it: not "no pool", which contradicts the listing, but why it is left alone
            JmxFixture.Result show = fails(2, withUrl("show", "Scheduler.init"));
            assertTrue(show.err.contains("pool 'Scheduler.init'") && show.err.contains("is not managed by Turntable: ScheduledThreadPoolExecutor"),
                    show.err);
        } finally {
            server.unregisterMBean(agent);
        }
    }

    /** Another library's MBean in our domain, without a pool name: none of ours, left out. */
    public interface ForeignMBean {
        int getValue();
    }

    @Test
    void anMBeanOfTheDomainWithoutAPoolNameIsLeftOutOfTheListings() throws Exception {
        ObjectName foreign = new ObjectName("dev.turntable:type=Pool,other=x");
        ForeignMBean bean = () -> 7;
        server.registerMBean(new javax.management.StandardMBean(bean, ForeignMBean.class), foreign);
        try {
            JmxFixture.Result r = ok("pools");
            assertTrue(r.out.contains("orders"), r.out);
            assertFalse(r.out.contains("null"), r.out);
            JmxFixture.Result none = fails(2, withUrl("get", "nosuch", "Strategy"));
            assertTrue(none.err.contains("; pools: ") && !none.err.contains("null"), none.err);
        } finally {
            server.unregisterMBean(foreign);
        }
    }

    @Test
    void showPrintsEveryAttributeAndTheWorkersTable() {
        JmxFixture.Result r = ok("show", "orders");
        for (String a : List.of("Strategy", "AvailableStrategies", "Measurement", "Median", "WorkerWeightsMillis",
                "TaskStealing", "LatencyHistograms", "CorePoolSize", "MaximumPoolSize", "PoolSize", "ActiveCount",
                "QueuedTaskCount", "CompletedTaskCount", "RejectedTaskCount", "RunTimeMillis", "WaitTimeMillis",
                "MaxLifetimeTasks", "MaxConcurrentTasks", "HeartbeatTimeoutMillis", "WorkerSelectTimeoutMillis",
                "WorkerLifetimes", "RetiredWorkerCount")) {
            assertTrue(r.out.contains("\n" + a + " "), a + " missing:\n" + r.out);
        }
        assertTrue(r.out.indexOf("\nWaitTimeMillis ") < r.out.indexOf("\nMaxLifetimeTasks "), "the contract's order");
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
    void showSaysWhereQueuedTasksThatAreOnNoWorkersQueueWait() throws Exception {
        // Both workers busy, their own queues (two places each) full: what comes next overflows
        // to the shared queue, which no row's QUEUED column counts.
        TurntableExecutor limited = TurntableExecutor.builder().workers(2).workerQueueCapacity(2).build();
        TurntableJmx.Registration reg = TurntableJmx.register(server, "limited", limited, limited.getTurntableQueue());
        java.util.concurrent.CountDownLatch gate = new java.util.concurrent.CountDownLatch(1);
        try {
            for (int i = 0; i < 10; i++) {
                limited.execute(() -> {
                    try {
                        gate.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
            }
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
                    .until(() -> limited.getActiveCount() == 2 && limited.getQueue().size() == 8);
            long onWorkers = 0;
            for (Object w : (List<?>) at(MiniJson.object(ok("show", "limited", "--json").out), "workers")) {
                onWorkers += (Long) ((Map<?, ?>) w).get("queued");
            }
            assertTrue(onWorkers < 8, "some of the eight are on no worker's queue: " + onWorkers + " are");
            JmxFixture.Result r = ok("show", "limited");
            assertTrue(r.out.contains((8 - onWorkers) + " of the 8 queued tasks (QueuedTaskCount) wait on no worker's own queue:"
                    + " in the shared queue"), r.out);
            assertFalse(ok("show", "orders").out.contains("wait on no worker's own queue"), "nothing queued: no such line");
        } finally {
            gate.countDown();
            reg.close();
            limited.shutdownNow();
            assertTrue(limited.awaitTermination(20, TimeUnit.SECONDS));
        }
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
        ok("set", "orders", "WorkerWeightsMillis", "400;300;"); // one ';' at the end, as the agent's lists allow
        assertArrayEquals(new long[] {400, 300}, pool.getTurntableQueue().getWorkerWeightsMillis());
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

    /**
     * {@code default} writes an empty array: the weights go back to those derived from the CPUs.
     * An empty value (a script's unset variable) is refused and changes nothing.
     */
    @Test
    void defaultWeightsGoBackToTheDerivedWeightsAndAnEmptyValueIsRefused() {
        long derived = pool.getTurntableQueue().getDefaultWeightMillis();
        ok("set", "orders", "WorkerWeightsMillis", "500;500");
        assertArrayEquals(new long[] {500, 500}, pool.getTurntableQueue().getWorkerWeightsMillis());
        for (String empty : List.of("", " ", ";")) {
            JmxFixture.Result r = fails(2, withUrl("set", "orders", "WorkerWeightsMillis", empty));
            assertTrue(r.err.contains("or default"), r::toString);
            assertArrayEquals(new long[] {500, 500}, pool.getTurntableQueue().getWorkerWeightsMillis());
        }
        ok("set", "orders", "WorkerWeightsMillis", "default");
        assertArrayEquals(new long[] {derived, derived}, pool.getTurntableQueue().getWorkerWeightsMillis());
        assertEquals(derived + ";" + derived, ok("get", "orders", "WorkerWeightsMillis").out.trim());
    }

    /**
     * The word that puts the weights back to those derived from the CPUs is the same in the help,
     * in the JVM's refusal of a wrong count, and in what set takes: default.
     */
    @Test
    void helpTheJvmAndSetAgreeOnTheWordForTheDerivedWeights() {
        String help = ctl("--help").out;
        assertTrue(help.contains("(WorkerWeightsMillis" + System.lineSeparator()
                + "                                  default: back to the weights derived from the CPUs)"), help);
        assertFalse(help.contains("(default: none)"), help);
        JmxFixture.Result r = fails(4, withUrl("set", "orders", "WorkerWeightsMillis", "500;500;500;500;500;500;500;500;500"));
        assertTrue(r.err.contains("or an empty array (turntablectl: default) for the weights derived from the CPUs"),
                r::toString);
        ok("set", "orders", "WorkerWeightsMillis", "default");
        assertEquals(2, fails(2, withUrl("set", "orders", "WorkerWeightsMillis", "none")).code);
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
        assertTrue(r.err.contains("has 1 weight;"), r.err);
        r = fails(4, withUrl("set", "orders", "Measurement", "WALL"));
        assertTrue(r.err.contains("'WALL'"), r.err);
        assertEquals("", r.out);
    }

    /**
     * A whole number too large for the attribute's type is a whole number all the same: the
     * refusal says the bound it passed, not that it is no number.
     */
    @Test
    void aWholeNumberTooLargeForTheAttributeIsToldTheLimitAndChangesNothing() {
        int before = pool.getTurntableQueue().getMaxConcurrentTasks();
        JmxFixture.Result r = fails(2, withUrl("set", "orders", "MaxConcurrentTasks", "99999999999"));
        assertEquals("turntablectl: value '99999999999' for MaxConcurrentTasks is not valid: expected a whole number"
                + " up to 2147483647 (MaxConcurrentTasks is a 32-bit number)", r.err.trim(), r::toString);
        assertEquals(before, pool.getTurntableQueue().getMaxConcurrentTasks());
        r = fails(2, withUrl("set", "orders", "HeartbeatTimeoutMillis", "99999999999999999999"));
        assertTrue(r.err.contains("up to 9223372036854775807 (HeartbeatTimeoutMillis is a 64-bit number)"), r::toString);
        r = fails(2, withUrl("set", "orders", "WorkerWeightsMillis", "500;99999999999999999999"));
        assertTrue(r.err.contains("item 2 '99999999999999999999' is out of a 64-bit number's range"), r::toString);
        r = fails(2, withUrl("watch", "orders", "--count", "99999999999999999999"));
        assertTrue(r.err.contains("expected a whole number from 1 to 9223372036854775807"), r::toString);
    }

    @Test
    void badInputForSetExitsTwoNamingTheValueAndWhatIsAllowed() {
        JmxFixture.Result r = fails(2, withUrl("set", "orders", "Median", "maybe"));
        assertTrue(r.err.contains("'maybe'") && r.err.contains("true or false"), r.err);
        assertFalse(r.err.contains("usage"), "the line alone, not buried under the usage text: " + r.err);
        r = fails(2, withUrl("set", "orders", "CorePoolSize", "two"));
        assertTrue(r.err.contains("'two'") && r.err.contains("whole number"), r.err);
        r = fails(2, withUrl("set", "orders", "WorkerWeightsMillis", "500;x"));
        assertTrue(r.err.contains("'x'") && r.err.contains("500;500;250"), r.err);
        r = fails(2, withUrl("set", "orders", "PoolSize", "3"));
        assertTrue(r.err.contains("PoolSize is read-only") && r.err.contains("Strategy"), r.err);
        // The list of attributes is the help here; the whole usage text after it only buried it.
        assertFalse(r.err.contains("usage"), r.err);
        r = fails(2, withUrl("set", "orders", "ClassLoadPercents", "a:1"));
        assertTrue(r.err.contains("ClassLoadPercents is read-only (class shares and the requestor map change together:"
                + " turntablectl classes <pool> <percents> [<requestor-map>])"), r.err);
        r = fails(2, withUrl("get", "orders", "Colour"));
        assertTrue(r.err.contains("'Colour'") && r.err.contains("Strategy"), r.err);
        assertFalse(r.err.contains("usage"), r.err);
        r = fails(2, withUrl("show", "invoices"));
        assertTrue(r.err.contains("no pool 'invoices'") && r.err.contains("orders"), r.err);
        r = fails(2, withUrl("show", "in voices"));
        assertTrue(r.err.contains("'in voices'"), r.err);
        assertEquals("LEAST_USED", pool.getStrategy());
    }

    // ------------------------------------------------------------------ worker lifetimes: get, set, lifetimes, recycle

    @Test
    void lifetimeAndLimitAttributesReadAndWriteLikeTheOthers() throws Exception {
        assertEquals("0", ok("get", "orders", "MaxLifetimeTasks").out.trim());
        assertEquals("MaxLifetimeTasks: 0 -> 50", ok("set", "orders", "MaxLifetimeTasks", "50").out.trim());
        assertEquals(50, pool.getMaxLifetimeTasks());
        assertEquals("MaxConcurrentTasks: 0 -> 3", ok("set", "orders", "maxconcurrenttasks", "3").out.trim());
        assertEquals(3, pool.getTurntableQueue().getMaxConcurrentTasks());
        assertEquals("HeartbeatTimeoutMillis: 60000 -> 1500", ok("set", "orders", "HeartbeatTimeoutMillis", "1500").out.trim());
        assertEquals(1500, pool.getTurntableQueue().getHeartbeatTimeoutMillis());
        Map<String, Object> doc = MiniJson.object(ok("--json", "set", "orders", "WorkerSelectTimeoutMillis", "0").out);
        assertEquals(5000L, doc.get("oldValue"));
        assertEquals(0L, doc.get("value"));
        assertEquals(0, pool.getTurntableQueue().getWorkerSelectTimeoutMillis());
        // (3 per worker and no wait would reject a burst: lift the limit before running tasks)
        assertEquals("MaxConcurrentTasks: 3 -> 0", ok("set", "orders", "MaxConcurrentTasks", "0").out.trim());

        runTasks(7);
        String lifetimes = ok("get", "orders", "WorkerLifetimes").out.trim();
        assertTrue(lifetimes.matches("\\d+;\\d+"), lifetimes);
        assertEquals(7, Arrays.stream(lifetimes.split(";")).mapToInt(Integer::parseInt).sum(), lifetimes);
        assertEquals("0", ok("get", "orders", "RetiredWorkerCount").out.trim());
        // with a limit, the workers table shows each lifetime against it
        assertTrue(ok("show", "orders").out.matches("(?s).*\\n0\\s+pool-\\d+-thread-\\d+\\s+AVAILABLE\\s+\\d+\\s+\\d+\\s+\\d+\\s+\\d+/50\\s.*"),
                ok("show", "orders").out);

        JmxFixture.Result r = fails(4, withUrl("set", "orders", "MaxLifetimeTasks", "-5"));
        assertTrue(r.err.contains("the JVM refused MaxLifetimeTasks = -5: max-lifetime-tasks -5 must be 0 (off) or positive"),
                r.err);
        r = fails(4, withUrl("set", "orders", "HeartbeatTimeoutMillis", "-1"));
        assertTrue(r.err.contains("heartbeat-timeout-ms -1 must be 0 (off) or positive"), r.err);
        r = fails(2, withUrl("set", "orders", "MaxLifetimeTasks", "lots"));
        assertTrue(r.err.contains("'lots'") && r.err.contains("whole number"), r.err);
        r = fails(2, withUrl("set", "orders", "WorkerLifetimes", "1;2"));
        assertTrue(r.err.contains("WorkerLifetimes is read-only") && r.err.contains("MaxLifetimeTasks"), r.err);
        assertEquals(50, pool.getMaxLifetimeTasks(), "refused writes changed nothing");
        assertEquals(1500, pool.getTurntableQueue().getHeartbeatTimeoutMillis());
    }

    private void runTasks(int n) throws Exception {
        List<java.util.concurrent.Future<?>> fs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            fs.add(pool.submit(() -> { }));
        }
        for (java.util.concurrent.Future<?> f : fs) {
            f.get(20, TimeUnit.SECONDS);
        }
    }

    /** Rows of {@code lifetimes}: index, thread, lifetime (and limit), state, and the bar's filled length. */
    private static List<String[]> bars(String out) {
        List<String[]> rows = new ArrayList<>();
        for (String line : out.split("\\R")) {
            java.util.regex.Matcher m = java.util.regex.Pattern
                    .compile("(\\d+)\\s+(\\S+)\\s+(\\d+)(?:/(\\d+))?\\s+([A-Z]+)\\s+\\[(#*)(\\.*)\\](\\+?)").matcher(line);
            if (m.matches()) {
                assertEquals(ReadCommands.BAR_WIDTH, m.group(6).length() + m.group(7).length(), "every bar is as wide: " + line);
                rows.add(new String[] {m.group(1), m.group(2), m.group(3), m.group(4), m.group(5),
                    Integer.toString(m.group(6).length())});
            }
        }
        return rows;
    }

    @Test
    void lifetimesDrawsOneBarPerWorkerScaledToTheLimitOrToTheLongestLifetime() throws Exception {
        runTasks(9);
        JmxFixture.Result r = ok("lifetimes", "orders");
        String[] lines = r.out.split("\\R");
        assertTrue(lines[0].matches("pool orders  MaxLifetimeTasks 0 \\(off\\): bars scaled to the longest lifetime, \\d+ tasks"
                + "  retired 0"), lines[0]);
        assertTrue(lines[1].matches("#\\s+THREAD\\s+LIFETIME\\s+STATE\\s+0\\.\\.\\d+ tasks"), lines[1]);
        List<String[]> rows = bars(r.out);
        assertEquals(2, rows.size(), r.out);
        int longest = rows.stream().mapToInt(b -> Integer.parseInt(b[2])).max().orElseThrow();
        for (String[] b : rows) {
            assertEquals(Math.round(40.0 * Integer.parseInt(b[2]) / longest), Integer.parseInt(b[5]), "bar of " + b[2]);
            assertEquals("AVAILABLE", b[4]);
            assertEquals(null, b[3], "no limit shown when there is none");
        }
        assertTrue(rows.stream().anyMatch(b -> b[5].equals("40")), "the longest lifetime fills its bar:\n" + r.out);
        assertEquals(lines[2].indexOf('['), lines[3].indexOf('['), "bars aligned:\n" + r.out);

        pool.setMaxLifetimeTasks(20);
        runTasks(9);
        r = ok("lifetimes", "orders");
        assertTrue(r.out.startsWith("pool orders  MaxLifetimeTasks 20  retired 0\n"), r.out);
        rows = bars(r.out);
        int total = 0;
        for (String[] b : rows) {
            assertEquals("20", b[3], r.out);
            assertEquals(Math.round(40.0 * Integer.parseInt(b[2]) / 20), Integer.parseInt(b[5]), "bar of " + b[2] + "/20");
            assertTrue(b[1].startsWith("pool-"), b[1]);
            total += Integer.parseInt(b[2]);
        }
        assertEquals(18, total, "every task counts in a lifetime:\n" + r.out);

        Map<String, Object> doc = MiniJson.object(ok("--json", "lifetimes", "orders").out);
        assertEquals(20L, doc.get("maxLifetimeTasks"));
        assertEquals(20L, doc.get("scale"));
        assertEquals(0L, doc.get("retiredWorkerCount"));
        List<Object> workers = at(doc, "workers");
        assertEquals(2, workers.size());
        long lifetime = at(doc, "workers", 0, "lifetimeTasks");
        assertEquals(lifetime / 20.0, (Double) at(doc, "workers", 0, "fraction"), 1e-9);
        assertEquals("AVAILABLE", at(doc, "workers", 0, "state"));
    }

    @Test
    void recycleReplacesOneWorkerAndABadIndexIsRefusedByTheJvm() {
        String before = pool.getTurntableQueue().workers().get(1).threadName();
        JmxFixture.Result r = ok("recycle", "orders", "1");
        assertEquals("worker 1 (" + before + ") of pool orders retires at its next task boundary; a new thread from"
                + " the pool's ThreadFactory replaces it", r.out.trim());
        await().atMost(Duration.ofSeconds(20)).until(() -> pool.getTurntableQueue().getRetiredWorkerCount() == 1
                && pool.getTurntableQueue().workers().stream().noneMatch(w -> w.threadName().equals(before))
                && pool.getPoolSize() == 2);
        assertEquals("1", ok("get", "orders", "RetiredWorkerCount").out.trim());

        r = fails(4, withUrl("recycle", "orders", "7"));
        assertTrue(r.err.contains("the JVM refused to recycle worker 7 of pool orders: worker index 7 is not in 0..1"), r.err);
        r = fails(4, withUrl("recycle", "orders", "-1"));
        assertTrue(r.err.contains("worker index -1 is not in 0..1"), r.err);
        r = fails(2, withUrl("recycle", "orders", "first"));
        assertTrue(r.err.contains("worker index 'first' is not valid"), r.err);
        fails(2, withUrl("recycle", "orders"));
        r = fails(2, withUrl("recycle", "invoices", "0"));
        assertTrue(r.err.contains("no pool 'invoices'"), r.err);
        assertEquals(1, pool.getTurntableQueue().getRetiredWorkerCount(), "refusals recycled nothing");

        Map<String, Object> doc = MiniJson.object(ok("--json", "recycle", "orders", "0").out);
        assertEquals(Boolean.TRUE, doc.get("recycled"));
        assertEquals(0L, doc.get("index"));
        await().atMost(Duration.ofSeconds(20)).until(() -> pool.getTurntableQueue().getRetiredWorkerCount() == 2);
    }

    // ------------------------------------------------------------------ task classes

    /** Gates that hold each task on its worker until the test opens them; all opened after each test. */
    private final List<java.util.concurrent.CountDownLatch> gates = new java.util.concurrent.CopyOnWriteArrayList<>();

    @AfterEach
    void openGates() {
        gates.forEach(java.util.concurrent.CountDownLatch::countDown);
    }

    /** Submits {@code n} tasks, each waiting for the test's gate, from a thread of this name (their requestor). */
    private void submitGatedAs(String threadName, int n, java.util.concurrent.CountDownLatch gate) throws InterruptedException {
        gates.add(gate);
        Thread t = new Thread(() -> {
            for (int i = 0; i < n; i++) {
                pool.execute(() -> {
                    try {
                        gate.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
            }
        }, threadName);
        t.start();
        t.join(30_000);
        assertFalse(t.isAlive(), threadName + " did not finish submitting");
    }

    private static Map<String, Integer> counts(String firstClass, int first, String secondClass, int second) {
        Map<String, Integer> m = new LinkedHashMap<>();
        m.put(firstClass, first);
        m.put(secondClass, second);
        return m;
    }

    @Test
    void classesShowsTheSharesCountsAndMapAndSetsThem() throws Exception {
        JmxFixture.Result r = ok("classes", "orders");
        assertEquals("pool orders  task classes off  requestor THREAD_NAME  rebalancing off\n"
                + "switch them on with: turntablectl classes orders <class:share;...> [<regex:class;...>]\n", r.out);
        assertEquals(Boolean.FALSE, MiniJson.object(ok("--json", "classes", "orders").out).get("enabled"));
        assertEquals("off", ok("get", "orders", "ClassLoadPercents").out.trim());

        r = ok("classes", "orders", "batch:1;interactive:1", "interactive-.*:interactive;batch-.*:batch");
        String[] lines = r.out.split("\\R");
        assertEquals("ClassLoadPercents: off -> batch:50;interactive:50", lines[0]);
        assertEquals("RequestorMap: - -> interactive-.*:interactive;batch-.*:batch", lines[1]);
        assertEquals(counts("batch", 50, "interactive", 50), pool.getTurntableQueue().getClassLoadPercents());

        java.util.concurrent.CountDownLatch gate = new java.util.concurrent.CountDownLatch(1);
        submitGatedAs("batch-1", 3, gate);
        await().atMost(Duration.ofSeconds(20)).until(
                () -> pool.getTurntableQueue().getRunningTasksByClass().equals(counts("batch", 2, "interactive", 0)));
        submitGatedAs("interactive-1", 3, gate);
        r = ok("classes", "orders");
        lines = r.out.split("\\R");
        assertEquals("pool orders  task classes on  requestor THREAD_NAME  rebalancing off", lines[0]);
        assertTrue(lines[1].matches("CLASS\\s+SHARE_%\\s+RUNNING\\s+WAITING"), r.out);
        assertTrue(lines[2].matches("batch\\s+50\\s+2\\s+1"), "batch borrowed both workers:\n" + r.out);
        assertTrue(lines[3].matches("interactive\\s+50\\s+0\\s+3"), r.out);
        assertTrue(lines[5].matches("REGEX\\s+CLASS"), r.out);
        assertTrue(lines[6].matches("interactive-\\.\\*\\s+interactive"), r.out);
        assertTrue(lines[7].matches("batch-\\.\\*\\s+batch"), r.out);

        Map<String, Object> doc = MiniJson.object(ok("classes", "orders", "--json").out);
        assertEquals(Boolean.TRUE, doc.get("enabled"));
        assertEquals("batch", at(doc, "classes", 0, "class"));
        assertEquals(50L, (Long) at(doc, "classes", 0, "sharePercent"));
        assertEquals(2L, (Long) at(doc, "classes", 0, "running"));
        assertEquals(3L, (Long) at(doc, "classes", 1, "waiting"));
        assertEquals("interactive-.*", at(doc, "requestorMap", 0, "regex"));
        assertEquals("interactive", at(doc, "requestorMap", 0, "class"));
        assertEquals("THREAD_NAME", doc.get("requestor"));
        assertEquals(0L, (Long) doc.get("rebalanceThreshold"));
        assertEquals(240000L, (Long) doc.get("rebalanceMinimumDurationMillis"));

        // show: the class attributes as the options write them, and the class table before the workers
        String show = ok("show", "orders").out;
        assertTrue(show.matches("(?s).*\\nClassLoadPercents\\s+batch:50;interactive:50\\n.*"), show);
        assertTrue(show.matches("(?s).*\\nRunningTasksByClass\\s+batch:2;interactive:0\\n.*"), show);
        assertTrue(show.matches("(?s).*\\nCLASS\\s+SHARE_%\\s+RUNNING\\s+WAITING\\nbatch\\s+50\\s+2\\s+1\\n.*\\n#\\s+THREAD.*"), show);
        assertEquals(2L, (Long) at(MiniJson.object(ok("show", "orders", "--json").out), "attributes", "RunningTasksByClass", "batch"));
        JmxFixture.Result get = ok("get", "orders", "WaitingTasksByClass");
        assertTrue(get.out.matches("batch\\s+1\\ninteractive\\s+3\\n"), get.out);
        // watch: the same table in every frame, and in its JSON
        String watch = ok("watch", "orders", "--interval", "20", "--count", "1").out;
        assertTrue(watch.matches("(?s).*\\nCLASS\\s+SHARE_%\\s+RUNNING\\s+WAITING\\nbatch\\s+50\\s+2\\s+1\\ninteractive\\s+50\\s+0\\s+3\\n#.*"), watch);
        doc = MiniJson.object(ok("watch", "orders", "--interval", "20", "--count", "1", "--json").out);
        assertEquals("interactive", at(doc, "frames", 0, "classes", 1, "class"));
        assertEquals(3L, (Long) at(doc, "frames", 0, "classes", 1, "waiting"));

        // shares alone keep the map; the JVM's own reason when it refuses
        r = ok("classes", "orders", "interactive:3;batch:1");
        assertTrue(r.out.startsWith("ClassLoadPercents: batch:50;interactive:50 -> interactive:75;batch:25\n\n"), r.out);
        r = fails(4, withUrl("classes", "orders", "a:-1"));
        assertEquals("turntablectl: the JVM refused class-load-percents 'a:-1' for pool orders: share '-1' of class 'a'"
                + " is not allowed: an integer from 0 to 1000000\n", r.err);
        r = fails(4, withUrl("classes", "orders", "batch:1;reports:1"));
        assertTrue(r.err.contains("names class 'interactive', which is not in class-load-percents"), r.err);
        r = fails(4, withUrl("classes", "orders", "a:1", "x(:a"));
        assertTrue(r.err.contains("with requestor-map 'x(:a'") && r.err.contains("is not a valid java.util.regex pattern"), r.err);
        assertEquals("", r.out);
        r = fails(2, withUrl("classes", "invoices"));
        assertTrue(r.err.contains("no pool 'invoices'"), r.err);
        assertEquals(counts("interactive", 75, "batch", 25), pool.getTurntableQueue().getClassLoadPercents(), "refusals changed nothing");

        // the rest through set, like every writable attribute
        assertEquals("RebalanceThreshold: 0 -> 20", ok("set", "orders", "RebalanceThreshold", "20").out.trim());
        assertEquals("Requestor: THREAD_NAME -> POOL_NAME", ok("set", "orders", "Requestor", "pool_name").out.trim());
        r = fails(4, withUrl("set", "orders", "RebalanceThreshold", "300"));
        assertTrue(r.err.contains("rebalance threshold 300 is not allowed: percentage points from 0 (off) to 200"), r.err);
        ok("set", "orders", "Requestor", "THREAD_NAME");
        assertTrue(ok("classes", "orders").out.startsWith("pool orders  task classes on  requestor THREAD_NAME"
                + "  rebalancing when the spread stays above 20 pp for 240000 ms\n"));

        doc = MiniJson.object(ok("--json", "classes", "orders", "off").out);
        assertEquals(Boolean.FALSE, doc.get("enabled"));
        assertEquals(75L, (Long) at(doc, "before", "classLoadPercents", "interactive"));
        assertEquals(Map.of(), pool.getTurntableQueue().getClassLoadPercents());
        gate.countDown();
        await().atMost(Duration.ofSeconds(20)).until(() -> pool.getCompletedTaskCount() == 6);
        assertFalse(ok("show", "orders").out.contains("SHARE_%"), "no class table while classes are off");
    }

    @Test
    void classesOffWithARequestorMapIsRefusedByTheJvmAndChangesNothing() {
        ok("classes", "orders", "batch:1;interactive:1", "batch-.*:batch");
        JmxFixture.Result r = fails(4, withUrl("classes", "orders", "off", "x(:a"));
        assertTrue(r.err.contains("with requestor-map 'x(:a'")
                && r.err.contains("needs task classes, but class-load-percents '' switches them off"), r.err);
        assertEquals("", r.out);
        assertEquals(counts("batch", 50, "interactive", 50), pool.getTurntableQueue().getClassLoadPercents());
        assertEquals(Map.of("batch-.*", "batch"), pool.getTurntableQueue().getRequestorMap());
        assertTrue(ok("classes", "orders", "off").out.startsWith("ClassLoadPercents: batch:50;interactive:50 -> off\n"));
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
                new String[] {"--url", url, "jvms"}, new String[] {"attach", "12x"},
                new String[] {"--url", url, "classes"}, new String[] {"--url", url, "classes", "orders", "a:1", "x:a", "more"})) {
            JmxFixture.Result r = fails(2, args);
            assertTrue(r.err.contains("usage: turntablectl"), r::toString);
            if (Arrays.asList(args).contains("--json")) {
                assertEquals(2L, (Long) at(MiniJson.object(r.out), "error", "exitCode"), r::toString);
            } else {
                assertEquals("", r.out, r::toString);
            }
        }
        // After a usage error, the synopsis and that command's lines, not the whole help.
        JmxFixture.Result interval = fails(2, "--url", url, "watch", "orders", "--interval", "0");
        assertTrue(interval.err.contains("watch <pool> [--interval <ms>] [--count <n>]")
                && interval.err.contains("turntablectl --help"), interval::toString);
        assertFalse(interval.err.contains("recycle <pool>"), interval::toString);
        assertTrue(interval.err.lines().count() <= 8, interval::toString);
        JmxFixture.Result none = fails(2, "--verbose", "pools");
        assertTrue(none.err.contains("pools  ") || none.err.contains("pools: name"), none::toString);
        JmxFixture.Result unknown = fails(2, "frobnicate");
        assertTrue(unknown.err.contains("commands: jvms, attach, pools, show, get, set, watch, lifetimes, recycle, classes"),
                unknown::toString);
        // A flag given a value is named as such, and a script that asked for JSON gets its error in JSON.
        JmxFixture.Result jsonTrue = fails(2, "--url", url, "--json=true", "pools");
        assertTrue(jsonTrue.err.contains("--json is a flag and takes no value, not '--json=true': write --json alone"),
                jsonTrue::toString);
        assertEquals(2L, (Long) at(MiniJson.object(jsonTrue.out), "error", "exitCode"), jsonTrue::toString);
        JmxFixture.Result jsonFalse = fails(2, "--url", url, "--json=false", "pools");
        assertEquals("", jsonFalse.out, "asked for no JSON: none\n" + jsonFalse);
        JmxFixture.Result helpYes = fails(2, "--help=yes");
        assertTrue(helpYes.err.contains("--help is a flag and takes no value, not '--help=yes'"), helpYes::toString);
        assertEquals("", helpYes.out, helpYes::toString);
        JmxFixture.Result help = ctl("--help");
        assertEquals(0, help.code);
        assertTrue(help.out.startsWith("usage: turntablectl"));
        assertTrue(help.out.contains("lifetimes <pool>") && help.out.contains("recycle <pool> <index>"), help.out);
        assertTrue(help.out.contains("classes <pool> [<percents> [<requestor-map>]]"), help.out);
    }

    // ------------------------------------------------------------------ --json when a command fails

    /**
     * A script that reads stdout gets the one document {@code --json} promises on a failure too:
     * the error and its exit code, beside the message on stderr. Without {@code --json}, stdout
     * stays empty.
     */
    @Test
    void aFailureWithJsonPrintsOneErrorDocumentOnStdout() throws IOException {
        JmxFixture.Result r = fails(2, withUrl("--json", "get", "orders", "Colour"));
        Map<String, Object> doc = MiniJson.object(r.out);
        assertEquals(List.of("error"), new ArrayList<>(doc.keySet()), r::toString);
        assertEquals(2L, (Long) at(doc, "error", "exitCode"));
        String message = at(doc, "error", "message");
        assertTrue(message.contains("'Colour'") && message.contains("Strategy"), message);
        assertTrue(r.err.contains(message), r::toString);

        r = fails(4, withUrl("set", "orders", "Strategy", "BOGUS", "--json"));
        assertEquals(4L, (Long) at(MiniJson.object(r.out), "error", "exitCode"), r::toString);
        assertTrue(((String) at(MiniJson.object(r.out), "error", "message")).contains("'BOGUS'"), r::toString);
        assertEquals("LEAST_USED", pool.getStrategy());

        // A command line that does not parse is answered in JSON too; the usage text stays on stderr.
        for (String[] args : List.of(new String[] {"--json", "frobnicate"}, new String[] {"--verbose", "--json", "pools"},
                new String[] {"--json", "--url"})) {
            r = fails(2, args);
            assertEquals(2L, (Long) at(MiniJson.object(r.out), "error", "exitCode"), r::toString);
            assertFalse(r.out.contains("usage:"), r::toString);
            assertTrue(r.err.contains("usage: turntablectl"), r::toString);
        }

        int port = JmxFixture.freePort();
        r = fails(3, "--json", "--url", "127.0.0.1:" + port, "pools");
        assertEquals(3L, (Long) at(MiniJson.object(r.out), "error", "exitCode"), r::toString);
        assertTrue(((String) at(MiniJson.object(r.out), "error", "message")).contains("cannot connect"), r::toString);

        // After "--", "--json" is an argument, not the option: no document.
        r = fails(2, withUrl("--", "--json"));
        assertEquals("", r.out, r::toString);
    }

    /** A watch whose pool goes away keeps the frames it had read in its document, with the error after them. */
    @Test
    void aWatchThatLosesItsPoolKeepsItsFramesInTheJsonDocument() throws Exception {
        CountDownLatch firstFrameRead = registerWatchedPool(1);
        CompletableFuture<JmxFixture.Result> watch = CompletableFuture.supplyAsync(
                () -> ctl(withUrl("--json", "watch", "watched", "--interval", "100", "--count", "1000")));
        try {
            assertTrue(firstFrameRead.await(20, TimeUnit.SECONDS), "the watch never read its pool");
        } finally {
            server.unregisterMBean(WATCHED);
        }
        JmxFixture.Result r = watch.get(60, TimeUnit.SECONDS);
        assertEquals(2, r.code, r::toString);
        Map<String, Object> doc = MiniJson.object(r.out);
        assertEquals("watched", doc.get("pool"));
        List<Object> frames = at(doc, "frames");
        assertFalse(frames.isEmpty(), r::toString);
        assertEquals("LEAST_USED", at(doc, "frames", 0, "strategy"));
        assertEquals(2L, (Long) at(doc, "error", "exitCode"));
        assertTrue(((String) at(doc, "error", "message")).contains("watched is gone"), r::toString);
    }

    /**
     * A signal ({@code timeout}, Ctrl-C) that stops a {@code watch --json} leaves the frames read
     * so far on stdout, with an error, through the shutdown hook's {@code stopped()}; and the
     * command, going on meanwhile, prints no second document.
     */
    @Test
    void aWatchStoppedBySignalPrintsItsFramesOnceWithAnError() throws Exception {
        CountDownLatch secondFrameRead = registerWatchedPool(2); // so the first frame is complete
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream err = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        Turntablectl ctl = new Turntablectl(new PrintStream(out, true, StandardCharsets.UTF_8), err, false,
                new FakeJvms(), Map.of());
        CompletableFuture<Integer> watch = CompletableFuture.supplyAsync(
                () -> ctl.execute(withUrl("--json", "watch", "watched", "--interval", "100", "--count", "1000")));
        try {
            assertTrue(secondFrameRead.await(20, TimeUnit.SECONDS), "the watch never read its pool twice");
            ctl.stopped(); // what the shutdown hook does when a signal ends the JVM (printed when it returns)
        } finally {
            server.unregisterMBean(WATCHED); // the watch then fails on its own, with nothing left to print
        }
        assertEquals(2, watch.get(60, TimeUnit.SECONDS));
        String stdout = out.toString(StandardCharsets.UTF_8);
        Map<String, Object> doc = MiniJson.object(stdout); // one document: a second would not parse
        assertEquals("watched", doc.get("pool"), stdout);
        List<Object> frames = at(doc, "frames");
        assertFalse(frames.isEmpty(), stdout);
        assertTrue(((String) at(doc, "error", "message")).contains("stopped by a signal"), stdout);
        Map<String, Object> error = at(doc, "error");
        assertTrue(error.containsKey("exitCode") && error.get("exitCode") == null,
                "the signal's exit code is the shell's to tell: " + stdout);

        // Without --json the hook prints nothing: the text output is all there is.
        ByteArrayOutputStream plain = new ByteArrayOutputStream();
        Turntablectl text = new Turntablectl(new PrintStream(plain, true, StandardCharsets.UTF_8), err, false,
                new FakeJvms(), Map.of());
        assertEquals(0, text.execute(withUrl("get", "orders", "Strategy")));
        text.stopped();
        assertEquals("LEAST_USED", plain.toString(StandardCharsets.UTF_8).trim());
    }

    @Test
    void helpWithJsonIsADocumentToo() {
        JmxFixture.Result r = ctl("--json", "--help");
        assertEquals(0, r.code, r::toString);
        assertTrue(((String) MiniJson.object(r.out).get("usage")).startsWith("usage: turntablectl"), r::toString);
    }

    private static final ObjectName WATCHED = TurntableJmx.poolObjectName("watched");

    /**
     * Registers {@code watched}, a pool MBean that reads through to {@code orders}; the returned
     * latch opens when its strategy has been read {@code reads} times (each watch frame reads it once).
     */
    private static CountDownLatch registerWatchedPool(int reads) throws Exception {
        PoolMXBean real = JMX.newMXBeanProxy(server, TurntableJmx.poolObjectName("orders"), PoolMXBean.class);
        CountDownLatch readsSeen = new CountDownLatch(reads);
        PoolMXBean watched = (PoolMXBean) Proxy.newProxyInstance(PoolMXBean.class.getClassLoader(),
                new Class<?>[] {PoolMXBean.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getStrategy")) {
                        readsSeen.countDown();
                    }
                    try {
                        return method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        server.registerMBean(new StandardMBean(watched, PoolMXBean.class, true), WATCHED);
        return readsSeen;
    }

    /** No process has id 0: it is a mistake in the command line (exit 2), not an unreachable JVM (exit 3). */
    @Test
    void pidZeroIsBadUsageAndNothingIsAttached() {
        FakeJvms jvms = new FakeJvms();
        for (String[] args : List.of(new String[] {"--pid", "0", "pools"}, new String[] {"--pid=000", "show", "orders"},
                new String[] {"attach", "0", "strategy=ROUND_ROBIN"})) {
            JmxFixture.Result r = run(jvms, false, Map.of(), args);
            assertEquals(2, r.code, r::toString);
            assertTrue(r.err.matches("(?s)turntablectl: (--pid|attach) '0+' is not a process id \\(a positive whole number\\)\n.*"
                    + "usage: turntablectl.*"), r::toString);
            assertEquals("", r.out, r::toString);
        }
        assertEquals(List.of(), jvms.loaded, "nothing was attached");
    }

    /** A port no JVM can listen on is a mistake in the command line (exit 2), not an unreachable JVM (exit 3). */
    @Test
    void aUrlWhosePortCannotExistExitsTwoNamingIt() {
        for (String bad : List.of("127.0.0.1:99999", "localhost:0", "service:jmx:rmi://127.0.0.1:70000",
                "service:jmx:rmi:///jndi/rmi://127.0.0.1:65536/jmxrmi", "127.0.0.1:00000",
                "service:jmx:rmi:///jndi/rmi://h:12345678901/x")) {
            JmxFixture.Result r = fails(2, "--url", bad, "pools");
            assertTrue(r.err.startsWith("turntablectl: --url '" + bad + "' has port "), r::toString);
            assertTrue(r.err.contains("expected a port from 1 to 65535"), r::toString);
            assertTrue(r.err.contains("usage: turntablectl"), r::toString);
            assertEquals("", r.out, r::toString);
        }
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
        assertTrue(r.out.contains("  retired 0  "), r.out);
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
        assertEquals(0L, (Long) at(doc, "frames", 2, "retiredWorkers"));

        pool.setMaxLifetimeTasks(40);
        JmxFixture.Result limited = ok("watch", "orders", "--interval", "20", "--count", "1");
        assertTrue(limited.out.contains("  retired 0 (lifetime 40)  "), limited.out);
        assertTrue(limited.out.matches("(?s).*\\s\\d+/40\\s.*"), "LIFETIME against the limit:\n" + limited.out);
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

        /** Reachable JVMs that run no Turntable: neither the agent nor a pool MBean registered by the library. */
        final java.util.Set<String> plain = new java.util.HashSet<>();
        /** The working directory (user.dir) by pid; absent: the JVM does not tell. */
        final Map<String, String> userDir = new HashMap<>();
        /** The pids whose JMX connector address was asked for: each would have got a management agent. */
        final List<String> connected = new ArrayList<>();

        private JMXServiceURL attach(String pid) throws CliException {
            JMXServiceURL u = reachable.get(pid);
            if (u == null) {
                throw CliException.connect("cannot attach to JVM " + pid + ": not allowed", null);
            }
            return u;
        }

        @Override
        public JMXServiceURL connectorAddress(String pid) throws CliException {
            JMXServiceURL u = attach(pid);
            connected.add(pid);
            return u;
        }

        @Override
        public Map<String, String> systemProperties(String pid, java.util.Collection<String> keys) throws CliException {
            attach(pid);
            Map<String, String> out = new HashMap<>();
            if (status.containsKey(pid)) {
                out.put(dev.turntable.jmx.AgentLoadStatus.PROPERTY, status.get(pid));
            }
            if (!plain.contains(pid)) {
                out.put(dev.turntable.jmx.TurntableJmx.MBEANS_PROPERTY, "true");
            }
            if (userDir.containsKey(pid)) {
                out.put("user.dir", userDir.get(pid));
            }
            if (jmxOff.contains(pid)) {
                out.put(dev.turntable.jmx.AgentLoadStatus.JMX_OFF, "true");
            }
            out.keySet().retainAll(keys);
            return out;
        }

        /** The agent status property by pid; absent: no Turntable agent was loaded. */
        final Map<String, String> status = new HashMap<>();
        /** Pids whose agent runs with jmx=false. */
        final java.util.Set<String> jmxOff = new java.util.HashSet<>();
        /** What a load leaves in the status property (its first line marked with the load's id, as the agent does): null, as an agent before it had one. */
        String statusAfterLoad;
        /** The id of the load that started the agent, by pid. */
        final Map<String, String> startedBy = new HashMap<>();
        /** Run after a load and before its status is read: another attach at the same moment. */
        java.util.function.Consumer<String> meanwhile = pid -> { };

        @Override
        public Map<String, String> loadAgent(String pid, String agentJar, String options) throws CliException {
            if (loadFailure != null) {
                throw loadFailure;
            }
            attach(pid);
            String id = options.contains("attach-id=") ? options.substring(options.indexOf("attach-id=") + 10) : null;
            String given = id == null ? options : options.replaceAll(",?attach-id=[0-9a-f]+$", "");
            loaded.add(pid + " " + agentJar + " " + given);
            if (statusAfterLoad != null) {
                String[] parts = statusAfterLoad.split("\n", 2);
                status.put(pid, dev.turntable.jmx.AgentLoadStatus.format(parts[0], id,
                        parts.length > 1 ? List.of(parts[1].split("\n")) : List.of()));
                if (parts[0].equals("running")) {
                    startedBy.put(pid, id == null ? "" : id);
                }
            }
            meanwhile.accept(pid);
            Map<String, String> out = new HashMap<>();
            if (status.containsKey(pid)) {
                out.put(dev.turntable.jmx.AgentLoadStatus.PROPERTY, status.get(pid));
            }
            if (startedBy.containsKey(pid)) {
                out.put(dev.turntable.jmx.AgentLoadStatus.STARTED_BY, startedBy.get(pid));
            }
            return out;
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

    /**
     * A JMX connection starts the JVM's management agent: jvms and a command without a target
     * connect only to JVMs that run Turntable (the agent's status, or the library's mark),
     * read through the Attach API first.
     */
    @Test
    void onlyJvmsRunningTurntableAreConnectedToWhenLookingForThem() {
        FakeJvms jvms = new FakeJvms();
        jvms.reachable.put("4242", connector.getAddress()); // a pool registered by the library
        jvms.reachable.put("5151", connector.getAddress());
        jvms.plain.add("5151"); // nothing of Turntable
        jvms.reachable.put("6161", connector.getAddress());
        jvms.plain.add("6161");
        jvms.status.put("6161", "running"); // the agent runs there
        jvms.reachable.put("7171", connector.getAddress());
        jvms.plain.add("7171");
        jvms.status.put("7171", "untouched\noption strategy=x is not allowed"); // loaded, left untouched
        jvms.reachable.put("8181", connector.getAddress());
        jvms.plain.add("8181");
        jvms.status.put("8181", "running");
        jvms.jmxOff.add("8181"); // the agent runs with jmx=false: no MBean to read

        JmxFixture.Result r = run(jvms, false, Map.of(), "jvms");
        assertEquals(0, r.code, r::toString);
        // 8181's pools are managed but registered nowhere: unknown, with why, not 0.
        assertTrue(r.out.matches("(?s).*\\R4242\\s+1\\s.*\\R5151\\s+0\\s.*\\R6161\\s+1\\s.*\\R7171\\s+0\\s.*\\R8181\\s+\\?\\s.*"
                + "JVM 8181 runs the agent with jmx=false: its pools are not counted.*"), r::toString);
        assertEquals(List.of("4242", "6161"), jvms.connected, "only the JVMs running Turntable got a management agent");
        Map<String, Object> doc = MiniJson.object(run(jvms, false, Map.of(), "jvms", "--json").out);
        assertEquals(null, (Object) at(doc, "jvms", 4, "pools"), "8181: unknown, not 0");
        assertEquals("JVM 8181 runs the agent with jmx=false: its pools are not counted", at(doc, "jvms", 4, "note"));

        jvms.connected.clear();
        r = run(jvms, false, Map.of(), "pools");
        assertEquals(2, r.code, r::toString);
        assertTrue(r.err.contains("2 local JVMs run Turntable (pids 4242, 6161)"), r::toString);
        assertEquals(List.of("4242", "6161"), jvms.connected, "only the JVMs running Turntable got a management agent");
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
        assertEquals(2, r.code, "a path that is not there is a bad argument, not an unreachable JVM: " + r);
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

    /**
     * An agent jar whose {@code OptionsCheck} refuses any option with the value {@code bad}, as the
     * real one (in the agent module, built after this one) refuses what its parser refuses.
     */
    private static Path agentJarCheckingOptions(Path dir) throws IOException {
        return agentJar(dir, "OptionsCheck", "package dev.turntable.agent;\n"
                + "public final class OptionsCheck {\n"
                + "  public static java.util.List<String> problems(String options) {\n"
                + "    return options != null && options.contains(\"=bad\")\n"
                + "        ? java.util.List.of(\"option strategy=bad is not allowed: one of ROUND_ROBIN, LEAST_USED\")\n"
                + "        : java.util.List.of();\n"
                + "  }\n"
                + "}\n", List.of("OptionsCheck"));
    }

    @Test
    void attachRefusesOptionsTheAgentWouldRefuseAndLoadsNothing(@TempDir Path dir) throws IOException {
        Path jar = agentJarCheckingOptions(dir);
        FakeJvms jvms = new FakeJvms();
        jvms.reachable.put("99", connector.getAddress());

        JmxFixture.Result r = run(jvms, false, Map.of(), "attach", "99", "strategy=bad", "--agent", jar.toString());
        assertEquals(2, r.code, r::toString);
        assertTrue(r.err.contains("option strategy=bad is not allowed: one of ROUND_ROBIN, LEAST_USED"), r.err);
        assertTrue(r.err.contains("nothing attached"), r.err);
        assertEquals(List.of(), jvms.loaded, "the JVM was not touched");
        // Bad options are the command line's fault whatever the JVM runs: exit 2, not "already runs" (4).
        jvms.reachable.put("94", connector.getAddress());
        jvms.status.put("94", "running");
        r = run(jvms, false, Map.of(), "attach", "94", "strategy=bad", "--agent", jar.toString());
        assertEquals(2, r.code, r::toString);
        assertTrue(r.err.contains("option strategy=bad is not allowed"), r.err);

        jvms.statusAfterLoad = "running\noption weights=0 (config file) is not allowed: worker weights in ms; using the default";
        // A jar that can check options but not a config file's contents: the JVM says what it made of them.
        Files.writeString(dir.resolve("t.properties"), "weights=0\n");
        jvms.userDir.put("99", dir.toString());
        r = run(jvms, false, Map.of(), "attach", "99", "strategy=ROUND_ROBIN,config=t.properties", "--agent", jar.toString());
        assertEquals(0, r.code, r::toString);
        assertEquals(List.of("99 " + jar + " strategy=ROUND_ROBIN,config=t.properties"), jvms.loaded);
        // Started, but not quite as asked (a bad value in the target's own config file): the operator is told.
        assertTrue(r.err.contains("JVM 99 started Turntable, and says: option weights=0 (config file) is not allowed"), r.err);

        // Another attach at the same moment overwrites the status: ours started the agent all the same.
        jvms.reachable.put("96", connector.getAddress());
        jvms.statusAfterLoad = "running";
        jvms.meanwhile = pid -> jvms.status.put(pid, "already running #0a0b\nthe agent is already running in this JVM");
        r = run(jvms, false, Map.of(), "attach", "96", "strategy=ROUND_ROBIN", "--agent", jar.toString());
        assertEquals(0, r.code, r::toString);
        assertTrue(r.err.contains("another attach came at the same moment"), r.err);
        // And the other way round: the other one started it, ours did nothing.
        jvms.reachable.put("95", connector.getAddress());
        jvms.statusAfterLoad = "already running\nthe agent is already running in this JVM";
        jvms.startedBy.put("95", "0a0b");
        jvms.meanwhile = pid -> { };
        r = run(jvms, false, Map.of(), "attach", "95", "strategy=ROUND_ROBIN", "--agent", jar.toString());
        assertEquals(4, r.code, r::toString);
        jvms.meanwhile = pid -> jvms.status.put(pid, "running #0a0b");
        jvms.status.remove("95");
        jvms.statusAfterLoad = "untouched\nthis JDK is not supported, leaving the application untouched";
        r = run(jvms, false, Map.of(), "attach", "95", "strategy=FAIR_SHARE", "--agent", jar.toString());
        assertEquals(4, r.code, r::toString);
        assertTrue(r.err.contains("another attach loaded the agent into JVM 95 at the same moment") && r.err.contains("(running)"),
                r.err);
        jvms.meanwhile = pid -> { };

        // An agent that can check options writes its status on every load; none means it could not.
        jvms.status.clear();
        jvms.statusAfterLoad = null;
        jvms.reachable.put("97", connector.getAddress());
        r = run(jvms, false, Map.of(), "attach", "97", "strategy=ROUND_ROBIN", "--agent", jar.toString());
        assertEquals(4, r.code, r::toString);
        assertTrue(r.err.contains("left no word of what it did") && r.err.contains("security manager"), r.err);
    }

    @Test
    void attachSaysWhenTheAgentRunsAlreadyOrDidNotStart(@TempDir Path dir) throws IOException {
        Path jar = Files.createFile(dir.resolve("turntable-agent.jar"));
        FakeJvms jvms = new FakeJvms();
        jvms.reachable.put("99", connector.getAddress());
        jvms.reachable.put("98", connector.getAddress());

        // The agent's lines go to the application's output: the operator gets them here.
        jvms.statusAfterLoad = "untouched\nthis JDK (26) is not supported, leaving the application untouched";
        JmxFixture.Result r = run(jvms, false, Map.of(), "attach", "99", "strategy=LEAST_BUSY", "--agent", jar.toString());
        assertEquals(4, r.code, r::toString);
        assertTrue(r.err.contains("JVM 99 did not start Turntable") && r.err.contains("is not supported, leaving the application untouched"),
                r.err);

        jvms.statusAfterLoad = "running";
        r = run(jvms, false, Map.of(), "attach", "99", "strategy=ROUND_ROBIN", "--agent", jar.toString());
        assertEquals(0, r.code, "an untouched JVM can be attached to again\n" + r);

        r = run(jvms, false, Map.of(), "--json", "attach", "99", "strategy=FAIR_SHARE", "--agent", jar.toString());
        assertEquals(4, r.code, r::toString);
        assertTrue(r.err.contains("Turntable already runs in JVM 99") && r.err.contains("set or classes"), r.err);
        assertEquals(2, jvms.loaded.size(), "the second load into a running agent was not made");

        jvms.status.put("98", "already running\nthe agent is already running in this JVM; this load does nothing");
        r = run(jvms, false, Map.of(), "attach", "98", "--agent", jar.toString());
        assertEquals(4, r.code, r::toString);
        // No options given: none to say do not apply.
        assertTrue(r.err.contains("Turntable already runs in JVM 98; nothing loaded (change settings live with set or classes)"),
                r.err);
    }

    /**
     * An agent jar whose option parser reads the config file the options name, as the real one
     * (in the agent module, built after this one) does: a key other than strategy is unknown,
     * strategy=BOGUS is not allowed (and named as not used where the options set strategy too).
     */
    private static Path agentJarCheckingConfigFiles(Path dir) throws IOException {
        return agentJar(dir, "OptionsCheck", "package dev.turntable.agent;\n"
                + "public final class OptionsCheck {\n"
                + "  public static java.util.List<String> problems(String options) {\n"
                + "    return java.util.List.of();\n"
                + "  }\n"
                + "  public static java.util.List<String> problemsWithConfigFile(String options) {\n"
                + "    java.util.List<String> out = new java.util.ArrayList<>();\n"
                + "    java.util.Map<String, String> given = new java.util.HashMap<>();\n"
                + "    for (String item : options.split(\",\")) {\n"
                + "      int eq = item.indexOf('=');\n"
                + "      if (eq > 0) given.put(item.substring(0, eq).trim().toLowerCase(), item.substring(eq + 1).trim());\n"
                + "    }\n"
                + "    java.util.Properties file = new java.util.Properties();\n"
                + "    try (java.io.Reader r = java.nio.file.Files.newBufferedReader(java.nio.file.Paths.get(given.get(\"config\")))) {\n"
                + "      file.load(r);\n"
                + "    } catch (java.io.IOException e) {\n"
                + "      return java.util.List.of(\"option config=\" + given.get(\"config\") + \" cannot be read\");\n"
                + "    }\n"
                + "    for (String k : new java.util.TreeSet<>(file.stringPropertyNames())) {\n"
                + "      String v = file.getProperty(k);\n"
                + "      if (!k.equals(\"strategy\")) out.add(\"unknown option \" + k + \"=\" + v + \" (config file)\");\n"
                + "      else if (v.equals(\"BOGUS\")) out.add(\"option strategy=BOGUS (config file) is not allowed\"\n"
                + "          + (given.containsKey(k) ? \"; not used, strategy=\" + given.get(k) + \" takes precedence\" : \"\"));\n"
                + "    }\n"
                + "    return out;\n"
                + "  }\n"
                + "}\n", List.of("OptionsCheck"));
    }

    /**
     * A stand-in {@code turntable-agent.jar} in {@code dir}: {@code source} compiled as
     * {@code dev.turntable.agent.<sourceClass>}, and the classes named in {@code classes} put in the jar.
     */
    private static Path agentJar(Path dir, String sourceClass, String source, List<String> classes) throws IOException {
        Path src = dir.resolve("src/dev/turntable/agent/" + sourceClass + ".java");
        Files.createDirectories(src.getParent());
        Files.writeString(src, source);
        Path out = Files.createDirectories(dir.resolve("classes"));
        int rc = javax.tools.ToolProvider.getSystemJavaCompiler().run(null, null, null,
                "-d", out.toString(), src.toString());
        assertEquals(0, rc, "the test's agent class compiles");
        Path jar = dir.resolve("turntable-agent.jar");
        try (java.util.jar.JarOutputStream jarOut = new java.util.jar.JarOutputStream(Files.newOutputStream(jar))) {
            for (String c : classes) {
                jarOut.putNextEntry(new java.util.jar.JarEntry("dev/turntable/agent/" + c + ".class"));
                jarOut.write(Files.readAllBytes(out.resolve("dev/turntable/agent/" + c + ".class")));
                jarOut.closeEntry();
            }
        }
        return jar;
    }

    /**
     * The config file is refused as the same option on the command line is (exit 2, nothing
     * loaded): the agent's lines about it would go to the target's output, not to the operator.
     */
    @Test
    void attachRefusesAConfigFileWhoseContentsTheAgentWouldRefuseAndLoadsNothing(@TempDir Path dir) throws IOException {
        Path jar = agentJarCheckingConfigFiles(dir);
        FakeJvms jvms = new FakeJvms();
        jvms.reachable.put("99", connector.getAddress());
        jvms.statusAfterLoad = "running";
        Path bogus = Files.writeString(dir.resolve("bogus.properties"), "strategy=BOGUS\n");
        Path unknown = Files.writeString(dir.resolve("unknown.properties"), "strategy=ROUND_ROBIN\nbogus=1\n");

        JmxFixture.Result r = run(jvms, false, Map.of(), "attach", "99", "config=" + bogus, "--agent", jar.toString());
        assertEquals(2, r.code, r::toString);
        assertEquals("turntablectl: attach: the agent's options are not allowed (config file " + bogus
                + "), nothing attached:\n  option strategy=BOGUS (config file) is not allowed\n", r.err, r::toString);
        r = run(jvms, false, Map.of(), "attach", "99", "config=" + unknown, "--agent", jar.toString());
        assertEquals(2, r.code, r::toString);
        assertTrue(r.err.contains("unknown option bogus=1 (config file)"), r::toString);
        // The command line's value takes precedence, but the file's mistake would still get a line.
        r = run(jvms, false, Map.of(), "attach", "99", "strategy=FAIR_SHARE,config=" + bogus, "--agent", jar.toString());
        assertEquals(2, r.code, r::toString);
        assertTrue(r.err.contains("not used, strategy=FAIR_SHARE takes precedence"), r::toString);
        assertEquals(List.of(), jvms.loaded, "nothing was loaded");

        Path good = Files.writeString(dir.resolve("good.properties"), "strategy=ROUND_ROBIN\n");
        r = run(jvms, false, Map.of(), "attach", "99", "config=" + good, "--agent", jar.toString());
        assertEquals(0, r.code, r::toString);
        assertEquals(List.of("99 " + jar + " config=" + good), jvms.loaded);
    }

    /**
     * A config file the target could not read is refused before anything is loaded, naming the
     * path; a relative one is read from the target's working directory, where the agent reads it.
     */
    @Test
    void attachRefusesAConfigFileTheTargetCouldNotReadAndReadsARelativeOneWhereTheTargetWould(@TempDir Path dir)
            throws IOException {
        Path jar = agentJarCheckingConfigFiles(dir);
        FakeJvms jvms = new FakeJvms();
        jvms.reachable.put("99", connector.getAddress());
        jvms.statusAfterLoad = "running";
        Path missing = dir.resolve("missing.properties");

        JmxFixture.Result r = run(jvms, false, Map.of(), "attach", "99", "config=" + missing, "--agent", jar.toString());
        assertEquals(2, r.code, r::toString);
        assertEquals("turntablectl: attach: config file " + missing + " does not exist; allowed: the path of a readable"
                + " .properties file; nothing attached\n", r.err, r::toString);
        r = run(jvms, false, Map.of(), "attach", "99", "config=" + dir, "--agent", jar.toString());
        assertEquals(2, r.code, r::toString);
        assertTrue(r.err.contains("config file " + dir + " is not a file"), r::toString);
        // Whatever the jar can check: an empty one checks nothing, the path is checked all the same.
        Path empty = Files.createFile(Files.createDirectories(dir.resolve("empty")).resolve("turntable-agent.jar"));
        r = run(jvms, false, Map.of(), "attach", "99", "config=" + missing, "--agent", empty.toString());
        assertEquals(2, r.code, r::toString);

        Path target = Files.createDirectories(dir.resolve("target-wd"));
        Files.createDirectories(target.resolve("conf"));
        Files.writeString(target.resolve("conf/app.properties"), "strategy=BOGUS\n");
        r = run(jvms, false, Map.of(), "attach", "99", "config=conf/app.properties", "--agent", jar.toString());
        assertEquals(2, r.code, "a JVM that does not tell where it would read a relative path\n" + r);
        assertTrue(r.err.contains("config=conf/app.properties is a relative path, and JVM 99 does not tell its working"
                + " directory"), r::toString);
        jvms.userDir.put("99", target.toString());
        r = run(jvms, false, Map.of(), "attach", "99", "config=conf/app.properties", "--agent", jar.toString());
        assertEquals(2, r.code, r::toString);
        assertTrue(r.err.contains("(config file conf/app.properties, that is " + target.resolve("conf/app.properties")
                + ")") && r.err.contains("option strategy=BOGUS (config file) is not allowed"), r::toString);
        r = run(jvms, false, Map.of(), "attach", "99", "config=conf/nope.properties", "--agent", jar.toString());
        assertEquals(2, r.code, r::toString);
        assertTrue(r.err.contains("config file conf/nope.properties (that is " + target.resolve("conf/nope.properties")
                + ", from JVM 99's working directory) does not exist"), r::toString);
        assertEquals(List.of(), jvms.loaded, "nothing was loaded");

        Files.writeString(target.resolve("conf/app.properties"), "strategy=ROUND_ROBIN\n");
        r = run(jvms, false, Map.of(), "attach", "99", "config=conf/app.properties", "--agent", jar.toString());
        assertEquals(0, r.code, r::toString);
        assertEquals(List.of("99 " + jar + " config=conf/app.properties"), jvms.loaded, "the options as given");
    }
}
