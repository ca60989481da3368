package dev.turntable.agent;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.jmx.PoolMXBean;
import dev.turntable.jmx.TurntableJmx;
import dev.turntable.pool.ServiceThreads;
import java.lang.management.ManagementFactory;
import java.lang.ref.WeakReference;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import javax.management.JMX;
import javax.management.MBeanServer;
import javax.management.MBeanServerDelegate;
import javax.management.MBeanServerFactory;
import javax.management.MBeanServerNotification;
import javax.management.NotificationFilterSupport;
import javax.management.NotificationListener;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class AgentJmxTest {

    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    private final ObjectName name;

    AgentJmxTest() throws Exception {
        name = new ObjectName(AgentJmx.OBJECT_NAME);
    }

    @AfterEach
    void unregister() throws Exception {
        if (server.isRegistered(name)) {
            server.unregisterMBean(name);
        }
    }

    @Test
    void theAgentMBeanShowsVersionOptionsAndAPoolsTable() throws Exception {
        Options options = OptionsParser.parse("strategy=FAIR_SHARE", new Properties()).options();
        PoolRegistry registry = new PoolRegistry();
        Object a = new Object();
        Object b = new Object();
        registry.register(a, new PoolRecord("Orders.start", "com.acme.Orders.start", true, "LinkedBlockingQueue, unbounded", "x", null));
        registry.register(b, new PoolRecord("HttpClientImpl.new", "jdk.internal.net.http.HttpClientImpl.<init>", false,
                "created by the JDK", "x", null));
        new AgentJmx(options, registry).register();

        assertTrue(server.isRegistered(name));
        assertTrue(((String) server.getAttribute(name, "Version")).matches("\\d+\\.\\d+\\.\\d+.*"));
        assertTrue(((String) server.getAttribute(name, "Options")).contains("strategy=FAIR_SHARE\n"));
        CompositeData[] rows = (CompositeData[]) server.getAttribute(name, "Pools");
        assertEquals(2, rows.length);
        assertEquals("Orders.start", rows[0].get("name"));
        assertEquals("com.acme.Orders.start", rows[0].get("creationSite"));
        assertEquals(true, rows[0].get("managed"));
        assertEquals("LinkedBlockingQueue, unbounded", rows[0].get("reason"));
        assertEquals(false, rows[1].get("managed"));

        // a typed MXBean proxy (what a Java client would use) reads the same table
        AgentMXBean proxy = JMX.newMXBeanProxy(server, name, AgentMXBean.class);
        assertEquals("created by the JDK", proxy.getPools()[1].getReason());
        assertEquals(List.of(a, b).size(), proxy.getPools().length);
    }

    @Test
    void aManagedPoolGetsAPoolMBeanWithTheRecordsRejectionCountAndItsOwnHandler() throws Exception {
        Options options = Options.defaults();
        PoolRegistry registry = new PoolRegistry();
        Takeover takeover = new Takeover(options, registry, () -> { });
        CreationSite site = CreationSite.of(List.of(
                new CreationSite.Frame(ThreadPoolExecutor.class.getName(), "<init>", ThreadPoolExecutor.class),
                new CreationSite.Frame("com.acme.Billing", "start", null)));
        Takeover.Decision d = takeover.decide(site, new LinkedBlockingQueue<Runnable>(), 1, 1);
        RejectedExecutionHandler handler = new ThreadPoolExecutor.DiscardPolicy();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, d.queue(), handler);
        registry.register(pool, d.record());
        ObjectName poolName = TurntableJmx.poolObjectName("Billing.start");
        try {
            new AgentJmx(options, registry).poolManaged(pool, d.record());
            await().atMost(Duration.ofSeconds(20)).until(() -> server.isRegistered(poolName));
            assertTrue(server.isRegistered(name), "the Agent MBean comes first");
            PoolMXBean mbean = JMX.newMXBeanProxy(server, poolName, PoolMXBean.class);
            assertEquals(options.strategy(), mbean.getStrategy());
            assertEquals(0, mbean.getRejectedTaskCount());
            registry.countRejection(pool); // what the hook in ThreadPoolExecutor.reject does
            assertEquals(1, mbean.getRejectedTaskCount());
            assertSame(handler, pool.getRejectedExecutionHandler(), "the application's handler is untouched");
            // the registration thread ends once no pool comes for a while: no thread of the agent's stays
            await().atMost(Duration.ofSeconds(20)).until(() -> Thread.getAllStackTraces().keySet().stream()
                    .noneMatch(t -> t.getName().equals(AgentJmx.THREAD_NAME)));
        } finally {
            pool.shutdownNow();
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> !server.isRegistered(poolName));
    }

    @Test
    void withoutTheRejectAdviceTheCountReadsNotCollected() throws Exception {
        Options options = Options.defaults();
        PoolRegistry registry = new PoolRegistry();
        CreationSite site = CreationSite.of(List.of(
                new CreationSite.Frame(ThreadPoolExecutor.class.getName(), "<init>", ThreadPoolExecutor.class),
                new CreationSite.Frame("com.acme.Billing", "other", null)));
        Takeover.Decision d = new Takeover(options, registry, () -> { })
                .decide(site, new LinkedBlockingQueue<Runnable>(), 1, 1);
        ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, d.queue());
        try (TurntableJmx.Registration r = new AgentJmx(options, registry, false).registerPool(pool, d.record())) {
            assertTrue(r.isRegistered(), r::toString);
            assertEquals(-1L, server.getAttribute(r.objectName(), "RejectedTaskCount"));
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void theOptionsSayWhenMaxLifetimeTasksCannotTakeEffect() throws Exception {
        Options options = OptionsParser.parse("max-lifetime-tasks=10", new Properties()).options();
        Retirement unavailable = new Retirement("ThreadPoolExecutor has no runWorker(Worker)");
        new AgentJmx(options, new PoolRegistry(), true, unavailable).register();
        String text = (String) server.getAttribute(name, "Options");
        assertTrue(text.contains("max-lifetime-tasks=10 (stays 0: worker retirement is unavailable: ThreadPoolExecutor"
                + " has no runWorker(Worker))\n"), text);
        server.unregisterMBean(name);

        new AgentJmx(options, new PoolRegistry(), true, Retirement.installed()).register();
        assertTrue(((String) server.getAttribute(name, "Options")).contains("max-lifetime-tasks=10\n"));
    }

    /**
     * An application that builds a pool per request must not pay for an MBean per pool: a pool
     * gets its MBean only once it is {@link AgentJmx#REGISTER_AFTER_MILLIS} old, so one that
     * terminated before then never appears, while one that lives does. The pools' age is read
     * on a clock the test moves.
     */
    @Test
    void aPoolThatTerminatesYoungNeverGetsAnMBeanAndOneThatLivesDoes() throws Exception {
        JmxOnATestClock jmx = new JmxOnATestClock();
        ObjectName briefName = TurntableJmx.poolObjectName("Billing.brief");
        ObjectName lastingName = TurntableJmx.poolObjectName("Billing.lasting");
        List<ObjectName> registered = new CopyOnWriteArrayList<>();
        NotificationListener listener = (n, handback) -> registered.add(((MBeanServerNotification) n).getMBeanName());
        NotificationFilterSupport registrations = new NotificationFilterSupport();
        registrations.enableType(MBeanServerNotification.REGISTRATION_NOTIFICATION);
        server.addNotificationListener(MBeanServerDelegate.DELEGATE_NAME, listener, registrations, null);
        ThreadPoolExecutor brief = jmx.pool("brief");
        ThreadPoolExecutor lasting = jmx.pool("lasting");
        try {
            brief.execute(() -> { });
            brief.shutdown();
            assertTrue(brief.awaitTermination(20, TimeUnit.SECONDS));

            await().atMost(Duration.ofSeconds(20)).until(() -> server.isRegistered(name)); // the thread runs
            // However long we wait on the real clock, the pools are younger than the delay on theirs.
            await().during(Duration.ofMillis(3 * AgentJmx.REGISTER_AFTER_MILLIS)).atMost(Duration.ofSeconds(20))
                    .until(() -> !server.isRegistered(lastingName));

            jmx.letPoolsComeDue();
            await().atMost(Duration.ofSeconds(20)).until(() -> server.isRegistered(lastingName));
            assertTrue(!registered.contains(briefName) && !server.isRegistered(briefName),
                    "the pool that terminated young got no MBean: " + registered);
            // and the thread still ends once no pool comes, whatever the pools' clock says
            await().atMost(Duration.ofSeconds(20)).until(() -> Thread.getAllStackTraces().keySet().stream()
                    .noneMatch(t -> t.getName().equals(AgentJmx.THREAD_NAME)));
        } finally {
            jmx.letPoolsComeDue(); // failed early: let the thread finish and end anyway
            server.removeNotificationListener(MBeanServerDelegate.DELEGATE_NAME, listener);
            lasting.shutdownNow();
            brief.shutdownNow();
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> !server.isRegistered(lastingName));
    }

    /**
     * Code that interrupts every thread it finds (a test harness, a container tidying up) must
     * not cost a waiting pool its MBean: the registration thread used to end on an interrupt,
     * leaving queued pools unregistered until some other pool came.
     */
    @Test
    void anInterruptedRegistrationThreadStillRegistersTheWaitingPool() throws Exception {
        JmxOnATestClock jmx = new JmxOnATestClock();
        ObjectName waitingName = TurntableJmx.poolObjectName("Billing.waiting");
        ThreadPoolExecutor waiting = jmx.pool("waiting");
        try {
            await().atMost(Duration.ofSeconds(20)).until(() -> server.isRegistered(name)); // the thread runs
            Set<Thread> interrupted = new HashSet<>();
            // The pool's clock stands still, so its thread is asleep waiting for it to come due.
            await().atMost(Duration.ofSeconds(20)).until(() -> {
                for (Thread t : Thread.getAllStackTraces().keySet()) {
                    if (t.getName().equals(AgentJmx.THREAD_NAME) && interrupted.add(t)) {
                        t.interrupt();
                    }
                }
                return !interrupted.isEmpty();
            });
            assertTrue(!server.isRegistered(waitingName), "not due yet on the pool's clock");

            jmx.letPoolsComeDue();
            await().atMost(Duration.ofSeconds(20)).until(() -> server.isRegistered(waitingName));
        } finally {
            jmx.letPoolsComeDue(); // failed early: let the thread finish and end anyway
            waiting.shutdownNow();
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> !server.isRegistered(waitingName));
    }

    /**
     * A security manager's policy that will not let some MBeans be registered, as
     * {@code MBeanPermission} names them: an MBean server (a fresh one, not the platform's) whose
     * {@code registerMBean} refuses those names, and counts each try.
     */
    private static final class RefusingPolicy {
        final MBeanServer inner = MBeanServerFactory.newMBeanServer();
        final Set<ObjectName> refused = ConcurrentHashMap.newKeySet();
        final Map<ObjectName, AtomicInteger> tries = new ConcurrentHashMap<>();
        final MBeanServer server = (MBeanServer) Proxy.newProxyInstance(AgentJmxTest.class.getClassLoader(),
                new Class<?>[] {MBeanServer.class}, (proxy, method, args) -> {
                    if (method.getName().equals("registerMBean")) {
                        ObjectName n = (ObjectName) args[1];
                        tries.computeIfAbsent(n, k -> new AtomicInteger()).incrementAndGet();
                        if (refused.contains(n)) {
                            throw new SecurityException("access denied (\"javax.management.MBeanPermission\" " + n
                                    + " registerMBean)");
                        }
                    }
                    try {
                        return method.invoke(inner, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });

        RefusingPolicy(ObjectName... refusing) {
            refused.addAll(List.of(refusing));
        }

        int tries(ObjectName n) {
            AtomicInteger t = tries.get(n);
            return t == null ? 0 : t.get();
        }
    }

    /**
     * A policy that refuses the Agent MBean and two pools' MBeans, then lets one pool's through:
     * the retries, on the agent's clock, register that one; ten minutes after the first refusal
     * the agent gives up on the others with one line that also counts what the retries
     * registered, and tries a given-up pool no more, not even with a later refusal's retries. The
     * Agent MBean, given up on too, is tried again with the next pool, and registered once the
     * policy allows it. Each try after the first waits twice as long as the one before.
     */
    @Test
    void refusedRegistrationsAreRetriedThenGivenUpAfterTenMinutesSayingWhatTheRetriesRegistered() throws Exception {
        ObjectName keptName = TurntableJmx.poolObjectName("Billing.kept");
        ObjectName liftedName = TurntableJmx.poolObjectName("Billing.lifted");
        ObjectName nextName = TurntableJmx.poolObjectName("Billing.next");
        RefusingPolicy policy = new RefusingPolicy(name, keptName, liftedName);
        List<String> lines = new CopyOnWriteArrayList<>();
        JmxOnATestClock jmx = new JmxOnATestClock(() -> policy.server, lines::add);
        List<ThreadPoolExecutor> pools = new CopyOnWriteArrayList<>();
        try {
            pools.add(jmx.pool("kept"));
            pools.add(jmx.pool("lifted"));
            // The first refusal, the Agent MBean's, before the clock moves: the retries count from it.
            await().atMost(Duration.ofSeconds(20)).until(() -> lines.size() == 1);
            jmx.letPoolsComeDue();
            await().atMost(Duration.ofSeconds(20)).until(() -> policy.tries(keptName) == 1 && policy.tries(liftedName) == 1);
            assertEquals(1, policy.tries(name));
            assertEquals(1, lines.size(), lines::toString);
            assertTrue(lines.get(0).startsWith("a security manager refused registering MBeans (java.lang.SecurityException:"
                    + " access denied (\"javax.management.MBeanPermission\" dev.turntable:type=Agent registerMBean));"
                    + " trying again in 1 s, then less often, for 10 min"), lines::toString);

            policy.refused.remove(liftedName);
            jmx.advanceMillis(AgentJmx.RETRY_FIRST_MILLIS - AgentJmx.REGISTER_AFTER_MILLIS - 1);
            await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(20)).until(() -> policy.tries(liftedName) == 1);
            jmx.advanceMillis(1);
            await().atMost(Duration.ofSeconds(20)).until(() -> policy.inner.isRegistered(liftedName));
            assertEquals(2, policy.tries(keptName), "the refused pool was tried again with it");
            assertEquals(2, policy.tries(name), "and the Agent MBean");

            // The next try waits twice as long: 2 s.
            jmx.advanceMillis(2 * AgentJmx.RETRY_FIRST_MILLIS - 1);
            await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(20)).until(() -> policy.tries(keptName) == 2);
            jmx.advanceMillis(1);
            await().atMost(Duration.ofSeconds(20)).until(() -> policy.tries(keptName) == 3 && policy.tries(name) == 3);

            jmx.advanceMillis(AgentJmx.RETRY_GIVE_UP_MILLIS);
            await().atMost(Duration.ofSeconds(20)).until(() -> lines.size() == 2);
            assertEquals("gave up registering 2 MBeans that a security manager kept refusing; the pools run without"
                    + " them (registered what a security manager had refused: 1 pool MBean)", lines.get(1));
            int keptTries = policy.tries(keptName);

            // The policy changes: the Agent MBean and the given-up pool would be let through now,
            // the next pool not yet. Built at once, the next pool keeps the registration thread.
            policy.refused.clear();
            policy.refused.add(nextName);
            pools.add(jmx.pool("next"));
            jmx.letPoolsComeDue();
            await().atMost(Duration.ofSeconds(20)).until(() -> policy.tries(nextName) == 1);
            assertTrue(policy.inner.isRegistered(name), "the Agent MBean given up on was tried with the next pool");
            await().atMost(Duration.ofSeconds(20)).until(() -> lines.size() == 3);
            assertTrue(lines.get(2).startsWith("a security manager refused registering MBeans"), lines::toString);
            policy.refused.clear();
            jmx.advanceMillis(AgentJmx.RETRY_FIRST_MILLIS);
            await().atMost(Duration.ofSeconds(20)).until(() -> policy.inner.isRegistered(nextName));
            await().atMost(Duration.ofSeconds(20)).until(() -> lines.size() == 4);
            assertEquals("registered what a security manager had refused: 1 pool MBean", lines.get(3),
                    "the new refusal's retries tried the next pool alone");
            assertEquals(keptTries, policy.tries(keptName), "a pool given up on is not tried again");
            assertTrue(!policy.inner.isRegistered(keptName));
        } finally {
            jmx.letPoolsComeDue(); // failed early: let the thread finish and end anyway
            policy.refused.clear();
            jmx.advanceMillis(AgentJmx.RETRY_GIVE_UP_MILLIS + 1);
            pools.forEach(ThreadPoolExecutor::shutdownNow);
        }
    }

    /**
     * An application pool whose class overrides {@code isTerminated()} with one that throws until
     * its own shutdown still gets its MBean, with no line (before, the registration failed with
     * one saying the pool was "left untouched", though it ran on the engine), and the MBean goes
     * once the pool has shut down and terminated.
     */
    @Test
    void aPoolWhoseIsTerminatedThrowsGetsItsMBeanQuietly() throws Exception {
        RefusingPolicy open = new RefusingPolicy();
        List<String> lines = new CopyOnWriteArrayList<>();
        JmxOnATestClock jmx = new JmxOnATestClock(() -> open.server, lines::add);
        ObjectName poolName = TurntableJmx.poolObjectName("Billing.strict");
        CreationSite site = CreationSite.of(List.of(
                new CreationSite.Frame(ThreadPoolExecutor.class.getName(), "<init>", ThreadPoolExecutor.class),
                new CreationSite.Frame("com.acme.Billing", "strict", null)));
        Takeover.Decision d = jmx.takeover.decide(site, new LinkedBlockingQueue<Runnable>(), 1, 1);
        ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, d.queue()) {
            private volatile boolean shutDown;

            @Override
            public void shutdown() {
                shutDown = true;
                super.shutdown();
            }

            @Override
            public boolean isTerminated() {
                if (!shutDown) {
                    throw new IllegalStateException("not shut down yet");
                }
                return super.isTerminated();
            }
        };
        jmx.registry.register(pool, d.record());
        jmx.jmx.poolManaged(pool, d.record());
        try {
            jmx.letPoolsComeDue();
            await().atMost(Duration.ofSeconds(20)).until(() -> open.inner.isRegistered(poolName));
            assertEquals(List.of(), lines);
        } finally {
            pool.shutdown();
        }
        assertTrue(pool.awaitTermination(20, TimeUnit.SECONDS));
        await().atMost(Duration.ofSeconds(20)).until(() -> !open.inner.isRegistered(poolName));
    }

    /** The agent's JMX side with default options, reading the pools' age on a clock the test moves. */
    private static final class JmxOnATestClock {
        private final Options options = Options.defaults();
        private final PoolRegistry registry = new PoolRegistry();
        private final Takeover takeover = new Takeover(options, registry, () -> { });
        private final AtomicLong clockNanos = new AtomicLong(1_000_000_000L);
        private final long registerAfterNanos = TimeUnit.MILLISECONDS.toNanos(AgentJmx.REGISTER_AFTER_MILLIS);
        private final AgentJmx jmx;

        JmxOnATestClock() {
            this(ManagementFactory::getPlatformMBeanServer, Log::line);
        }

        /** Registering in {@code servers}' server, its lines to {@code log}. */
        JmxOnATestClock(Supplier<MBeanServer> servers, Consumer<String> log) {
            jmx = new AgentJmx(options, registry, true, null, clockNanos::get, registerAfterNanos, servers, log);
        }

        /** Moves the clock on by {@code millis}. */
        void advanceMillis(long millis) {
            clockNanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(millis));
        }

        /** A pool built at {@code com.acme.Billing.<method>} and handed to this JMX side. */
        ThreadPoolExecutor pool(String method) {
            return managedPool(jmx, takeover, registry, method);
        }

        /** Moves the clock past the registration delay of every pool built so far. */
        void letPoolsComeDue() {
            clockNanos.addAndGet(registerAfterNanos);
        }
    }

    /** A pool built as the agent builds one at {@code com.acme.Billing.<method>}, handed to {@code jmx}. */
    private static ThreadPoolExecutor managedPool(AgentJmx jmx, Takeover takeover, PoolRegistry registry, String method) {
        CreationSite site = CreationSite.of(List.of(
                new CreationSite.Frame(ThreadPoolExecutor.class.getName(), "<init>", ThreadPoolExecutor.class),
                new CreationSite.Frame("com.acme.Billing", method, null)));
        Takeover.Decision d = takeover.decide(site, new LinkedBlockingQueue<Runnable>(), 1, 1);
        ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, d.queue());
        registry.register(pool, d.record());
        jmx.poolManaged(pool, d.record());
        return pool;
    }

    /**
     * The registration thread lingers while pools keep coming, whichever application builds them;
     * started on a web application's thread, it must not keep that application's class loader (as
     * its context class loader, say) once the application is undeployed. The pool's clock stands
     * still, so its MBean never comes due and the thread stays throughout.
     */
    @Test
    void theRegistrationThreadKeepsNoClassLoaderOfTheThreadThatStartedIt() throws Exception {
        JmxOnATestClock jmx = new JmxOnATestClock();
        Set<Thread> earlier = registrationThreads();
        AtomicReference<ThreadPoolExecutor> pool = new AtomicReference<>();
        try {
            WeakReference<ClassLoader> webApp = new WeakReference<>(managedOnAWebApplicationsThread(jmx, "perRequest", pool));
            Set<Thread> started = registrationThreads();
            started.removeAll(earlier);
            assertEquals(1, started.size(), started::toString);
            Thread registration = started.iterator().next();
            await().atMost(Duration.ofSeconds(20)).until(() -> server.isRegistered(name)); // it ran

            awaitCollected(webApp); // the web application is undeployed: its loader must go
            assertTrue(registration.isAlive(), "the thread lingered throughout");
            assertNull(registration.getContextClassLoader());
        } finally {
            jmx.letPoolsComeDue(); // the pool comes due: the thread registers it and ends
            if (pool.get() != null) {
                pool.get().shutdownNow();
            }
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> registrationThreads().stream().allMatch(earlier::contains));
    }

    /**
     * The registration thread's first call for the platform MBean server, which may create it
     * (loading an {@code MBeanServerBuilder} or {@code LogManager} the application names through
     * the context class loader), runs with the context class loader of the thread that built the
     * pool, and the registrations after it with none. Seen by a listener of the server's
     * registration notifications, which the registering thread calls.
     */
    @Test
    void theAgentMBeanIsRegisteredWithThePoolBuildersContextLoaderAndPoolMBeansWithNone() throws Exception {
        JmxOnATestClock jmx = new JmxOnATestClock();
        ObjectName poolName = TurntableJmx.poolObjectName("Billing.loaders");
        List<String> seen = new CopyOnWriteArrayList<>(); // "<MBean> <thread> <its context loader>"
        NotificationListener listener = (n, handback) -> {
            ClassLoader l = Thread.currentThread().getContextClassLoader();
            seen.add(((MBeanServerNotification) n).getMBeanName() + " " + Thread.currentThread().getName() + " "
                    + (l == null ? "none" : l.getName()));
        };
        NotificationFilterSupport registrations = new NotificationFilterSupport();
        registrations.enableType(MBeanServerNotification.REGISTRATION_NOTIFICATION);
        server.addNotificationListener(MBeanServerDelegate.DELEGATE_NAME, listener, registrations, null);
        AtomicReference<ThreadPoolExecutor> pool = new AtomicReference<>();
        try {
            // Reachable until the Agent MBean is registered, as a deployed application's loader is
            // (collected before, it would be nobody's to set, and the MBean registered with none).
            ClassLoader webApp = managedOnAWebApplicationsThread(jmx, "loaders", pool);
            await().atMost(Duration.ofSeconds(20)).until(() -> server.isRegistered(name));
            java.lang.ref.Reference.reachabilityFence(webApp);
            jmx.letPoolsComeDue();
            await().atMost(Duration.ofSeconds(20)).until(() -> server.isRegistered(poolName));
            List<String> ours = seen.stream().filter(s -> s.startsWith(name + " ") || s.startsWith(poolName + " "))
                    .collect(Collectors.toList());
            assertEquals(List.of(name + " " + AgentJmx.THREAD_NAME + " web-app",
                    poolName + " " + AgentJmx.THREAD_NAME + " none"), ours);
        } finally {
            jmx.letPoolsComeDue();
            server.removeNotificationListener(MBeanServerDelegate.DELEGATE_NAME, listener);
            if (pool.get() != null) {
                pool.get().shutdownNow();
            }
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> !server.isRegistered(poolName));
    }

    /**
     * The loader is set only around the action, whatever it does, and a starter that had none, or
     * whose loader was collected since, leaves the thread with none.
     */
    @Test
    void withContextLoaderSetsTheLoaderOnlyAroundTheActionAndNoneForAGoneOne() throws Exception {
        ClassLoader webApp = new WebAppLoader(AgentJmxTest.class.getClassLoader());
        WeakReference<ClassLoader> live = new WeakReference<>(webApp);
        WeakReference<ClassLoader> gone = new WeakReference<>(new WebAppLoader(AgentJmxTest.class.getClassLoader()));
        gone.clear(); // as the garbage collector does once the application is undeployed
        List<String> seen = new CopyOnWriteArrayList<>();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        // on a thread like the registration thread: one of ServiceThreads, with no loader of its own
        Thread t = ServiceThreads.newThread("with-context-loader", () -> {
            try {
                seen.add("before " + contextLoaderName());
                AgentJmx.withContextLoader(live, () -> seen.add("during " + contextLoaderName()));
                seen.add("after " + contextLoaderName());
                assertThrows(IllegalStateException.class, () -> AgentJmx.withContextLoader(live, () -> {
                    throw new IllegalStateException("the action fails");
                }));
                seen.add("after a failure " + contextLoaderName());
                AgentJmx.withContextLoader(gone, () -> seen.add("gone " + contextLoaderName()));
                AgentJmx.withContextLoader(null, () -> seen.add("none " + contextLoaderName()));
                seen.add("end " + contextLoaderName());
            } catch (Throwable e) {
                failed.set(e);
            }
        });
        t.start();
        t.join(TimeUnit.SECONDS.toMillis(20));
        assertNull(failed.get());
        assertEquals(List.of("before none", "during web-app", "after none", "after a failure none", "gone none",
                "none none", "end none"), seen);
    }

    private static String contextLoaderName() {
        ClassLoader l = Thread.currentThread().getContextClassLoader();
        return l == null ? "none" : l.getName();
    }

    /** A web application's class loader, as far as these tests need one: its threads' context class loader. */
    private static final class WebAppLoader extends ClassLoader {
        WebAppLoader(ClassLoader parent) {
            super("web-app", parent);
        }
    }

    /**
     * A web application's request thread (its class loader the context class loader) builds a
     * pool the agent manages, handed to {@code jmx}'s JMX side; the thread has ended on return, and
     * nothing of the agent's or of this method's keeps the loader it returns.
     */
    private static ClassLoader managedOnAWebApplicationsThread(JmxOnATestClock jmx, String method,
            AtomicReference<ThreadPoolExecutor> built) throws InterruptedException {
        ClassLoader webApp = new WebAppLoader(AgentJmxTest.class.getClassLoader());
        Thread request = new Thread(() -> built.set(jmx.pool(method)), "web-app-request");
        request.setContextClassLoader(webApp);
        request.start();
        request.join();
        return webApp;
    }

    /** The live threads named {@link AgentJmx#THREAD_NAME}. */
    private static Set<Thread> registrationThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals(AgentJmx.THREAD_NAME))
                .collect(Collectors.toCollection(HashSet::new));
    }

    private static void awaitCollected(WeakReference<ClassLoader> loader) {
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            System.gc();
            return loader.get() == null;
        });
    }

    @Test
    void aSecondRegistrationLeavesTheFirst() throws Exception {
        Options options = Options.defaults();
        new AgentJmx(options, new PoolRegistry()).register();
        new AgentJmx(options, new PoolRegistry()).register(); // prints one line, throws nothing
        assertTrue(server.isRegistered(name));
    }
}
