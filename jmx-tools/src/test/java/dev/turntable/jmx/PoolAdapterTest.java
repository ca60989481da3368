package dev.turntable.jmx;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.DefaultWeights;
import dev.turntable.pool.RestartableTask;
import dev.turntable.pool.Ticker;
import dev.turntable.pool.TurntableExecutor;
import dev.turntable.pool.TurntableQueue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import javax.management.Attribute;
import javax.management.AttributeChangeNotification;
import javax.management.JMX;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanInfo;
import javax.management.MBeanNotificationInfo;
import javax.management.MBeanOperationInfo;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.Notification;
import javax.management.NotificationListener;
import javax.management.ObjectName;
import javax.management.openmbean.ArrayType;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.CompositeType;
import javax.management.openmbean.OpenType;
import javax.management.openmbean.SimpleType;
import javax.management.openmbean.TabularData;
import javax.management.openmbean.TabularType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The Pool MXBean on a private MBean server, driven through {@link JMX#newMXBeanProxy}. */
class PoolAdapterTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    private final List<TurntableExecutor> pools = new ArrayList<>();
    private MBeanServer server;
    private TurntableExecutor pool;
    private TurntableJmx.Registration registration;
    private PoolMXBean proxy;
    private ObjectName name;

    @BeforeEach
    void setUp() {
        server = MBeanServerFactory.newMBeanServer();
        pool = newPool(4);
        registration = TurntableJmx.register(server, "orders", pool, pool.getTurntableQueue());
        assertTrue(registration.isRegistered(), registration::toString);
        name = registration.objectName();
        proxy = JMX.newMXBeanProxy(server, name, PoolMXBean.class, true);
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        registration.close();
        for (TurntableExecutor p : pools) {
            p.shutdownNow();
            assertTrue(p.awaitTermination(20, TimeUnit.SECONDS), "pool did not terminate");
        }
    }

    private TurntableExecutor newPool(int workers) {
        TurntableExecutor p = TurntableExecutor.builder().workers(workers).build();
        pools.add(p);
        return p;
    }

    private void runTasks(TurntableExecutor p, int n) throws Exception {
        List<Future<?>> fs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            fs.add(p.submit(() -> { }));
        }
        for (Future<?> f : fs) {
            f.get(20, TimeUnit.SECONDS);
        }
    }

    @Test
    void objectNameFollowsTheContract() throws Exception {
        assertEquals(new ObjectName("dev.turntable:type=Pool,name=orders"), name);
        assertEquals("dev.turntable:type=Pool,name=orders", name.toString(), "keys in the contract's order");
        assertTrue(server.isRegistered(name));
        assertTrue(JMX.isMXBeanInterface(PoolMXBean.class));
    }

    @Test
    void everyAttributeHasItsOpenType() throws Exception {
        Map<String, OpenType<?>> expected = new HashMap<>();
        expected.put("Strategy", SimpleType.STRING);
        expected.put("AvailableStrategies", ArrayType.getArrayType(SimpleType.STRING));
        expected.put("Measurement", SimpleType.STRING);
        expected.put("Median", SimpleType.BOOLEAN);
        expected.put("WorkerWeightsMillis", ArrayType.getPrimitiveArrayType(long[].class));
        expected.put("TaskStealing", SimpleType.BOOLEAN);
        expected.put("LatencyHistograms", SimpleType.BOOLEAN);
        expected.put("CorePoolSize", SimpleType.INTEGER);
        expected.put("MaximumPoolSize", SimpleType.INTEGER);
        expected.put("PoolSize", SimpleType.INTEGER);
        expected.put("ActiveCount", SimpleType.INTEGER);
        expected.put("QueuedTaskCount", SimpleType.INTEGER);
        expected.put("CompletedTaskCount", SimpleType.LONG);
        expected.put("RejectedTaskCount", SimpleType.LONG);
        expected.put("MaxLifetimeTasks", SimpleType.INTEGER);
        expected.put("MaxConcurrentTasks", SimpleType.INTEGER);
        expected.put("HeartbeatTimeoutMillis", SimpleType.LONG);
        expected.put("WorkerSelectTimeoutMillis", SimpleType.LONG);
        expected.put("WorkerLifetimes", ArrayType.getPrimitiveArrayType(int[].class));
        expected.put("RetiredWorkerCount", SimpleType.LONG);
        expected.put("ClassLoadPercents", mapType(SimpleType.INTEGER));
        expected.put("RequestorMap", mapType(SimpleType.STRING));
        expected.put("Requestor", SimpleType.STRING);
        expected.put("RebalanceThreshold", SimpleType.INTEGER);
        expected.put("RebalanceMinimumDurationMillis", SimpleType.LONG);
        expected.put("RunningTasksByClass", mapType(SimpleType.INTEGER));
        expected.put("WaitingTasksByClass", mapType(SimpleType.INTEGER));
        Set<String> writable = Set.of("Strategy", "Measurement", "Median", "WorkerWeightsMillis",
                "TaskStealing", "LatencyHistograms", "CorePoolSize", "MaximumPoolSize", "MaxLifetimeTasks",
                "MaxConcurrentTasks", "HeartbeatTimeoutMillis", "WorkerSelectTimeoutMillis", "Requestor",
                "RebalanceThreshold", "RebalanceMinimumDurationMillis");

        MBeanInfo info = server.getMBeanInfo(name);
        Map<String, MBeanAttributeInfo> byName = new HashMap<>();
        for (MBeanAttributeInfo a : info.getAttributes()) {
            byName.put(a.getName(), a);
        }
        Set<String> all = new java.util.TreeSet<>(expected.keySet());
        all.addAll(List.of("Workers", "RunTimeMillis", "WaitTimeMillis"));
        assertEquals(all, new java.util.TreeSet<>(byName.keySet()), "attribute names");
        for (Map.Entry<String, OpenType<?>> e : expected.entrySet()) {
            MBeanAttributeInfo a = byName.get(e.getKey());
            assertEquals(e.getValue(), a.getDescriptor().getFieldValue("openType"), e.getKey());
            assertEquals(writable.contains(e.getKey()), a.isWritable(), e.getKey() + " writable");
            assertTrue(e.getValue().isValue(server.getAttribute(name, e.getKey())), e.getKey() + " value");
        }

        OpenType<?> workers = (OpenType<?>) byName.get("Workers").getDescriptor().getFieldValue("openType");
        assertInstanceOf(ArrayType.class, workers);
        CompositeType row = (CompositeType) ((ArrayType<?>) workers).getElementOpenType();
        assertEquals(Set.of("index", "threadName", "state", "queued", "running", "completed", "lifetimeTasks",
                "averageRunTimeMillis", "medianRunTimeMillis", "averageWaitTimeMillis", "cpuTimeMillis",
                "lastHeartbeatMillisAgo"), row.keySet());
        assertEquals(SimpleType.INTEGER, row.getType("index"));
        assertEquals(SimpleType.STRING, row.getType("threadName"));
        assertEquals(SimpleType.LONG, row.getType("completed"));
        assertEquals(SimpleType.DOUBLE, row.getType("averageRunTimeMillis"));
        assertEquals(SimpleType.LONG, row.getType("lastHeartbeatMillisAgo"));
        await().atMost(WAIT).until(() -> ((CompositeData[]) server.getAttribute(name, "Workers")).length == 4);
        CompositeData[] rows = (CompositeData[]) server.getAttribute(name, "Workers");
        assertEquals("AVAILABLE", rows[0].get("state"));

        for (String latency : List.of("RunTimeMillis", "WaitTimeMillis")) {
            CompositeType t = (CompositeType) byName.get(latency).getDescriptor().getFieldValue("openType");
            assertEquals(Set.of("p50", "p90", "p99", "p999", "max", "count"), t.keySet(), latency);
            assertEquals(SimpleType.DOUBLE, t.getType("p99"));
            assertEquals(SimpleType.LONG, t.getType("count"));
            assertInstanceOf(CompositeData.class, server.getAttribute(name, latency));
        }
        assertArrayEquals(pool.getAvailableStrategies().toArray(new String[0]), proxy.getAvailableStrategies());
        assertTrue(Arrays.asList(proxy.getAvailableStrategies()).contains("LIFETIME_FIRST"));

        MBeanOperationInfo recycle = Arrays.stream(info.getOperations())
                .filter(o -> o.getName().equals("recycleWorker")).findFirst().orElseThrow();
        assertEquals(1, recycle.getSignature().length);
        assertEquals("int", recycle.getSignature()[0].getType());
        // The contract's operations, by name and signature, as a console invokes them.
        Map<String, List<String>> signatures = new HashMap<>();
        for (MBeanOperationInfo o : info.getOperations()) {
            List<String> types = new ArrayList<>();
            for (javax.management.MBeanParameterInfo pi : o.getSignature()) {
                types.add(pi.getType());
            }
            signatures.put(o.getName(), types);
        }
        assertEquals(List.of("java.lang.String"), signatures.get("setClassLoadPercents"));
        assertEquals(List.of("java.lang.String"), signatures.get("setRequestorMap"));
        assertEquals(List.of("java.lang.String", "java.lang.String"), signatures.get("setTaskClasses"));
        assertFalse(byName.get("ClassLoadPercents").isWritable(), "an operation sets it, not a setter");
        List<String> notifications = new ArrayList<>();
        for (MBeanNotificationInfo n : info.getNotifications()) {
            notifications.addAll(Arrays.asList(n.getNotifTypes()));
        }
        assertEquals(List.of(AttributeChangeNotification.ATTRIBUTE_CHANGE, PoolAdapter.WORKER_RETIRED,
                PoolAdapter.REBALANCE), notifications);
    }

    /** How an MXBean shows a {@code Map<String, V>}: a table of {@code key} and {@code value} rows, indexed by key. */
    private static TabularType mapType(SimpleType<?> value) throws Exception {
        String name = "java.util.Map<java.lang.String, " + value.getClassName() + ">";
        CompositeType row = new CompositeType(name, name, new String[] {"key", "value"}, new String[] {"key", "value"},
                new OpenType<?>[] {SimpleType.STRING, value});
        return new TabularType(name, name, row, new String[] {"key"});
    }

    @Test
    void strategySwitchTakesEffectOnTheEngine() throws Exception {
        assertEquals("LEAST_USED", proxy.getStrategy());
        proxy.setStrategy("round-robin");
        assertEquals("ROUND_ROBIN", pool.getStrategy());
        assertEquals("ROUND_ROBIN", proxy.getStrategy());
        runTasks(pool, 200);
        await().atMost(WAIT).until(() -> proxy.getCompletedTaskCount() >= 200);
        proxy.setStrategy("FAIR_SHARE");
        assertEquals("FAIR_SHARE", pool.getStrategy());
        runTasks(pool, 50);
    }

    /** Weights written once can be taken back: an empty array is the weights a pool built without any has. */
    @Test
    void anEmptyWeightsArrayGoesBackToTheWeightsDerivedFromTheCpus() {
        awaitEveryWorkerRegistered();
        long[] derived = proxy.getWorkerWeightsMillis();
        long expected = pool.getTurntableQueue().getDefaultWeightMillis();
        assertEquals(DefaultWeights.weightMillis(Runtime.getRuntime().availableProcessors(), 4), expected);
        assertEquals(4, derived.length);
        for (long w : derived) {
            assertEquals(expected, w, java.util.Arrays.toString(derived));
        }
        proxy.setWorkerWeightsMillis(new long[] {7, 8, 9, 10});
        assertArrayEquals(new long[] {7, 8, 9, 10}, pool.getTurntableQueue().getWorkerWeightsMillis());
        List<Notification> received = listen();
        proxy.setWorkerWeightsMillis(new long[0]);
        assertArrayEquals(derived, proxy.getWorkerWeightsMillis());
        assertArrayEquals(derived, pool.getTurntableQueue().getWorkerWeightsMillis());
        await().atMost(Duration.ofSeconds(10)).until(() -> !received.isEmpty());
        assertArrayEquals(new long[] {7, 8, 9, 10}, (long[]) find(received, "WorkerWeightsMillis").getOldValue());
        assertArrayEquals(derived, (long[]) find(received, "WorkerWeightsMillis").getNewValue());
    }

    /**
     * Weights set in the library for more workers than the pool can have (its setter takes any
     * count, as the agent's weights option serves pools of every size) read back through JMX as
     * set, and what a client reads it can write back; one more is still refused.
     */
    @Test
    void weightsReadThroughJmxCanBeWrittenBack() {
        awaitEveryWorkerRegistered();
        long[] many = {1, 2, 3, 4, 5, 6, 7, 8, 9};
        pool.getTurntableQueue().setWorkerWeightsMillis(many);
        long[] read = proxy.getWorkerWeightsMillis();
        assertArrayEquals(many, read);
        proxy.setWorkerWeightsMillis(read);
        assertArrayEquals(many, pool.getTurntableQueue().getWorkerWeightsMillis());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> proxy.setWorkerWeightsMillis(new long[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
        assertTrue(e.getMessage().contains("has 10 weights"), e.getMessage());
        assertTrue(e.getMessage().contains("9 weights as it reads now"), "the refusal names every count it takes: " + e.getMessage());
        assertArrayEquals(many, proxy.getWorkerWeightsMillis(), "a refused write changes nothing");

    }

    /**
     * A pool of 4 core threads of which one has started, given 2 weights (as the agent's weights
     * option gives every pool the same): it reads 2, and writing those 2 back is taken, though a
     * write of 2 new weights to such a pool is refused (one per worker).
     */
    @Test
    void fewerWeightsThanWorkersReadBackCanBeWrittenBack() throws Exception {
        TurntableQueue q = TurntableQueue.builder().expectedWorkers(4).weightsMillis(500, 500).build();
        ThreadPoolExecutor plain = new ThreadPoolExecutor(4, 4, 0, TimeUnit.MILLISECONDS, q);
        try (TurntableJmx.Registration r = TurntableJmx.register(server, "weighted", plain, q)) {
            PoolMXBean p = JMX.newMXBeanProxy(server, r.objectName(), PoolMXBean.class, true);
            plain.submit(() -> { }).get(20, TimeUnit.SECONDS);
            await().atMost(WAIT).until(() -> q.workers().size() == 1);
            long[] read = p.getWorkerWeightsMillis();
            assertArrayEquals(new long[] {500, 500}, read);
            p.setWorkerWeightsMillis(read);
            assertArrayEquals(read, p.getWorkerWeightsMillis());
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> p.setWorkerWeightsMillis(new long[] {7, 7, 7}));
            assertTrue(e.getMessage().contains("has 3 weights; this pool takes one per worker: 4"), e.getMessage());
        } finally {
            plain.shutdownNow();
        }
    }

    /**
     * Weights go by worker slot, and slots stay once made: a pool that grew to 6 workers and is
     * back to 2 has 6 slots, 4 of them free. It takes one weight per worker it has or may have:
     * 2 while its workers hold slots 0 and 1 (a count of all slots ever made, 6, was asked for),
     * and the refusal of another count says which and why.
     */
    @Test
    void aPoolShrunkBackTakesOneWeightPerWorkerItHasNotPerSlotItOnceMade() throws Exception {
        awaitEveryWorkerRegistered();
        TurntableQueue q = pool.getTurntableQueue();
        pool.setMaximumPoolSize(6);
        pool.setCorePoolSize(6);
        pool.prestartAllCoreThreads();
        await().atMost(WAIT).until(() -> liveSlots(q).size() == 6);
        // Two workers busy while the pool shrinks, so that they are the ones that stay.
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        List<Future<?>> busy = new ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                busy.add(pool.submit(() -> {
                    release.await();
                    return null;
                }));
            }
            await().atMost(WAIT).until(() -> q.workers().stream().filter(w -> w.running() == 1).count() == 2);
            proxy.setCorePoolSize(2);
            proxy.setMaximumPoolSize(2);
            await().atMost(WAIT).until(() -> liveSlots(q).size() == 2 && pool.getPoolSize() == 2);
        } finally {
            release.countDown();
        }
        for (Future<?> f : busy) {
            f.get(20, TimeUnit.SECONDS);
        }
        List<Integer> live = liveSlots(q);
        assertEquals(6, q.workers().size(), "slots stay once made");
        assertEquals(List.of(0, 1), live, "the default strategy gave the two tasks to the first two workers");

        proxy.setWorkerWeightsMillis(new long[] {1, 2});
        assertArrayEquals(new long[] {1, 2}, Arrays.copyOf(proxy.getWorkerWeightsMillis(), 2));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> proxy.setWorkerWeightsMillis(new long[] {5, 5, 5}));
        assertEquals("WorkerWeightsMillis [5, 5, 5] has 3 weights; this pool takes one per worker: 2 weights (weights"
                + " go by worker slot: at least 2 as its core size is 2, at most 2 as its maximum size is 2), 6 weights"
                + " as it reads now, or an empty array (turntablectl: default) for the weights derived from the CPUs",
                e.getMessage());
        long[] asRead = proxy.getWorkerWeightsMillis();
        assertEquals(6, asRead.length, "the 6 it names are what it reads");
        proxy.setWorkerWeightsMillis(asRead); // and are taken, as the message says
        assertArrayEquals(new long[] {1, 2}, Arrays.copyOf(proxy.getWorkerWeightsMillis(), 2), "a refused write changes nothing");
    }

    /** The indexes of the worker slots a thread holds (a free slot reads RETIRED). */
    private static List<Integer> liveSlots(TurntableQueue q) {
        List<Integer> out = new ArrayList<>();
        for (dev.turntable.pool.WorkerInfo w : q.workers()) {
            if (!"RETIRED".equals(w.state())) {
                out.add(w.index());
            }
        }
        return out;
    }

    @Test
    void settingsWriteThrough() {
        proxy.setMeasurement("wait_time");
        assertEquals("WAIT_TIME", pool.getTurntableQueue().getMeasurement().name());
        proxy.setMedian(true);
        assertTrue(pool.getTurntableQueue().isMedian());
        proxy.setTaskStealing(false);
        assertFalse(pool.isTaskStealing());
        proxy.setWorkerWeightsMillis(new long[] {500, 500, 250, 250});
        assertArrayEquals(new long[] {500, 500, 250, 250}, pool.getTurntableQueue().getWorkerWeightsMillis());
        proxy.setLatencyHistograms(true);
        assertTrue(pool.getTurntableQueue().isLatencyHistograms());
        proxy.setMaximumPoolSize(6);
        proxy.setCorePoolSize(5);
        assertEquals(6, pool.getMaximumPoolSize());
        assertEquals(5, pool.getCorePoolSize());
        proxy.resetStatistics();

        TurntableQueue q = pool.getTurntableQueue();
        assertEquals(0, proxy.getMaxLifetimeTasks(), "off by default");
        assertEquals(60_000, proxy.getHeartbeatTimeoutMillis(), "the contract's default");
        assertEquals(5_000, proxy.getWorkerSelectTimeoutMillis(), "the contract's default");
        proxy.setMaxLifetimeTasks(500);
        assertEquals(500, q.getMaxLifetimeTasks());
        assertEquals(500, pool.getMaxLifetimeTasks());
        proxy.setMaxConcurrentTasks(8);
        assertEquals(8, q.getMaxConcurrentTasks());
        proxy.setHeartbeatTimeoutMillis(0);
        assertEquals(0, q.getHeartbeatTimeoutMillis(), "0 turns heartbeats off");
        proxy.setWorkerSelectTimeoutMillis(250);
        assertEquals(250, q.getWorkerSelectTimeoutMillis());
        assertEquals(500, proxy.getMaxLifetimeTasks());
        assertEquals(8, proxy.getMaxConcurrentTasks());
        assertEquals(250, proxy.getWorkerSelectTimeoutMillis());
    }

    /** Every writable attribute's value, to show a refused write changed nothing. */
    private Map<String, Object> writableValues() {
        Map<String, Object> m = new HashMap<>();
        m.put("Strategy", proxy.getStrategy());
        m.put("Measurement", proxy.getMeasurement());
        m.put("Median", proxy.isMedian());
        m.put("WorkerWeightsMillis", Arrays.toString(proxy.getWorkerWeightsMillis()));
        m.put("TaskStealing", proxy.isTaskStealing());
        m.put("LatencyHistograms", proxy.isLatencyHistograms());
        m.put("CorePoolSize", proxy.getCorePoolSize());
        m.put("MaximumPoolSize", proxy.getMaximumPoolSize());
        m.put("MaxLifetimeTasks", proxy.getMaxLifetimeTasks());
        m.put("MaxConcurrentTasks", proxy.getMaxConcurrentTasks());
        m.put("HeartbeatTimeoutMillis", proxy.getHeartbeatTimeoutMillis());
        m.put("WorkerSelectTimeoutMillis", proxy.getWorkerSelectTimeoutMillis());
        m.put("RetiredWorkerCount", proxy.getRetiredWorkerCount());
        m.put("ClassLoadPercents", proxy.getClassLoadPercents());
        m.put("RequestorMap", proxy.getRequestorMap());
        m.put("Requestor", proxy.getRequestor());
        m.put("RebalanceThreshold", proxy.getRebalanceThreshold());
        m.put("RebalanceMinimumDurationMillis", proxy.getRebalanceMinimumDurationMillis());
        m.put("Threads", Arrays.stream(proxy.getWorkers()).map(WorkerStats::getThreadName).collect(
                java.util.stream.Collectors.toList()));
        return m;
    }

    private void assertRefused(String mustName, Runnable write) {
        Map<String, Object> before = writableValues();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, write::run);
        assertNotNull(e.getMessage());
        assertTrue(e.getMessage().contains(mustName), "'" + e.getMessage() + "' should name " + mustName);
        assertEquals(before, writableValues(), "a refused write changed something");
    }

    @Test
    void badWritesAreRefusedWithTheReasonAndChangeNothing() {
        awaitEveryWorkerRegistered();
        List<Notification> received = listen();
        proxy.setWorkerWeightsMillis(new long[] {100, 100, 100, 100});
        int sent = 1;
        assertRefused("BOGUS", () -> proxy.setStrategy("BOGUS"));
        assertRefused("null", () -> proxy.setStrategy(null));
        assertRefused("WALL_TIME", () -> proxy.setMeasurement("WALL_TIME"));
        assertRefused("-5", () -> proxy.setWorkerWeightsMillis(new long[] {100, -5, 100, 100}));
        assertRefused("weight 0", () -> proxy.setWorkerWeightsMillis(new long[] {0, 100, 100, 100}));
        assertRefused("60000", () -> proxy.setWorkerWeightsMillis(new long[] {100, 100, 100, 60_001}));
        assertRefused("3 weights", () -> proxy.setWorkerWeightsMillis(new long[] {100, 100, 100}));
        assertRefused("5 weights", () -> proxy.setWorkerWeightsMillis(new long[] {1, 2, 3, 4, 5}));
        assertRefused("or an empty array (turntablectl: default) for the weights derived from the CPUs", () -> proxy.setWorkerWeightsMillis(new long[] {1, 2}));
        assertRefused("CorePoolSize 5", () -> proxy.setCorePoolSize(5));
        assertRefused("CorePoolSize -1", () -> proxy.setCorePoolSize(-1));
        assertRefused("MaximumPoolSize 3", () -> proxy.setMaximumPoolSize(3));
        assertRefused("MaximumPoolSize 0", () -> proxy.setMaximumPoolSize(0));
        proxy.setMaxLifetimeTasks(1000);
        proxy.setMaxConcurrentTasks(10);
        proxy.setHeartbeatTimeoutMillis(30_000);
        proxy.setWorkerSelectTimeoutMillis(2_000);
        sent += 4;
        assertRefused("max-lifetime-tasks -1 must be 0 (off) or positive", () -> proxy.setMaxLifetimeTasks(-1));
        assertRefused("max-concurrent-tasks -3 must be 0 (no limit) or positive", () -> proxy.setMaxConcurrentTasks(-3));
        assertRefused("heartbeat-timeout-ms -1 must be 0 (off) or positive", () -> proxy.setHeartbeatTimeoutMillis(-1));
        assertRefused("worker-select-timeout-ms -5 must be 0 or positive", () -> proxy.setWorkerSelectTimeoutMillis(-5));
        assertRefused("worker index 4 is not in 0..3", () -> proxy.recycleWorker(4));
        assertRefused("worker index -1 is not in 0..3", () -> proxy.recycleWorker(-1));
        // Through the generic JMX path too, as a console would write it.
        Map<String, Object> before = writableValues();
        Exception e = assertThrows(Exception.class, () -> server.setAttribute(name, new Attribute("Strategy", "NOPE")));
        assertInstanceOf(IllegalArgumentException.class, e.getCause(), e.toString());
        assertTrue(e.getCause().getMessage().contains("NOPE"));
        assertEquals(before, writableValues());
        assertEquals(sent, received.size(), "a refused write sent a notification: " + received);
    }

    /**
     * The engine keeps durations in nanoseconds: a longer value in milliseconds than that can hold
     * was stored shortened, and the attribute then read back another value than the one written.
     */
    @Test
    void aDurationLongerThanTheEngineCanHoldIsRefusedNotShortened() {
        awaitEveryWorkerRegistered();
        long most = TimeUnit.NANOSECONDS.toMillis(Long.MAX_VALUE);
        List<Notification> received = listen();
        assertRefused("heartbeat-timeout-ms " + Long.MAX_VALUE + " must be 0 (off) or positive, at most " + most,
                () -> proxy.setHeartbeatTimeoutMillis(Long.MAX_VALUE));
        assertRefused("worker-select-timeout-ms " + (most + 1) + " must be 0 or positive, at most " + most,
                () -> proxy.setWorkerSelectTimeoutMillis(most + 1));
        assertRefused("rebalance-min-duration-ms " + Long.MAX_VALUE + " must be 0 or positive, at most " + most,
                () -> proxy.setRebalanceMinimumDurationMillis(Long.MAX_VALUE));
        assertEquals(List.of(), received, "a refused write sends nothing");

        proxy.setHeartbeatTimeoutMillis(most);
        proxy.setWorkerSelectTimeoutMillis(most);
        proxy.setRebalanceMinimumDurationMillis(most);
        assertEquals(most, proxy.getHeartbeatTimeoutMillis(), "the longest allowed reads back as written");
        assertEquals(most, proxy.getWorkerSelectTimeoutMillis());
        assertEquals(most, proxy.getRebalanceMinimumDurationMillis());
    }

    @Test
    void aPoolWhoseExecutorCannotReplaceWorkersRefusesLifetimesAndRecyclingWithTheEnginesReason() throws Exception {
        // A plain ThreadPoolExecutor on the engine, without the agent: nothing swallows the retirement signal.
        TurntableQueue q = TurntableQueue.builder().expectedWorkers(1).build();
        ThreadPoolExecutor plain = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, q);
        try (TurntableJmx.Registration r = TurntableJmx.register(server, "plain", plain, q)) {
            PoolMXBean p = JMX.newMXBeanProxy(server, r.objectName(), PoolMXBean.class, true);
            List<Notification> received = new CopyOnWriteArrayList<>();
            server.addNotificationListener(r.objectName(), (n, h) -> received.add(n), null, null);
            plain.submit(() -> { }).get(20, TimeUnit.SECONDS);
            await().atMost(WAIT).until(() -> q.workers().size() == 1);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> p.setMaxLifetimeTasks(10));
            assertTrue(e.getMessage().contains("max-lifetime-tasks 10 needs an executor that replaces retired workers"),
                    e.getMessage());
            assertEquals(0, p.getMaxLifetimeTasks(), "nothing changed");
            e = assertThrows(IllegalArgumentException.class, () -> p.recycleWorker(0));
            assertTrue(e.getMessage().contains("cannot recycle worker 0"), e.getMessage());
            p.setMaxLifetimeTasks(0); // 0 (off) is always allowed
            assertEquals(0, p.getRetiredWorkerCount());
            assertEquals(1, received.size(), "only the allowed write was announced: " + received);
        } finally {
            plain.shutdownNow();
        }
    }

    private static List<Notification> retirements(List<Notification> received) {
        List<Notification> out = new ArrayList<>();
        for (Notification n : received) {
            if (n.getType().equals(PoolAdapter.WORKER_RETIRED)) {
                out.add(n);
            }
        }
        return out;
    }

    @Test
    void aWorkerPastItsLifetimeRetiresIsReplacedAndAnnouncedWithItsFigures() throws Exception {
        List<Notification> received = listen();
        proxy.setMaxLifetimeTasks(5);
        runTasks(pool, 60);
        await().atMost(WAIT).until(() -> !retirements(received).isEmpty());
        Notification n = retirements(received).get(0);
        assertEquals(name, n.getSource());
        CompositeData d = (CompositeData) n.getUserData();
        assertEquals(Set.of("index", "threadName", "lifetimeTasks", "reason", "retirements"),
                d.getCompositeType().keySet());
        assertEquals(5L, d.get("lifetimeTasks"));
        assertEquals("LIFETIME", d.get("reason"));
        assertEquals(1L, d.get("retirements"));
        String thread = (String) d.get("threadName");
        assertTrue(thread.startsWith("pool-"), thread);
        assertEquals("worker " + d.get("index") + " (" + thread + ") retired after 5 tasks (LIFETIME)", n.getMessage());

        await().atMost(WAIT).until(() -> proxy.getRetiredWorkerCount() >= 8);
        for (int lifetime : proxy.getWorkerLifetimes()) {
            assertTrue(lifetime >= 0 && lifetime <= 5, "no worker past its lifetime: " + Arrays.toString(proxy.getWorkerLifetimes()));
        }
        assertEquals(4, proxy.getWorkerLifetimes().length);
        Set<String> threads = new java.util.HashSet<>();
        for (Notification r : retirements(received)) {
            threads.add((String) ((CompositeData) r.getUserData()).get("threadName"));
        }
        assertEquals(retirements(received).size(), threads.size(), "each thread retires once");
        await().atMost(WAIT).until(() -> pool.getPoolSize() == 4); // replaced, not shrunk
        assertEquals(240, runAndSum(pool, 40), "the replacements run tasks");
    }

    @Test
    void recycleWorkerReplacesThatWorkerAndSaysSo() throws Exception {
        runTasks(pool, 20);
        await().atMost(WAIT).until(() -> Arrays.stream(proxy.getWorkers()).allMatch(w -> !w.getThreadName().isEmpty()));
        String before = proxy.getWorkers()[2].getThreadName();
        List<Notification> received = listen();
        proxy.recycleWorker(2);
        await().atMost(WAIT).until(() -> retirements(received).size() == 1);
        CompositeData d = (CompositeData) retirements(received).get(0).getUserData();
        assertEquals(2, d.get("index"));
        assertEquals(before, d.get("threadName"));
        assertEquals("RECYCLED", d.get("reason"));
        assertEquals(1, proxy.getRetiredWorkerCount());
        await().atMost(WAIT).until(() -> Arrays.stream(proxy.getWorkers()).noneMatch(w -> w.getThreadName().equals(before))
                && pool.getPoolSize() == 4);
        assertEquals(240, runAndSum(pool, 40));
    }

    /** Submits tasks returning 6 each and sums their results. */
    private static long runAndSum(TurntableExecutor p, int n) throws Exception {
        List<Future<Integer>> fs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            fs.add(p.submit(() -> 6));
        }
        long sum = 0;
        for (Future<Integer> f : fs) {
            sum += f.get(20, TimeUnit.SECONDS);
        }
        return sum;
    }

    @Test
    void anUnregisteredMBeanNoLongerAnnouncesRetirements() throws Exception {
        TurntableExecutor other = newPool(2);
        PoolAdapter adapter = new PoolAdapter("other", other, other.getTurntableQueue());
        ObjectName otherName = TurntableJmx.poolObjectName("other");
        server.registerMBean(adapter, otherName);
        List<Notification> direct = new CopyOnWriteArrayList<>();
        adapter.addNotificationListener((n, h) -> direct.add(n), null, null);
        runTasks(other, 10);
        await().atMost(WAIT).until(() -> other.getTurntableQueue().workers().stream().noneMatch(w -> w.threadName().isEmpty()));
        other.recycleWorker(0);
        await().atMost(WAIT).until(() -> retirements(direct).size() == 1);

        server.unregisterMBean(otherName);
        other.recycleWorker(1);
        await().atMost(WAIT).until(() -> other.getTurntableQueue().getRetiredWorkerCount() == 2);
        assertEquals(1, retirements(direct).size(), "the engine no longer calls an unregistered MBean");
    }

    @Test
    void aWorkerInsideOneTaskPastTheHeartbeatTimeoutShowsAsStuck() throws Exception {
        proxy.setHeartbeatTimeoutMillis(200);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch started = new CountDownLatch(1);
        Future<?> hang = pool.submit(() -> {
            started.countDown();
            release.await();
            return null;
        });
        assertTrue(started.await(20, TimeUnit.SECONDS));
        try {
            await().atMost(WAIT).until(() -> Arrays.stream(proxy.getWorkers()).anyMatch(w -> w.getState().equals("STUCK")));
            WorkerStats[] rows = proxy.getWorkers();
            WorkerStats stuck = Arrays.stream(rows).filter(w -> w.getState().equals("STUCK")).findFirst().orElseThrow();
            assertEquals(1, stuck.getRunning());
            assertTrue(stuck.getLastHeartbeatMillisAgo() >= 200, stuck::toString);
            for (WorkerStats w : rows) {
                if (w.getIndex() != stuck.getIndex()) {
                    assertEquals("AVAILABLE", w.getState(), w::toString);
                    assertTrue(w.getLastHeartbeatMillisAgo() >= 0, w::toString);
                }
            }
        } finally {
            release.countDown();
        }
        hang.get(20, TimeUnit.SECONDS);
        await().atMost(WAIT).until(() -> Arrays.stream(proxy.getWorkers()).allMatch(w -> w.getState().equals("AVAILABLE")));
    }

    private List<Notification> listen() {
        List<Notification> received = new CopyOnWriteArrayList<>();
        NotificationListener l = (n, handback) -> received.add(n);
        try {
            server.addNotificationListener(name, l, null, null);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        return received;
    }

    private static AttributeChangeNotification find(List<Notification> received, String attribute) {
        for (Notification n : received) {
            if (n instanceof AttributeChangeNotification
                    && ((AttributeChangeNotification) n).getAttributeName().equals(attribute)) {
                return (AttributeChangeNotification) n;
            }
        }
        return null;
    }

    @Test
    void everySuccessfulWriteSendsAnAttributeChangeNotification() throws Exception {
        List<Notification> received = listen();
        proxy.setStrategy("ROUND_ROBIN");
        proxy.setMeasurement("CPU_TIME");
        proxy.setMedian(true);
        proxy.setTaskStealing(false);
        proxy.setLatencyHistograms(true);
        proxy.setWorkerWeightsMillis(new long[] {7, 7, 7, 7});
        proxy.setMaximumPoolSize(8);
        proxy.setCorePoolSize(6);
        proxy.setMaxLifetimeTasks(100);
        proxy.setMaxConcurrentTasks(4);
        proxy.setHeartbeatTimeoutMillis(1_000);
        proxy.setWorkerSelectTimeoutMillis(0);
        await().atMost(WAIT).until(() -> received.size() == 12);

        AttributeChangeNotification strategy = find(received, "Strategy");
        assertNotNull(strategy);
        assertEquals(AttributeChangeNotification.ATTRIBUTE_CHANGE, strategy.getType());
        assertEquals("LEAST_USED", strategy.getOldValue());
        assertEquals("ROUND_ROBIN", strategy.getNewValue());
        assertEquals(name, strategy.getSource());
        assertEquals("java.lang.String", strategy.getAttributeType());
        assertEquals("RUN_TIME", find(received, "Measurement").getOldValue());
        assertEquals(Boolean.FALSE, find(received, "Median").getOldValue());
        assertEquals(Boolean.TRUE, find(received, "Median").getNewValue());
        assertEquals(Boolean.TRUE, find(received, "TaskStealing").getOldValue());
        assertEquals(Boolean.TRUE, find(received, "LatencyHistograms").getNewValue());
        assertArrayEquals(new long[] {7, 7, 7, 7}, (long[]) find(received, "WorkerWeightsMillis").getNewValue());
        assertEquals(4, find(received, "MaximumPoolSize").getOldValue());
        assertEquals(8, find(received, "MaximumPoolSize").getNewValue());
        assertEquals(6, find(received, "CorePoolSize").getNewValue());
        AttributeChangeNotification lifetime = find(received, "MaxLifetimeTasks");
        assertEquals("int", lifetime.getAttributeType());
        assertEquals(0, lifetime.getOldValue());
        assertEquals(100, lifetime.getNewValue());
        assertEquals(0, find(received, "MaxConcurrentTasks").getOldValue());
        assertEquals(4, find(received, "MaxConcurrentTasks").getNewValue());
        assertEquals("long", find(received, "HeartbeatTimeoutMillis").getAttributeType());
        assertEquals(60_000L, find(received, "HeartbeatTimeoutMillis").getOldValue());
        assertEquals(1_000L, find(received, "HeartbeatTimeoutMillis").getNewValue());
        assertEquals(5_000L, find(received, "WorkerSelectTimeoutMillis").getOldValue());
        assertEquals(0L, find(received, "WorkerSelectTimeoutMillis").getNewValue());
        assertEquals(AttributeChangeNotification.ATTRIBUTE_CHANGE,
                server.getMBeanInfo(name).getNotifications()[0].getNotifTypes()[0]);
    }

    @Test
    void workersAndLatenciesSayNotCollectedUntilSomethingCollectsThem() throws Exception {
        runTasks(pool, 20);
        for (WorkerStats w : proxy.getWorkers()) {
            assertEquals(-1.0, w.getAverageRunTimeMillis(), "LEAST_USED collects no run time");
            assertEquals(-1.0, w.getAverageWaitTimeMillis());
            assertEquals(-1.0, w.getCpuTimeMillis());
            assertEquals(-1.0, w.getMedianRunTimeMillis());
        }
        // Heartbeats are always collected: the housekeeper looks at every worker every 100 ms.
        await().atMost(WAIT).until(() -> Arrays.stream(proxy.getWorkers()).allMatch(w -> w.getLastHeartbeatMillisAgo() >= 0));
        LatencyStats off = proxy.getRunTimeMillis();
        assertEquals(-1, off.getCount());
        assertEquals(-1.0, off.getP99());

        proxy.setLatencyHistograms(true);
        runTasks(pool, 200);
        await().atMost(WAIT).until(() -> proxy.getRunTimeMillis().getCount() > 0);
        LatencyStats on = proxy.getRunTimeMillis();
        assertTrue(on.getP99() >= on.getP50() && on.getMax() >= on.getP99(), on::toString);
        await().atMost(WAIT).until(() -> proxy.getWaitTimeMillis().getCount() > 0);
        long completed = 0;
        for (WorkerStats w : proxy.getWorkers()) {
            assertEquals("AVAILABLE", w.getState());
            assertFalse(w.getThreadName().isEmpty());
            completed += w.getCompleted();
            assertTrue(Double.isNaN(w.getAverageRunTimeMillis()) || w.getAverageRunTimeMillis() >= 0, w::toString);
            assertEquals(-1.0, w.getCpuTimeMillis(), "histograms do not collect CPU time");
        }
        assertTrue(completed > 0);

        proxy.setLatencyHistograms(false);
        proxy.setStrategy("FAIR_SHARE");
        proxy.setMedian(true);
        runTasks(pool, 100);
        await().atMost(WAIT).until(() -> Arrays.stream(proxy.getWorkers())
                .anyMatch(w -> w.getMedianRunTimeMillis() > 0));
        proxy.setStrategy("LEAST_CPU");
        for (WorkerStats w : proxy.getWorkers()) {
            assertEquals(-1.0, w.getAverageWaitTimeMillis(), "LEAST_CPU collects no wait time");
            assertTrue(w.getCpuTimeMillis() >= 0, w::toString);
        }
    }

    @Test
    void rejectionsAreCountedAndStillHandledByThePoolsPolicy() throws Exception {
        TurntableExecutor small = TurntableExecutor.builder().workers(1).queueCapacity(1).build();
        pools.add(small);
        try (TurntableJmx.Registration r = TurntableJmx.register(server, "small", small, small.getTurntableQueue())) {
            assertTrue(r.isRegistered());
            assertInstanceOf(RejectionCounter.class, small.getRejectedExecutionHandler());
            PoolMXBean p = JMX.newMXBeanProxy(server, r.objectName(), PoolMXBean.class);
            assertEquals(0, p.getRejectedTaskCount());
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch started = new CountDownLatch(1);
            small.execute(() -> {
                started.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            assertTrue(started.await(20, TimeUnit.SECONDS));
            small.execute(() -> { });
            assertThrows(RejectedExecutionException.class, () -> small.execute(() -> { }), "AbortPolicy still applies");
            assertEquals(1, p.getRejectedTaskCount());
            release.countDown();
        }
        // Built directly, without the helper's counter: not collected.
        TurntableExecutor plain = newPool(1);
        assertEquals(-1, new PoolAdapter("plain", plain, plain.getTurntableQueue()).getRejectedTaskCount());
    }

    @Test
    void aRegistrationWithItsOwnRejectionCountLeavesTheHandlerAlone() {
        TurntableExecutor other = newPool(1);
        java.util.concurrent.RejectedExecutionHandler handler = other.getRejectedExecutionHandler();
        java.util.concurrent.atomic.AtomicLong counted = new java.util.concurrent.atomic.AtomicLong(7);
        try (TurntableJmx.Registration r = TurntableJmx.register(server, "counted", other, other.getTurntableQueue(),
                counted::get)) {
            assertTrue(r.isRegistered(), r::toString);
            assertTrue(handler == other.getRejectedExecutionHandler(), "the handler is the application's own");
            PoolMXBean p = JMX.newMXBeanProxy(server, r.objectName(), PoolMXBean.class);
            assertEquals(7, p.getRejectedTaskCount());
            counted.set(9);
            assertEquals(9, p.getRejectedTaskCount());
        }
        TurntableJmx.Registration noCounter = TurntableJmx.register(server, "uncounted", other,
                other.getTurntableQueue(), null);
        assertFalse(noCounter.isRegistered());
        assertTrue(noCounter.failure().orElseThrow().contains("rejectedTaskCount"), noCounter.failure().orElseThrow());
    }

    @Test
    void unregisteredWhenThePoolTerminates() {
        assertTrue(server.isRegistered(name));
        pool.shutdown();
        await().atMost(WAIT).until(() -> !server.isRegistered(name));
        assertFalse(registration.isRegistered());
    }

    @Test
    void aPoolDroppedWithoutShutdownIsNotKeptAliveAndItsMBeanGoes() {
        ObjectName dropped = registerIdlePoolAndDropIt();
        await().atMost(WAIT).until(() -> {
            System.gc();
            return !server.isRegistered(dropped);
        });
    }

    /** A pool that never ran a task (so no thread refers to it), registered and then forgotten. */
    private ObjectName registerIdlePoolAndDropIt() {
        ThreadPoolExecutor idle = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS,
                TurntableQueue.builder().expectedWorkers(1).build());
        TurntableJmx.Registration r = TurntableJmx.register(server, "dropped", idle, (TurntableQueue) idle.getQueue(),
                () -> 0L);
        assertTrue(r.isRegistered(), r::toString);
        return r.objectName();
    }

    @Test
    void closeUnregistersAndIsIdempotent() {
        registration.close();
        assertFalse(server.isRegistered(name));
        registration.close();
        assertFalse(registration.isRegistered());
    }

    @Test
    void registrationFailuresAreReturnedNotThrown() {
        TurntableExecutor other = newPool(1);
        TurntableJmx.Registration twice = TurntableJmx.register(server, "orders", other, other.getTurntableQueue());
        assertFalse(twice.isRegistered());
        assertTrue(twice.failure().orElseThrow().contains("orders"), twice.failure().orElseThrow());
        assertFalse(other.getRejectedExecutionHandler() instanceof RejectionCounter, "handler restored");

        TurntableJmx.Registration badName = TurntableJmx.register(server, "orders service", other, other.getTurntableQueue());
        assertFalse(badName.isRegistered());
        assertTrue(badName.failure().orElseThrow().contains("orders service"));

        TurntableJmx.Registration wrongQueue = TurntableJmx.register(server, "mixed", other, pool.getTurntableQueue());
        assertFalse(wrongQueue.isRegistered());
        // a valid name has its object name whatever else failed (null only for a bad name)
        assertEquals(TurntableJmx.poolObjectName("mixed"), wrongQueue.objectName(), wrongQueue::toString);
        assertEquals(null, badName.objectName(), badName::toString);
        badName.close(); // harmless
        assertTrue(registration.isRegistered(), "the first registration is untouched");
    }

    @Test
    void poolNamesAreValidated() {
        for (String ok : List.of("OrderService.start", "orders-2", "a_b", "X")) {
            assertEquals(ok, TurntableJmx.poolObjectName(ok).getKeyProperty("name"));
        }
        for (String bad : new String[] {"", "a b", "a,b", "a=b", "a:b", "a*", "\"q\"", null}) {
            Consumer<String> build = n -> new PoolAdapter(n, pool, pool.getTurntableQueue());
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> build.accept(bad));
            assertTrue(e.getMessage().contains("'" + bad + "'"), e.getMessage());
        }
    }

    // ------------------------------------------------------------------ task classes

    private static final String SHARES = "interactive:3;batch:1";
    private static final String MAP = "interactive-.*:interactive;batch-.*:batch";

    /** A clock for the pool's housekeeping that moves only when the test says so. */
    static final class ManualTicker implements Ticker {
        private final AtomicLong now = new AtomicLong(5_000_000_000L);

        @Override
        public long nanoTime() {
            return now.get();
        }

        void advanceMillis(long ms) {
            now.addAndGet(TimeUnit.MILLISECONDS.toNanos(ms));
        }
    }

    /**
     * A task that holds its worker until its own gate opens. As itself a {@link RestartableTask}
     * (an interrupt stops it early, incomplete, to run again later); {@link #plain()} gives a
     * plain Runnable around it that rebalancing cannot stop.
     */
    static final class Gated implements RestartableTask {
        final CountDownLatch gate = new CountDownLatch(1);
        final AtomicInteger runs = new AtomicInteger();
        final AtomicInteger completions = new AtomicInteger();
        volatile boolean inside;
        volatile boolean complete;

        @Override
        public void run() {
            runs.incrementAndGet();
            inside = true;
            try {
                if (gate.await(30, TimeUnit.SECONDS)) {
                    complete = true;
                    completions.incrementAndGet();
                }
            } catch (InterruptedException stopped) {
                complete = false; // the pool wants the worker back: stop here, run again later
            } finally {
                inside = false;
            }
        }

        @Override
        public boolean isComplete() {
            return complete;
        }

        Runnable plain() {
            return this::run;
        }
    }

    private static List<Gated> gated(int n) {
        List<Gated> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(new Gated());
        }
        return out;
    }

    /** Submits from a thread of this name, so that the name is the tasks' requestor. */
    private static void submitAs(String threadName, TurntableExecutor p, List<? extends Runnable> tasks)
            throws InterruptedException {
        Thread t = new Thread(() -> tasks.forEach(p::execute), threadName);
        t.start();
        t.join(30_000);
        assertFalse(t.isAlive(), threadName + " did not finish submitting");
    }

    /** Opens the gate of one task that is inside its run now (waiting until one is). */
    private static void openOneRunning(List<Gated> tasks) {
        await().atMost(WAIT).until(() -> tasks.stream().anyMatch(t -> t.inside && t.gate.getCount() > 0));
        tasks.stream().filter(t -> t.inside && t.gate.getCount() > 0).findFirst().orElseThrow().gate.countDown();
    }

    private static Map<String, Integer> counts(int interactive, int batch) {
        Map<String, Integer> m = new LinkedHashMap<>();
        m.put("interactive", interactive);
        m.put("batch", batch);
        return m;
    }

    @Test
    void taskClassesAreSetAndCountedThroughJmx() throws Exception {
        await().atMost(WAIT).until(() -> pool.getTurntableQueue().workers().size() == 4);
        assertEquals(Map.of(), proxy.getClassLoadPercents(), "off by default");
        assertEquals(Map.of(), proxy.getRunningTasksByClass());
        assertEquals("THREAD_NAME", proxy.getRequestor());
        assertEquals(0, proxy.getRebalanceThreshold(), "the contract's default: off");
        assertEquals(240_000, proxy.getRebalanceMinimumDurationMillis(), "the contract's default");

        Map<String, Integer> shares = proxy.setClassLoadPercents(SHARES);
        assertEquals(counts(75, 25), shares, "normalised to percents");
        assertEquals(List.of("interactive", "batch"), new ArrayList<>(shares.keySet()), "planner order: share, then name");
        assertEquals(shares, proxy.getClassLoadPercents());
        assertEquals(shares, pool.getTurntableQueue().getClassLoadPercents());
        Map<String, String> map = proxy.setRequestorMap(" interactive-.*:interactive ; batch-.*:batch ");
        assertEquals(List.of("interactive-.*", "batch-.*"), new ArrayList<>(map.keySet()), "the order they are tried in");
        assertEquals(List.of("interactive", "batch"), new ArrayList<>(map.values()));
        assertEquals(map, proxy.getRequestorMap());
        assertEquals(counts(0, 0), proxy.getRunningTasksByClass());
        TabularData raw = (TabularData) server.getAttribute(name, "RunningTasksByClass");
        assertEquals(2, raw.size(), "a generic client sees one row per class");
        assertEquals(0, raw.get(new Object[] {"batch"}).get("value"));

        List<Gated> batch = gated(8);
        List<Gated> interactive = gated(8);
        List<Runnable> plainBatch = new ArrayList<>();
        batch.forEach(t -> plainBatch.add(t.plain()));
        List<Runnable> plainInteractive = new ArrayList<>();
        interactive.forEach(t -> plainInteractive.add(t.plain()));
        submitAs("batch-submitter", pool, plainBatch);
        await().atMost(WAIT).until(() -> proxy.getRunningTasksByClass().equals(counts(0, 4)));
        assertEquals(counts(0, 4), proxy.getWaitingTasksByClass(), "batch alone borrows every worker");
        submitAs("interactive-submitter", pool, plainInteractive);
        assertEquals(counts(8, 4), proxy.getWaitingTasksByClass());

        // Each batch task that ends hands its worker to interactive, until interactive has its 75%.
        for (int i = 1; i <= 3; i++) {
            openOneRunning(batch);
            int started = i;
            await().atMost(WAIT).until(() -> proxy.getRunningTasksByClass().equals(counts(started, 4 - started)));
        }
        assertEquals(counts(5, 4), proxy.getWaitingTasksByClass());
        openOneRunning(batch); // batch back at its entitlement: the next batch task takes the worker
        await().atMost(WAIT).until(() -> proxy.getWaitingTasksByClass().equals(counts(5, 3)));
        assertEquals(counts(3, 1), proxy.getRunningTasksByClass());

        batch.forEach(t -> t.gate.countDown());
        interactive.forEach(t -> t.gate.countDown());
        await().atMost(WAIT).until(() -> proxy.getCompletedTaskCount() == 16);
        for (Gated t : batch) {
            assertEquals(1, t.completions.get(), "every task completes once");
        }
        for (Gated t : interactive) {
            assertEquals(1, t.completions.get(), "every task completes once");
        }
        await().atMost(WAIT).until(() -> proxy.getRunningTasksByClass().equals(counts(0, 0)));

        assertEquals(Map.of(), proxy.setClassLoadPercents("  "), "blank switches classes off");
        assertEquals(Map.of(), proxy.getClassLoadPercents());
        assertEquals(Map.of(), proxy.getRequestorMap());
        assertEquals(Map.of(), proxy.getWaitingTasksByClass());
        assertEquals(40, runAndSum(pool, 40) / 6, "and tasks run as before");
    }

    @Test
    void classSettingsWriteThroughAndTheOperationsAnnounceWhatChanged() throws Exception {
        List<Notification> received = listen();
        proxy.setRequestor("pool-name");
        assertEquals("POOL_NAME", pool.getTurntableQueue().getRequestor());
        proxy.setRebalanceThreshold(20);
        assertEquals(20, pool.getTurntableQueue().getRebalanceThreshold());
        proxy.setRebalanceMinimumDurationMillis(1_500);
        assertEquals(1_500, pool.getTurntableQueue().getRebalanceMinimumDurationMillis());
        Map<String, Integer> both = proxy.setTaskClasses("web:1;reports:1", "orders:web");
        assertEquals(Map.of("reports", 50, "web", 50), both);
        assertEquals(Map.of("orders", "web"), proxy.getRequestorMap());
        assertEquals(20, pool.getTurntableQueue().classConfig().rebalanceThresholdPercent(), "settings made before apply");
        proxy.setClassLoadPercents("web:9;reports:1");
        proxy.setRequestorMap("");
        await().atMost(WAIT).until(() -> received.size() == 7);

        AttributeChangeNotification requestor = find(received, "Requestor");
        assertEquals("THREAD_NAME", requestor.getOldValue());
        assertEquals("POOL_NAME", requestor.getNewValue());
        assertEquals("int", find(received, "RebalanceThreshold").getAttributeType());
        assertEquals(0, find(received, "RebalanceThreshold").getOldValue());
        assertEquals(20, find(received, "RebalanceThreshold").getNewValue());
        assertEquals(240_000L, find(received, "RebalanceMinimumDurationMillis").getOldValue());
        assertEquals(1_500L, find(received, "RebalanceMinimumDurationMillis").getNewValue());

        List<AttributeChangeNotification> percents = changes(received, "ClassLoadPercents");
        assertEquals(2, percents.size(), received.toString());
        assertEquals("", percents.get(0).getOldValue(), "off");
        assertEquals("reports:50;web:50", percents.get(0).getNewValue());
        assertEquals("ClassLoadPercents of pool orders set from off to reports:50;web:50", percents.get(0).getMessage());
        assertEquals("web:90;reports:10", percents.get(1).getNewValue(), "normalised, as the attribute reads");
        List<AttributeChangeNotification> maps = changes(received, "RequestorMap");
        assertEquals(2, maps.size(), "the shares alone left the map as it was: " + received);
        assertEquals("orders:web", maps.get(0).getNewValue());
        assertEquals("RequestorMap of pool orders set from orders:web to none", maps.get(1).getMessage());
    }

    private static List<AttributeChangeNotification> changes(List<Notification> received, String attribute) {
        List<AttributeChangeNotification> out = new ArrayList<>();
        for (Notification n : received) {
            if (n instanceof AttributeChangeNotification
                    && ((AttributeChangeNotification) n).getAttributeName().equals(attribute)) {
                out.add((AttributeChangeNotification) n);
            }
        }
        return out;
    }

    @Test
    void badClassWritesAreRefusedWithTheEnginesReasonAndChangeNothing() throws Exception {
        // Every worker registered first: a worker joining in between would change the values compared.
        awaitEveryWorkerRegistered();
        List<Notification> received = listen();
        assertRefused("needs task classes: set class-load-percents first", () -> proxy.setRequestorMap(MAP));
        assertRefused("share '-1' of class 'a' is not allowed: an integer from 0 to 1000000",
                () -> proxy.setClassLoadPercents("a:-1"));
        assertRefused("share '1000001' of class 'a'", () -> proxy.setClassLoadPercents("a:1000001"));
        assertRefused("entry 'interactive' has no ':'", () -> proxy.setClassLoadPercents("interactive"));
        assertRefused("names class 'a' twice", () -> proxy.setClassLoadPercents("a:1;a:2"));
        assertRefused("class name 'a b'", () -> proxy.setClassLoadPercents("a b:1"));
        assertRefused("gives every class 0", () -> proxy.setClassLoadPercents("a:0;b:0"));
        assertRefused("below 1% of the total", () -> proxy.setClassLoadPercents("a:1000;b:1"));
        assertRefused("which is not in class-load-percents", () -> proxy.setTaskClasses("a:1", "x-.*:b"));
        assertRefused("requestor-map regex 'x(' is not a valid", () -> proxy.setTaskClasses("a:1", "x(:a"));
        assertRefused("requestor 'THREAD' is not one of", () -> proxy.setRequestor("THREAD"));
        assertRefused("requestor 'null'", () -> proxy.setRequestor(null));
        assertRefused("rebalance threshold 201 is not allowed: percentage points from 0 (off) to 200",
                () -> proxy.setRebalanceThreshold(201));
        assertRefused("rebalance threshold -1", () -> proxy.setRebalanceThreshold(-1));
        assertRefused("rebalance-min-duration-ms -1 must be 0 or positive",
                () -> proxy.setRebalanceMinimumDurationMillis(-1));
        assertEquals(List.of(), received, "a refused write sends nothing");

        proxy.setTaskClasses(SHARES, MAP);
        received.clear();
        assertRefused("names class 'interactive', which is not in class-load-percents",
                () -> proxy.setClassLoadPercents("batch:1;reports:1"));
        assertRefused("entry 'nocolon' has no ':'", () -> proxy.setRequestorMap("nocolon"));
        assertRefused("names class 'reports'", () -> proxy.setRequestorMap("r-.*:reports"));
        // Through the generic JMX path, as a console invokes it.
        Map<String, Object> before = writableValues();
        Exception e = assertThrows(Exception.class, () -> server.invoke(name, "setClassLoadPercents",
                new Object[] {"a:x"}, new String[] {String.class.getName()}));
        assertInstanceOf(IllegalArgumentException.class, e.getCause(), e.toString());
        assertTrue(e.getCause().getMessage().contains("share 'x' of class 'a'"), e.getCause().getMessage());
        assertEquals(before, writableValues());
        assertEquals(List.of(), received, "a refused operation sends nothing");
    }

    /**
     * Switching classes off with {@code setTaskClasses("", map)} used to drop the map unread, even a
     * malformed one: the caller got no word that it was not applied. A map is refused there, as
     * {@code setRequestorMap} refuses one while classes are off; switching off without one still works.
     */
    @Test
    void switchingClassesOffWithARequestorMapIsRefusedAndChangesNothing() {
        awaitEveryWorkerRegistered();
        proxy.setTaskClasses(SHARES, MAP);
        List<Notification> received = listen();
        assertRefused("requestor-map 'x(:a' needs task classes, but class-load-percents '' switches them off",
                () -> proxy.setTaskClasses("", "x(:a"));
        assertRefused("requestor-map 'report-.*:batch' needs task classes, but class-load-percents ' '",
                () -> proxy.setTaskClasses(" ", "report-.*:batch"));
        assertRefused("requestor-map 'report-.*:batch' needs task classes, but class-load-percents 'null'",
                () -> proxy.setTaskClasses(null, "report-.*:batch"));
        assertEquals(List.of(), received, "a refused write sends nothing");

        proxy.setTaskClasses("", " ; ");
        assertEquals(Map.of(), proxy.getClassLoadPercents(), "an empty map switches off");
        proxy.setTaskClasses(SHARES, MAP);
        proxy.setClassLoadPercents("");
        assertEquals(Map.of(), proxy.getClassLoadPercents(), "switching off by shares alone drops the kept map");
        assertEquals(Map.of(), proxy.getRequestorMap());
    }

    /**
     * A regex given twice can never send anything to the second class (the first entry always wins),
     * and {@code RequestorMap}, keyed by regex, could show only one of them: it would name the class
     * that does not get the tasks. Such a map is refused.
     */
    @Test
    void aRequestorMapThatNamesOneRegexTwiceIsRefusedAndChangesNothing() {
        awaitEveryWorkerRegistered();
        proxy.setTaskClasses(SHARES, MAP);
        List<Notification> received = listen();
        assertRefused("requestor-map names regex 'batch-.*' twice",
                () -> proxy.setRequestorMap("batch-.*:batch;interactive-.*:interactive;batch-.*:interactive"));
        assertRefused("requestor-map names regex 'x' twice", () -> proxy.setTaskClasses("a:1;b:1", "x:a; x :b"));
        assertEquals(Map.of("interactive-.*", "interactive", "batch-.*", "batch"), proxy.getRequestorMap());
        assertEquals(List.of(), received, "a refused write sends nothing");
    }

    /** All four workers registered: one joining later would change the values a test compares. */
    private void awaitEveryWorkerRegistered() {
        await().atMost(WAIT).until(() -> pool.getTurntableQueue().workers().size() == 4
                && pool.getTurntableQueue().workers().stream().noneMatch(w -> w.threadName().isEmpty()));
    }

    private static List<Notification> rebalances(List<Notification> received) {
        List<Notification> out = new ArrayList<>();
        for (Notification n : received) {
            if (n.getType().equals(PoolAdapter.REBALANCE)) {
                out.add(n);
            }
        }
        return out;
    }

    /**
     * Batch borrows every worker; interactive arrives; once the spread has stayed above the
     * threshold for the minimum duration (on a clock the test moves), three restartable batch tasks
     * are stopped, interactive gets its three workers, and one notification says so.
     */
    @Test
    void aRebalanceIsAnnouncedWithTheSpreadAndTheTasksItStopped() throws Exception {
        ManualTicker ticker = new ManualTicker();
        TurntableExecutor classed = TurntableExecutor.builder().workers(4).ticker(ticker).heartbeatTimeoutMillis(0)
                .taskClasses(SHARES, MAP).build();
        pools.add(classed);
        try (TurntableJmx.Registration r = TurntableJmx.register(server, "classed", classed, classed.getTurntableQueue())) {
            PoolMXBean p = JMX.newMXBeanProxy(server, r.objectName(), PoolMXBean.class, true);
            List<Notification> received = new CopyOnWriteArrayList<>();
            server.addNotificationListener(r.objectName(), (n, h) -> received.add(n), null, null);
            p.setRebalanceThreshold(20);
            p.setRebalanceMinimumDurationMillis(60_000);
            await().atMost(WAIT).until(() -> classed.getTurntableQueue().workers().size() == 4);

            List<Gated> batch = gated(6);
            List<Gated> interactive = gated(6);
            List<Runnable> plainInteractive = new ArrayList<>();
            interactive.forEach(t -> plainInteractive.add(t.plain()));
            submitAs("batch-submitter", classed, batch);
            await().atMost(WAIT).until(() -> p.getRunningTasksByClass().equals(counts(0, 4)));
            submitAs("interactive-submitter", classed, plainInteractive);
            // Every offer was a pass over the threshold, but the pool's clock has not moved.
            assertEquals(counts(0, 4), p.getRunningTasksByClass());
            assertEquals(List.of(), rebalances(received));

            ticker.advanceMillis(60_001); // the housekeeper's next pass (every 100 ms) rebalances
            await().atMost(WAIT).until(() -> rebalances(received).size() == 1);
            Notification n = rebalances(received).get(0);
            assertEquals("rebalanced: spread 150 pp > 20; stopped batch 3 of 3", n.getMessage());
            assertEquals(r.objectName(), n.getSource());
            CompositeData d = (CompositeData) n.getUserData();
            assertEquals(PoolAdapter.REBALANCE_TYPE, d.getCompositeType());
            assertEquals(150, d.get("deltaSpreadPercent"), "interactive 75 - 0, batch 25 - 100");
            assertEquals(20, d.get("thresholdPercent"));
            assertEquals("batch:3", d.get("tasksToStop"));
            assertEquals("batch:3", d.get("tasksStopped"));
            await().atMost(WAIT).until(() -> p.getRunningTasksByClass().equals(counts(3, 1)));

            batch.forEach(t -> t.gate.countDown());
            interactive.forEach(t -> t.gate.countDown());
            await().atMost(WAIT).until(() -> batch.stream().allMatch(t -> t.completions.get() == 1)
                    && interactive.stream().allMatch(t -> t.completions.get() == 1));
            assertEquals(3, batch.stream().mapToInt(t -> t.runs.get() - 1).sum(), "the three stopped ran again");
            await().atMost(WAIT).until(() -> p.getRunningTasksByClass().equals(counts(0, 0)));
            assertTrue(batch.stream().allMatch(t -> t.completions.get() == 1), "and completed once");
            assertEquals(1, rebalances(received).size());
        }
    }
}
