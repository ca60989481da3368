package dev.turntable.agent;

import dev.turntable.jmx.TurntableJmx;
import dev.turntable.pool.ServiceThreads;
import dev.turntable.pool.TurntableQueue;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.ref.WeakReference;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Properties;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * The {@code dev.turntable:type=Agent} MXBean, and the registration of it and of one
 * {@code dev.turntable:type=Pool,name=<pool>} MXBean per managed pool. Any thread may call
 * {@link #registerSoon()} and {@link #poolManaged}; the JMX work itself runs on a daemon thread,
 * {@code turntable-jmx}.
 *
 * <p>Registration is deferred to that thread, started when the first application pool appears
 * (or at once after an attach): creating the platform MBean server initialises
 * {@code java.util.logging} and costs tens of milliseconds, neither of which the agent may impose
 * on an application's startup before its {@code main} has configured logging, nor on the thread
 * that builds a pool. A managed pool is queued as its constructor returns; the thread registers
 * the Agent MBean first, then each queued pool once it is {@link #REGISTER_AFTER_MILLIS} old, and
 * ends when no pool has come for {@link #LINGER_MILLIS} (the next managed pool starts another).
 * So a pool's MBean appears a tenth of a second after the pool, a pool that terminates before
 * then never gets one, and no thread of the agent's stays once pools stop coming. Each pool's MBean is registered through {@link TurntableJmx}, which
 * unregisters it when the pool terminates; its {@code RejectedTaskCount} reads the record's
 * counter (kept by the hook in {@code ThreadPoolExecutor.reject}), and the pool's rejection handler is never touched.
 *
 * <p>The registration thread is started by whichever application thread builds a pool, and an
 * application that builds pools less than {@link #LINGER_MILLIS} ms apart keeps it running; so,
 * like the engine's housekeeper, it is made by {@link ServiceThreads#newThread} and keeps no class
 * loader of that application (no context class loader, thread group, inherited thread-locals or
 * access-control context of the starting thread): an application server can unload an undeployed
 * application while the thread serves another's pools. One thing still needs the starting
 * thread's context class loader: this thread may be the JVM's first to ask for the platform MBean
 * server, whose creation loads the {@code MBeanServerBuilder} named by
 * {@code javax.management.builder.initial} through the context class loader only (with none, from
 * the JDK's own loader), and may start {@code java.util.logging}, whose {@code LogManager} and
 * configuration class fall back to it. So the starting thread's loader is remembered weakly and
 * set only while the Agent MBean is registered (the thread's first call for the server), back to
 * none afterwards; nothing once the server exists reads it. (So a listener of the server's
 * registration notifications sees no context class loader here, but for the Agent MBean's.)
 *
 * <p>About 550 lines, over a quarter of them comments: the Agent MBean's attributes and the
 * thread that registers the pools' MBeans share the pool records and the class-loader care above.
 */
final class AgentJmx implements AgentMXBean {

    static final String OBJECT_NAME = "dev.turntable:type=Agent";
    static final String THREAD_NAME = "turntable-jmx";
    /**
     * How long the registration thread waits for another pool before it ends. Starting it took
     * the constructing thread ~300 µs on a busy 2-CPU machine (most of a pool's construction
     * under the agent), paid by every pool of an application that builds one per request.
     */
    static final long LINGER_MILLIS = 1_000;
    /**
     * How old a managed pool is before its MBean is registered. Registering one and taking it
     * away again cost the application ~30% of its time when it built a pool per request (6,000
     * {@code newFixedThreadPool(2)} built, used once and shut down: 3.4-3.7 s with JMX off
     * against 4.7-5.5 s with it, on 2 CPUs): the MBean server's work competed with the
     * application's threads, and the wake-up of this thread was paid by the constructing one.
     * Such pools are gone long before this; an operator sees no difference in a pool that lives.
     */
    static final long REGISTER_AFTER_MILLIS = 100;
    /** The least the registration thread sleeps while no pool waits (were the delay set to 0). */
    private static final long MIN_LOOK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    /** The longest the registration thread sleeps at once with a test's clock, which moves by hand. */
    private static final long TEST_CLOCK_LOOK_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    /**
     * A registration a security manager refused (its policy does not grant the agent jar, and it
     * is in force at that moment, as an application or a test harness may install one for a
     * while) is tried again this long after, then at doubling intervals up to
     * {@link #RETRY_MAX_MILLIS}, for {@link #RETRY_GIVE_UP_MILLIS} in all.
     */
    static final long RETRY_FIRST_MILLIS = 1_000;
    static final long RETRY_MAX_MILLIS = 60_000;
    static final long RETRY_GIVE_UP_MILLIS = 600_000;
    /** What {@code RejectedTaskCount} reads when this JDK's {@code reject} could not be advised. */
    static final LongSupplier NOT_COUNTED = () -> -1L;

    private final Options options;
    private final PoolRegistry registry;
    private final boolean rejectionsCounted;
    /** Whether managed pools can retire workers, for the effective options; {@code null}: not shown. */
    private final Retirement retirement;
    /** Whether the Agent MBean was asked for (so a registration thread was started once). */
    private final AtomicBoolean requested = new AtomicBoolean();
    /** Whether a registration thread is running; at most one at a time. */
    private final AtomicBoolean draining = new AtomicBoolean();
    /** Written and read only by the registration thread (one at a time, ordered by {@link #draining}). */
    private boolean agentRegistered;
    /*
     * Registrations a security manager refused, to try again (RETRY_FIRST_MILLIS): the registration
     * thread's alone, as agentRegistered. refusedSinceNanos is 0 while none is refused.
     */
    private final ArrayDeque<ManagedPool> refused = new ArrayDeque<>();
    private boolean agentRefused;
    /** What the retries registered since the first refusal, for the line that closes them. */
    private boolean agentRegisteredOnRetry;
    private int poolsRegisteredOnRetry;
    private WeakReference<ClassLoader> agentLoader;
    private long refusedSinceNanos;
    private long retryDelayNanos;
    private long retryAtNanos;
    /**
     * Pools waiting for their MBeans, oldest first. Not a blocking queue: a constructing thread
     * only appends (one CAS) and never wakes the registration thread, which looks by itself, every
     * {@link #REGISTER_AFTER_MILLIS} while none waits (a pool queued meanwhile is not due before that).
     */
    private final Queue<ManagedPool> pending = new ConcurrentLinkedQueue<>();
    /**
     * The clock the registration delay and the retries after refusals are measured on:
     * {@code System::nanoTime} but in tests.
     */
    private final LongSupplier nanoClock;
    /**
     * Where the MBeans go, asked for at each registration: {@code null} for the platform MBean
     * server (not a method reference to it, which would load JMX classes in premain), but in tests.
     */
    private final Supplier<MBeanServer> servers;
    /**
     * Where this class's lines go: {@link Log#line} but in tests. Not an unexpected failure's,
     * which goes to {@link Log#unexpected} and its cap on such lines.
     */
    private final Consumer<String> log;
    private final long registerAfterNanos;
    /**
     * The longest one sleep of the registration thread: no limit with the real clock (each sleep
     * is then as long as its own wait), a short one with a test's clock, which moves by hand.
     */
    private final long maxSleepNanos;

    /** A managed pool waiting for its MBean. */
    private static final class ManagedPool {
        final ThreadPoolExecutor pool;
        final PoolRecord record;
        final long managedAtNanos;

        ManagedPool(ThreadPoolExecutor pool, PoolRecord record, long managedAtNanos) {
            this.pool = pool;
            this.record = record;
            this.managedAtNanos = managedAtNanos;
        }
    }

    AgentJmx(Options options, PoolRegistry registry) {
        this(options, registry, true);
    }

    /** @param rejectionsCounted whether the {@code reject} hook is installed (else pools read {@code -1}) */
    AgentJmx(Options options, PoolRegistry registry, boolean rejectionsCounted) {
        this(options, registry, rejectionsCounted, null);
    }

    /**
     * @param retirement whether managed pools can retire workers: when they cannot,
     *                   {@code Options} says that {@code max-lifetime-tasks} stays 0
     */
    AgentJmx(Options options, PoolRegistry registry, boolean rejectionsCounted, Retirement retirement) {
        this(options, registry, rejectionsCounted, retirement, null, TimeUnit.MILLISECONDS.toNanos(REGISTER_AFTER_MILLIS));
    }

    /**
     * @param nanoClock          the clock a pool's age and the retries after refusals are read on
     *                           (tests advance their own), or {@code null} for {@code System.nanoTime()}
     * @param registerAfterNanos how old a pool must be before its MBean is registered
     */
    AgentJmx(Options options, PoolRegistry registry, boolean rejectionsCounted, Retirement retirement,
             LongSupplier nanoClock, long registerAfterNanos) {
        this(options, registry, rejectionsCounted, retirement, nanoClock, registerAfterNanos, null, Log::line);
    }

    /**
     * @param options            the effective options, shown by the Agent MBean
     * @param registry           the pools the agent saw, listed by the Agent MBean
     * @param rejectionsCounted  whether the {@code reject} hook is installed (else pools read {@code -1})
     * @param retirement         whether managed pools can retire workers, or {@code null}: not shown
     * @param nanoClock          the clock a pool's age and the retries after refusals are read on
     *                           (tests advance their own), or {@code null} for {@code System.nanoTime()}
     * @param registerAfterNanos how old a pool must be before its MBean is registered
     * @param servers            the MBean server, asked for at each registration (a test's may
     *                           refuse some names, as a security manager's policy would), or
     *                           {@code null} for the platform MBean server
     * @param log                where this class's lines go
     */
    AgentJmx(Options options, PoolRegistry registry, boolean rejectionsCounted, Retirement retirement,
             LongSupplier nanoClock, long registerAfterNanos, Supplier<MBeanServer> servers, Consumer<String> log) {
        this.servers = servers;
        this.log = log;
        this.options = options;
        this.registry = registry;
        this.rejectionsCounted = rejectionsCounted;
        this.retirement = retirement;
        this.nanoClock = nanoClock != null ? nanoClock : System::nanoTime;
        this.registerAfterNanos = registerAfterNanos;
        this.maxSleepNanos = nanoClock != null ? TEST_CLOCK_LOOK_NANOS : Long.MAX_VALUE;
    }

    /** Starts registration of the Agent MBean on a daemon thread, once. */
    void registerSoon() {
        // Called for every application pool: read first, so only the first writes the line.
        if (!requested.get() && requested.compareAndSet(false, true)) {
            drainSoon();
        }
    }

    /**
     * Queues a pool the agent took over for its Pool MBean and makes sure a registration thread
     * runs. Called on the thread that constructed the pool, as its constructor returns; never
     * throws.
     */
    void poolManaged(ThreadPoolExecutor pool, PoolRecord record) {
        pending.offer(new ManagedPool(pool, record, nanoClock.getAsLong()));
        if (!requested.get()) {
            requested.set(true);
        }
        drainSoon();
    }

    private void drainSoon() {
        // Read before the CAS: while a thread runs (every pool but the first of a burst), this is
        // one read of a line nobody writes. A thread clearing the flag right after this read
        // looks at the queue again after clearing it (volatile both ways), so it sees our pool.
        if (draining.get() || !draining.compareAndSet(false, true)) {
            return; // the running thread looks at the queue again before it ends
        }
        try {
            // Keeps no class loader of the constructing thread, whose application may be undeployed
            // while this thread lingers for other applications' pools; only the context class loader
            // is remembered, weakly, for the platform MBean server's creation (see drain).
            WeakReference<ClassLoader> startersLoader = ServiceThreads.callersContextLoader();
            Thread t = ServiceThreads.newThread(THREAD_NAME, () -> drain(startersLoader));
            t.start();
        } catch (Throwable e) { // OutOfMemoryError: unable to create native thread, and the like
            draining.set(false);
            log.accept("could not start the JMX registration thread, MBeans are left out: " + e);
        }
    }

    /**
     * The registration thread's body: the Agent MBean, then every queued pool, until none is left.
     *
     * @param startersLoader the context class loader of the thread that started this one, weakly;
     *                       {@code null} if it had none
     */
    private void drain(WeakReference<ClassLoader> startersLoader) {
        do {
            try {
                registerAgentIfNot(startersLoader);
                registerUntilIdle();
            } catch (Throwable t) {
                // Not "left untouched": the pools run on the engine whatever happens here.
                Log.unexpectedLine("registering MBeans failed (the pools run on, without MBeans where it"
                        + " failed): " + t);
            } finally {
                draining.set(false);
            }
            // A pool queued after the last poll but before the flag was cleared found it still set.
        } while (!pending.isEmpty() && draining.compareAndSet(false, true));
    }

    /**
     * The Agent MBean, unless this thread (or an earlier one) has tried it already and not given
     * up on it after refusals. This may be the JVM's first getPlatformMBeanServer(): its creation
     * loads an MBeanServerBuilder ({@code javax.management.builder.initial}, as application
     * servers set) through the context class loader alone, and may start java.util.logging,
     * whose LogManager falls back to it; so with {@code loader}, the application's as the thread
     * that built a pool had it. Nothing later needs one (but a retry of this).
     */
    private void registerAgentIfNot(WeakReference<ClassLoader> loader) {
        if (!agentRegistered) {
            agentRegistered = true;
            agentLoader = loader;
            withContextLoader(loader, this::registerOrRetry);
        }
    }

    /**
     * Registers each queued pool once it is old enough (skipping those that terminated by then),
     * oldest first, until none has come for {@link #LINGER_MILLIS}.
     */
    private void registerUntilIdle() {
        long lingerNanos = TimeUnit.MILLISECONDS.toNanos(LINGER_MILLIS);
        long lastPoolNanos = System.nanoTime(); // lingering is on the real clock, also in tests
        for (;;) {
            if (refusedSinceNanos != 0 && nanoClock.getAsLong() - retryAtNanos >= 0) {
                retryRefused(); // due: also while pools keep coming, or they would starve it
            }
            ManagedPool p = pending.peek(); // only this thread removes: the head stays until then
            if (p == null) {
                if (refusedSinceNanos != 0) {
                    // Refused registrations keep this thread, sleeping, until they are due again;
                    // at most one look's time, so pools queued meanwhile are not late.
                    sleepNanos(Math.min(Math.min(Math.max(retryAtNanos - nanoClock.getAsLong(), 0L),
                            Math.max(registerAfterNanos, MIN_LOOK_NANOS)), maxSleepNanos));
                    continue;
                }
                if (System.nanoTime() - lastPoolNanos >= lingerNanos) {
                    return;
                }
                // A pool queued during this sleep comes due no earlier than its end: none is late.
                sleepNanos(Math.min(Math.max(registerAfterNanos, MIN_LOOK_NANOS), maxSleepNanos));
                continue;
            }
            lastPoolNanos = System.nanoTime();
            long early = p.managedAtNanos + registerAfterNanos - nanoClock.getAsLong();
            if (early > 0) {
                // Not asked whether it terminated meanwhile: a subclass's isTerminated may not be
                // ready yet (this pool's constructor may still be running), and the answer would
                // spare nothing but this sleep.
                sleepNanos(Math.min(early, maxSleepNanos));
                continue;
            }
            pending.poll();
            registerAgentIfNot(agentLoader); // given up on after refusals: once more, as a new thread would
            // Tried even while other registrations are refused: a policy may refuse some names
            // only (MBeanPermission names the MBean), the Agent MBean's or one pool's.
            try {
                registerPool(p.pool, p.record); // skips it if it terminated meanwhile
            } catch (SecurityException e) { // the server, or the registration: see RETRY_FIRST_MILLIS
                keepRefused(p);
                refusedBySecurityManager(e);
            }
        }
    }

    /**
     * Keeps {@code p} for the next try, dropping the refused pools that terminated meanwhile
     * (an application that builds a pool per request would otherwise pile them up, and their
     * class loaders with them, for as long as the refusals last).
     */
    private void keepRefused(ManagedPool p) {
        if (refused.size() >= 64 && (refused.size() & 63) == 0) {
            refused.removeIf(m -> TurntableJmx.saysTerminated(m.pool));
        }
        refused.add(p);
    }

    /** The Agent MBean now (see {@link #register}); a security manager's refusal is tried again later. */
    private void registerOrRetry() {
        try {
            registerAgent();
        } catch (SecurityException e) {
            agentRefused = true;
            refusedBySecurityManager(e);
        }
    }

    /** A registration was refused by a security manager: says so once, and tries again later. */
    private void refusedBySecurityManager(SecurityException e) {
        if (refusedSinceNanos != 0) {
            return; // already waiting to try again
        }
        long now = nanoClock.getAsLong();
        refusedSinceNanos = now == 0 ? 1 : now;
        retryDelayNanos = TimeUnit.MILLISECONDS.toNanos(RETRY_FIRST_MILLIS);
        retryAtNanos = now + retryDelayNanos;
        log.accept("a security manager refused registering MBeans (" + e + "); trying again in "
                + RETRY_FIRST_MILLIS / 1000 + " s, then less often, for " + RETRY_GIVE_UP_MILLIS / 60_000
                + " min: grant the agent jar in its policy to avoid the wait");
    }

    /**
     * Tries the refused registrations again, the Agent MBean and every refused pool: all done,
     * some refused once more (the next try waits twice as long), or given up on after
     * {@link #RETRY_GIVE_UP_MILLIS}. The line that closes the refusals, either way, counts what
     * the tries registered.
     */
    private void retryRefused() {
        long now = nanoClock.getAsLong();
        if (now - refusedSinceNanos > TimeUnit.MILLISECONDS.toNanos(RETRY_GIVE_UP_MILLIS)) {
            refused.removeIf(m -> TurntableJmx.saysTerminated(m.pool));
            int given = refused.size() + (agentRefused ? 1 : 0);
            log.accept("gave up registering " + given + (given == 1 ? " MBean" : " MBeans")
                    + " that a security manager kept refusing; the pools run without them"
                    + (agentRegisteredOnRetry || poolsRegisteredOnRetry > 0 ? " (" + takeRegisteredOnRetry() + ")" : ""));
            refused.clear();
            if (agentRefused) {
                agentRegistered = false; // the next pool's registration thread tries it once more
            }
            agentRefused = false;
            refusedSinceNanos = 0;
            return;
        }
        retryDelayNanos = Math.min(retryDelayNanos * 2, TimeUnit.MILLISECONDS.toNanos(RETRY_MAX_MILLIS));
        retryAtNanos = now + retryDelayNanos;
        if (agentRefused) {
            agentRefused = false;
            withContextLoader(agentLoader, this::registerOrRetry); // refused again: agentRefused, no new line
            agentRegisteredOnRetry = !agentRefused;
        }
        for (int left = refused.size(); left > 0; left--) {
            ManagedPool p = refused.poll();
            try {
                TurntableJmx.Registration r = registerPool(p.pool, p.record);
                if (r != null && r.isRegistered()) {
                    poolsRegisteredOnRetry++;
                }
            } catch (SecurityException stillRefused) {
                refused.add(p); // tried again at retryAtNanos, after the others
            }
        }
        if (agentRefused || !refused.isEmpty()) {
            return; // tried again at retryAtNanos
        }
        refusedSinceNanos = 0;
        log.accept(takeRegisteredOnRetry());
    }

    /** What the retries registered, said for the line that closes the refusals; counted from 0 again. */
    private String takeRegisteredOnRetry() {
        int pools = poolsRegisteredOnRetry;
        String text = "registered what a security manager had refused: " + (agentRegisteredOnRetry ? "the Agent MBean and " : "")
                + pools + (pools == 1 ? " pool MBean" : " pool MBeans");
        agentRegisteredOnRetry = false;
        poolsRegisteredOnRetry = 0;
        return text;
    }

    /**
     * Sleeps about {@code nanos} on the registration thread; an interrupt ends the sleep early
     * and is otherwise ignored. The thread is the agent's own and ends by itself once pools stop
     * coming; nobody has a reason to stop it, but code that interrupts every thread it can find
     * (a test harness, a container tidying up after an application) would otherwise have ended
     * it with pools still queued, and those got no MBean until another pool came. Every caller
     * looks at the clock again after a sleep, so a short one changes nothing.
     */
    private static void sleepNanos(long nanos) {
        try {
            TimeUnit.NANOSECONDS.sleep(nanos);
        } catch (InterruptedException ignored) {
            // the flag is clear again: see above
        }
    }

    /**
     * Runs {@code action} on the calling thread (the registration thread, which has no context
     * class loader of its own) with {@code loader}'s referent as its context class loader, and
     * with none again afterwards, however it ends. A {@code null} or cleared reference (the
     * application is gone) runs it with none; a security manager that refuses the change leaves
     * the loader as it is.
     */
    static void withContextLoader(WeakReference<ClassLoader> loader, Runnable action) {
        Thread me = Thread.currentThread();
        boolean set = ServiceThreads.setContextLoader(me, loader == null ? null : loader.get());
        try {
            action.run();
        } finally {
            if (set) {
                ServiceThreads.setContextLoader(me, null); // keeps the application's loader no longer
            }
        }
    }

    /** The MBean server the registrations go to (see {@link #servers}). */
    private MBeanServer server() {
        return servers == null ? ManagementFactory.getPlatformMBeanServer() : servers.get();
    }

    /** Registers the Agent MBean now (see {@link #servers}), on the calling thread; never throws. */
    void register() {
        try {
            registerAgent();
        } catch (Throwable t) {
            log.accept("could not register " + OBJECT_NAME + ": " + t);
        }
    }

    /**
     * {@link #register}, but a {@link SecurityException} (a security manager that refuses the
     * platform MBean server or the registration) is thrown, for the caller to try again later.
     */
    private void registerAgent() {
        try {
            MBeanServer server = server();
            ObjectName name = new ObjectName(OBJECT_NAME);
            if (server.isRegistered(name)) {
                log.accept(OBJECT_NAME + " is already registered; leaving it as it is");
                return;
            }
            server.registerMBean(this, name);
        } catch (SecurityException e) {
            throw e;
        } catch (Throwable t) {
            log.accept("could not register " + OBJECT_NAME + ": " + t);
        }
    }

    /**
     * Registers one managed pool's MBean now, on the calling thread, unless the pool already
     * terminated. A failure (the name taken, say by the application's own registration) is
     * logged once by {@link TurntableJmx} and leaves the pool running as it is.
     *
     * @throws SecurityException a security manager refused the platform MBean server or the
     *         registration (not logged: the caller tries again later and says so once)
     */
    TurntableJmx.Registration registerPool(ThreadPoolExecutor pool, PoolRecord record) {
        TurntableQueue queue = record.queue();
        if (queue == null || TurntableJmx.saysTerminated(pool)) { // an override that throws: running
            return null;
        }
        LongAdder rejections = record.rejections();
        LongSupplier rejected = rejectionsCounted && rejections != null ? rejections::sum : NOT_COUNTED;
        return TurntableJmx.tryRegister(server(), record.name(), pool, queue, rejected);
    }

    @Override
    public String getVersion() {
        return version();
    }

    @Override
    public String getOptions() {
        String why = retirement == null || options.maxLifetimeTasks() == 0 ? null : retirement.unavailableReason();
        return why == null ? options.text()
                : options.text(java.util.Map.of(OptionKey.MAX_LIFETIME_TASKS, "stays 0: worker retirement is unavailable: " + why));
    }

    @Override
    public PoolInfo[] getPools() {
        List<PoolRecord> records = registry.snapshot();
        PoolInfo[] out = new PoolInfo[records.size()];
        for (int i = 0; i < out.length; i++) {
            PoolRecord r = records.get(i);
            out[i] = new PoolInfo(r.name(), r.creationSite(), r.managed(), r.reason());
        }
        return out;
    }

    /** The agent's version, from the build. */
    static String version() {
        try (InputStream in = AgentJmx.class.getResourceAsStream("version.properties")) {
            if (in != null) {
                Properties p = new Properties();
                p.load(in);
                return p.getProperty("version", "unknown");
            }
        } catch (IOException e) {
            // fall through
        }
        return "unknown";
    }
}
