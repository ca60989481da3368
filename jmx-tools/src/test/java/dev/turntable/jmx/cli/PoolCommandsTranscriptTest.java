package dev.turntable.jmx.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.turntable.jmx.LatencyStats;
import dev.turntable.jmx.PoolMXBean;
import dev.turntable.jmx.TurntableJmx;
import dev.turntable.jmx.WorkerStats;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.management.InstanceNotFoundException;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;
import javax.management.StandardMBean;
import javax.management.remote.JMXConnectorServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The pool commands' whole output, byte for byte: each command (text and {@code --json}) and the
 * failures it reports, against pools whose every attribute is fixed, compared with
 * {@code pool-commands.transcript} (what turntablectl printed, with the connector's URL and the
 * watch's clock blanked). Scripts read this output (the contract), so a difference here is a
 * change for them; on one, the test writes what it got to {@code target/pool-commands.transcript}
 * for a diff, and to copy over when the change is meant.
 */
class PoolCommandsTranscriptTest {

    private static final String TRANSCRIPT = "pool-commands.transcript";

    /** In {@link #commands}: from here on, pool {@code gone} is gone (see {@link #goneAware}). */
    private static final String GONE_FROM_HERE =
            "# from here on, pool gone is registered but every read, write and operation finds it gone";

    /** Whether pool {@code gone}, still registered, is gone for every read, write and operation. */
    private static volatile boolean gone;

    private static MBeanServer server;
    private static JMXConnectorServer connector;
    private static String url;

    /** A pool MBean from a Turntable before task classes. */
    public interface OldPoolMXBean {
        String getStrategy();

        int getPoolSize();
    }

    @BeforeAll
    static void startConnector() throws Exception {
        server = MBeanServerFactory.newMBeanServer();
        register("fixed", fixedPool(true));
        register("plain", fixedPool(false));
        Map<String, Object> broken = fixedPool(true);
        broken.put("Strategy", new IllegalStateException("engine stopped"));
        register("broken", broken);
        register("gone", fixedPool(true));
        OldPoolMXBean old = new OldPoolMXBean() {
            @Override
            public String getStrategy() {
                return "LEAST_USED";
            }

            @Override
            public int getPoolSize() {
                return 3;
            }
        };
        server.registerMBean(new StandardMBean(old, OldPoolMXBean.class, true), TurntableJmx.poolObjectName("old"));
        TurntablectlTest.AgentMXBean agent = () -> new TurntablectlTest.AgentPool[] {
            new TurntablectlTest.AgentPool("fixed", "OrderService.start", true, ""),
            new TurntablectlTest.AgentPool("Scheduler.init", "Scheduler.init", false, "ScheduledThreadPoolExecutor"),
        };
        server.registerMBean(new StandardMBean(agent, TurntablectlTest.AgentMXBean.class, true),
                new ObjectName(TurntableJmx.DOMAIN + ":type=Agent"));
        connector = JmxFixture.startConnector(goneAware(server));
        url = connector.getAddress().toString();
    }

    @AfterAll
    static void stopConnector() throws IOException {
        connector.stop();
    }

    @Test
    void everyPoolCommandPrintsWhatItPrintedBefore() throws IOException {
        gone = false;
        StringBuilder got = new StringBuilder();
        for (String[] args : commands()) {
            if (args[0].equals(GONE_FROM_HERE)) {
                gone = true;
                got.append(GONE_FROM_HERE).append("\n\n");
                continue;
            }
            JmxFixture.Result r = JmxFixture.run(new TurntablectlTest.FakeJvms(), false, Map.of(), withUrl(args));
            got.append("$ turntablectl ").append(String.join(" ", args)).append('\n')
                    .append("exit ").append(r.code).append('\n')
                    .append("--- stdout\n").append(blank(r.out))
                    .append("--- stderr\n").append(blank(r.err))
                    .append('\n');
        }
        String expected;
        try (InputStream in = PoolCommandsTranscriptTest.class.getResourceAsStream(TRANSCRIPT)) {
            expected = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        if (!expected.equals(got.toString())) {
            Path actual = Paths.get("target", TRANSCRIPT);
            Files.createDirectories(actual.getParent());
            Files.writeString(actual, got, StandardCharsets.UTF_8);
        }
        assertEquals(expected, got.toString(), "differs from " + TRANSCRIPT + "; what ran is in target/" + TRANSCRIPT);
    }

    /** The commands, in order; the writes among them change the fixed pools for the reads after them. */
    private static List<String[]> commands() {
        return List.of(
                a("pools"), a("--json", "pools"),
                a("show", "fixed"), a("--json", "show", "fixed"), a("show", "plain"), a("--json", "show", "plain"),
                a("show", "broken"), a("show", "nosuch"), a("show", "in voices"),
                a("get", "fixed", "Strategy"), a("get", "fixed", "corepoolsize"), a("get", "fixed", "Workers"),
                a("get", "plain", "Workers"), a("get", "fixed", "RunTimeMillis"), a("get", "fixed", "ClassLoadPercents"),
                a("get", "plain", "ClassLoadPercents"), a("get", "fixed", "AvailableStrategies"),
                a("get", "fixed", "WorkerWeightsMillis"), a("--json", "get", "fixed", "Workers"),
                a("--json", "get", "fixed", "RequestorMap"), a("get", "fixed", "Colour"), a("get", "broken", "Strategy"),
                a("set", "fixed", "Strategy", "ROUND_ROBIN"), a("--json", "set", "fixed", "Median", "TRUE"),
                a("set", "fixed", "WorkerWeightsMillis", "500;250"), a("set", "fixed", "CorePoolSize", "99"),
                a("set", "fixed", "Median", "maybe"), a("set", "fixed", "PoolSize", "3"),
                a("set", "fixed", "ClassLoadPercents", "a:1"), a("set", "fixed", "requestormap", "x:a"),
                a("set", "fixed", "Nope", "1"),
                a("lifetimes", "fixed"), a("--json", "lifetimes", "fixed"), a("lifetimes", "plain"),
                a("set", "fixed", "MaxLifetimeTasks", "100"), a("lifetimes", "fixed"), a("--json", "lifetimes", "fixed"),
                a("show", "fixed"), a("get", "fixed", "Workers"), a("watch", "fixed", "--count", "2", "--interval", "1"),
                a("recycle", "fixed", "1"), a("--json", "recycle", "fixed", "0"), a("recycle", "fixed", "7"),
                a("recycle", "fixed", "x"), a("recycle", "fixed", "99999999999"), a("recycle", "nosuch", "1"),
                a("classes", "fixed"), a("--json", "classes", "fixed"), a("classes", "plain"),
                a("--json", "classes", "plain"), a("classes", "old"),
                a("classes", "fixed", "a:60;b:40"), a("classes", "fixed", "a:50;c:50", "r-.*:c;.*:a"),
                a("--json", "classes", "fixed", "a:70;c:30"), a("classes", "fixed", "bad"),
                a("classes", "fixed", "off", "x:a"), a("classes", "fixed", "off"), a("classes", "fixed"),
                a(GONE_FROM_HERE), a("pools"), a("--json", "pools"),
                a("show", "gone"), a("get", "gone", "Strategy"), a("set", "gone", "Strategy", "ROUND_ROBIN"),
                a("lifetimes", "gone"), a("recycle", "gone", "0"), a("classes", "gone"),
                a("classes", "gone", "a:100"), a("--json", "get", "gone", "Strategy"),
                a("--json", "watch", "plain", "--count", "2", "--interval", "1"),
                a("watch", "gone", "--count", "1"));
    }

    private static String[] a(String... args) {
        return args;
    }

    private static String[] withUrl(String... args) {
        return JmxFixture.withUrl(url, args);
    }

    /** The connector's URL (its port changes) and the watch's clock, blanked. */
    private static String blank(String s) {
        return s.replace(url, "<url>").replaceAll("\\b\\d\\d:\\d\\d:\\d\\d\\b", "hh:mm:ss");
    }

    private static void register(String name, Map<String, Object> values) throws Exception {
        server.registerMBean(new StandardMBean(pool(values), PoolMXBean.class, true), TurntableJmx.poolObjectName(name));
    }

    /**
     * Attributes by name, as a pool MBean shows them; with classes on, two task classes. A value
     * that is an exception is thrown when the attribute is read.
     */
    private static Map<String, Object> fixedPool(boolean collected) {
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("Strategy", "LEAST_USED");
        v.put("AvailableStrategies", new String[] {"ROUND_ROBIN", "LEAST_USED", "FAIR_SHARE"});
        v.put("Measurement", "RUN_TIME");
        v.put("Median", false);
        v.put("WorkerWeightsMillis", new long[] {500, 500});
        v.put("TaskStealing", true);
        v.put("LatencyHistograms", collected);
        v.put("CorePoolSize", 2);
        v.put("MaximumPoolSize", 2);
        v.put("PoolSize", 2);
        v.put("ActiveCount", 1);
        v.put("QueuedTaskCount", 3);
        v.put("CompletedTaskCount", 1234L);
        v.put("RejectedTaskCount", collected ? 5L : -1L);
        v.put("Workers", new WorkerStats[] {
            new WorkerStats(0, "pool-1-thread-1", "AVAILABLE", 2, 1, 700, 37, collected ? 1.5 : -1,
                    collected ? 1.25 : -1, collected ? 0.5 : -1, collected ? 900 : -1, 12),
            new WorkerStats(1, "pool-1-thread-2", "DRAINING", 1, 0, 534, 12, collected ? 2.75 : -1,
                    collected ? 2.5 : -1, collected ? 0.25 : -1, collected ? 800 : -1, -1),
        });
        LatencyStats notCollected = new LatencyStats(-1, -1, -1, -1, -1, -1);
        v.put("RunTimeMillis", collected ? new LatencyStats(1.5, 3, 7.25, 12, 40.5, 1234) : notCollected);
        v.put("WaitTimeMillis", collected ? new LatencyStats(0.5, 1, 2, 3, 4, 1234) : notCollected);
        v.put("MaxLifetimeTasks", 0);
        v.put("MaxConcurrentTasks", 0);
        v.put("HeartbeatTimeoutMillis", 60_000L);
        v.put("WorkerSelectTimeoutMillis", 5_000L);
        v.put("WorkerLifetimes", new int[] {37, 12});
        v.put("RetiredWorkerCount", 4L);
        v.put("ClassLoadPercents", collected ? map("interactive:70;batch:30") : Map.of());
        v.put("RequestorMap", collected ? map("http-.*:interactive;report-.*:batch") : Map.of());
        v.put("Requestor", "THREAD_NAME");
        v.put("RebalanceThreshold", collected ? 10 : 0);
        v.put("RebalanceMinimumDurationMillis", 240_000L);
        v.put("RunningTasksByClass", collected ? Map.of("interactive", 1) : Map.of());
        v.put("WaitingTasksByClass", collected ? new LinkedHashMap<>(Map.of("batch", 3)) : Map.of());
        return v;
    }

    /** {@code name:value;name:value} in order; integer values where they are numbers. */
    private static Map<String, Object> map(String text) {
        Map<String, Object> m = new LinkedHashMap<>();
        if (!text.isEmpty()) {
            for (String e : text.split(";")) {
                int colon = e.lastIndexOf(':');
                String value = e.substring(colon + 1);
                m.put(e.substring(0, colon), value.matches("\\d+") ? (Object) Integer.valueOf(value) : value);
            }
        }
        return m;
    }

    /**
     * A pool MBean over {@code values}: getters read them, setters write them (refusing
     * {@code CorePoolSize} above {@code MaximumPoolSize}), and the operations act on them as the
     * engine's do, refusing what it refuses.
     */
    private static PoolMXBean pool(Map<String, Object> values) {
        return (PoolMXBean) Proxy.newProxyInstance(PoolMXBean.class.getClassLoader(), new Class<?>[] {PoolMXBean.class},
                (proxy, method, args) -> {
                    String m = method.getName();
                    switch (m) {
                        case "recycleWorker":
                            if ((Integer) args[0] < 0 || (Integer) args[0] >= (Integer) values.get("PoolSize")) {
                                throw new IllegalArgumentException("no worker " + args[0] + ": the pool has "
                                        + values.get("PoolSize"));
                            }
                            return null;
                        case "setClassLoadPercents":
                            return setClasses(values, (String) args[0], null);
                        case "setTaskClasses":
                            return setClasses(values, (String) args[0], (String) args[1]);
                        case "resetStatistics":
                            return null;
                        case "hashCode":
                            return System.identityHashCode(proxy);
                        case "equals":
                            return proxy == args[0];
                        case "toString":
                            return "pool " + values.get("Strategy");
                        default:
                            break;
                    }
                    if (m.startsWith("set")) {
                        String name = m.substring(3);
                        if (name.equals("CorePoolSize") && (Integer) args[0] > (Integer) values.get("MaximumPoolSize")) {
                            throw new IllegalArgumentException("CorePoolSize " + args[0] + " is not in 0.."
                                    + values.get("MaximumPoolSize"));
                        }
                        values.put(name, args[0]);
                        return null;
                    }
                    Object value = values.get(m.substring(m.startsWith("is") ? 2 : 3));
                    if (value instanceof RuntimeException) {
                        throw (RuntimeException) value;
                    }
                    return value;
                });
    }

    private static Map<String, Integer> setClasses(Map<String, Object> values, String percents, String requestorMap) {
        if (!percents.isEmpty() && !percents.matches("([a-z]+:\\d+;?)+")) {
            throw new IllegalArgumentException("class-load-percents '" + percents + "': expected class:share;...");
        }
        if (percents.isEmpty() && requestorMap != null && !requestorMap.isEmpty()) {
            throw new IllegalArgumentException("a requestor map needs task classes");
        }
        values.put("ClassLoadPercents", map(percents));
        if (requestorMap != null) {
            values.put("RequestorMap", map(requestorMap));
        }
        @SuppressWarnings("unchecked")
        Map<String, Integer> shares = (Map<String, Integer>) values.get("ClassLoadPercents");
        return shares;
    }

    /**
     * {@code server}, except that once {@link #gone} is set, pool {@code gone} is gone for every
     * read, write and operation while its name is still registered: as a pool that terminates
     * between the command's look-up and its use.
     */
    private static MBeanServer goneAware(MBeanServer server) {
        Set<String> uses = Set.of("getAttribute", "getAttributes", "setAttribute", "setAttributes", "invoke");
        return (MBeanServer) Proxy.newProxyInstance(MBeanServer.class.getClassLoader(), new Class<?>[] {MBeanServer.class},
                (proxy, method, args) -> {
                    if (gone && uses.contains(method.getName()) && args[0] instanceof ObjectName
                            && "gone".equals(((ObjectName) args[0]).getKeyProperty("name"))) {
                        throw new InstanceNotFoundException(args[0].toString());
                    }
                    try {
                        return method.invoke(server, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
