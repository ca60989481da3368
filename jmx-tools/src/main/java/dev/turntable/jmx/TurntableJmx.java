package dev.turntable.jmx;

import dev.turntable.pool.ServiceThreads;
import dev.turntable.pool.TurntableExecutor;
import dev.turntable.pool.TurntableQueue;
import java.lang.management.ManagementFactory;
import java.lang.ref.WeakReference;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;
import javax.management.InstanceNotFoundException;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

/**
 * Registers Turntable pools as JMX MXBeans and takes them away again when the pools terminate.
 * Stateless apart from the reaper described below; any thread may call any method.
 *
 * <p>{@link #register} never throws into the caller because of JMX: a failure (a name already
 * taken, a refusing MBean server, a bad name) is logged as one line through
 * {@link System.Logger} ({@code dev.turntable.jmx.TurntableJmx}, level WARNING) and returned as a
 * {@link Registration} that is not registered.
 *
 * <p><b>Rejections:</b> to count them for {@code RejectedTaskCount}, registering wraps the
 * executor's {@link RejectedExecutionHandler} in a {@link RejectionCounter} that counts and then
 * calls the original, so the pool's policy is unchanged. An application that later calls
 * {@code setRejectedExecutionHandler} replaces the counter; {@code RejectedTaskCount} then reads
 * {@code -1}. A caller that counts rejections itself (the agent, which must not change what
 * {@code getRejectedExecutionHandler()} returns) uses
 * {@link #register(MBeanServer, String, ThreadPoolExecutor, TurntableQueue, LongSupplier)}, which
 * leaves the handler alone.
 *
 * <p><b>Unregistration on termination:</b> a {@code ThreadPoolExecutor} announces termination only
 * to its own {@code terminated()} hook, which a helper cannot reach without subclassing the pool.
 * So one daemon thread, {@code turntable-jmx-reaper}, polls {@code isTerminated()} (a volatile
 * read) of every registered pool every {@value #REAPER_PERIOD_MILLIS} ms and unregisters those
 * that terminated, and those the application dropped without shutting them down and the garbage
 * collector took (a registration holds its pool weakly, so JMX never keeps a pool alive). The thread exists only while some registration is live (it ends
 * {@value #REAPER_IDLE_SECONDS} s after the last one closes), so a JVM without Turntable pools
 * never sees it. A pool's MBean therefore outlives its termination by at most about
 * {@value #REAPER_PERIOD_MILLIS} ms.
 */
public final class TurntableJmx {

    /**
     * The pool's {@code isTerminated()}, or false if it throws: an application's subclass may
     * override it (one seen throws until its own shutdown), and such a pool is running as far as
     * anyone can tell. For the reaper, which would otherwise log a warning every sweep (a pool
     * that cannot say it terminated keeps its MBean until it is collected), and for the agent's
     * registrations. Any thread.
     */
    public static boolean saysTerminated(ThreadPoolExecutor pool) {
        try {
            return pool.isTerminated();
        } catch (RuntimeException overrideFailed) {
            return false;
        }
    }

    /** The JMX domain of every Turntable MBean. */
    public static final String DOMAIN = "dev.turntable";
    /** How often the reaper looks for terminated pools. */
    public static final long REAPER_PERIOD_MILLIS = 500;

    /**
     * A system property set (to {@code true}) in a JVM once a pool MBean was registered there, so
     * that {@code turntablectl} can tell, through the Attach API and without starting a JMX agent
     * in it, that the JVM has Turntable MBeans although the agent does not run there (a pool
     * registered by the library). Set once; never cleared (a JVM that had them may well again).
     */
    public static final String MBEANS_PROPERTY = "dev.turntable.jmx.mbeans";
    static final long REAPER_IDLE_SECONDS = 10;

    private static final Pattern POOL_NAME = Pattern.compile("[A-Za-z0-9._-]+");
    private static final System.Logger LOG = System.getLogger(TurntableJmx.class.getName());

    private TurntableJmx() {
    }

    /** Whether {@code name} is a valid pool name: one or more of {@code [A-Za-z0-9._-]}. */
    public static boolean isValidPoolName(String name) {
        return name != null && POOL_NAME.matcher(name).matches();
    }

    /**
     * {@code dev.turntable:type=Pool,name=<poolName>}.
     *
     * @throws IllegalArgumentException if the name is not {@code [A-Za-z0-9._-]+}
     */
    public static ObjectName poolObjectName(String poolName) {
        if (!isValidPoolName(poolName)) {
            throw new IllegalArgumentException("pool name '" + poolName
                    + "' must be one or more of the characters A-Z a-z 0-9 . _ -");
        }
        try {
            // From text, so the key order stays type, name (as JConsole's tree and the contract show it).
            return new ObjectName(DOMAIN + ":type=Pool,name=" + poolName);
        } catch (MalformedObjectNameException e) {
            throw new IllegalArgumentException("pool name '" + poolName + "': " + e.getMessage(), e);
        }
    }

    /** The pattern {@code dev.turntable:type=Pool,*}, matching every pool's MBean. */
    public static ObjectName poolPattern() {
        try {
            return new ObjectName(DOMAIN + ":type=Pool,*");
        } catch (MalformedObjectNameException e) {
            throw new AssertionError(e);
        }
    }

    /** Registers {@code executor} in the platform MBean server; see {@link #register(MBeanServer, String, ThreadPoolExecutor, TurntableQueue)}. */
    public static Registration register(String poolName, TurntableExecutor executor) {
        MBeanServer server;
        try {
            server = ManagementFactory.getPlatformMBeanServer();
        } catch (RuntimeException | Error e) { // e.g. a SecurityException or a broken JMX builder
            return Registration.failed(poolName, null, "no platform MBean server: " + e);
        }
        return register(server, poolName, executor, executor == null ? null : executor.getTurntableQueue());
    }

    /**
     * Registers a {@link PoolAdapter} for the pool as {@code dev.turntable:type=Pool,name=<poolName>},
     * wraps its rejection handler in a {@link RejectionCounter}, and unregisters the MBean when the
     * pool terminates.
     *
     * @return the registration: {@link Registration#isRegistered()} tells whether it worked,
     *         {@link Registration#failure()} why not; never {@code null}, never throws
     */
    public static Registration register(MBeanServer server, String poolName, ThreadPoolExecutor executor,
                                        TurntableQueue queue) {
        return register(server, poolName, executor, queue, null, true, true);
    }

    /**
     * Registers a {@link PoolAdapter} for the pool as {@code dev.turntable:type=Pool,name=<poolName>}
     * whose {@code RejectedTaskCount} reads {@code rejectedTaskCount}, and unregisters the MBean
     * when the pool terminates. Unlike the other overloads it never touches the executor's
     * rejection handler: for callers that count rejections themselves (the agent, by advice on
     * {@code ThreadPoolExecutor.reject}).
     *
     * @param rejectedTaskCount the pool's rejections so far, {@code -1} if not collected; called on
     *                          JMX threads, so thread-safe and fast
     * @return as {@link #register(MBeanServer, String, ThreadPoolExecutor, TurntableQueue)}; never
     *         {@code null}, never throws
     */
    public static Registration register(MBeanServer server, String poolName, ThreadPoolExecutor executor,
                                        TurntableQueue queue, LongSupplier rejectedTaskCount) {
        return register(server, poolName, executor, queue, rejectedTaskCount, false, true);
    }

    /**
     * As {@link #register(MBeanServer, String, ThreadPoolExecutor, TurntableQueue, LongSupplier)},
     * except that a security manager's refusal is thrown, not logged: for a caller that tries
     * again later (the agent, whose registrations a security manager in force for a while
     * refuses, and which says so once for all of them).
     *
     * @throws SecurityException a security manager refused the registration; nothing was changed
     */
    public static Registration tryRegister(MBeanServer server, String poolName, ThreadPoolExecutor executor,
                                           TurntableQueue queue, LongSupplier rejectedTaskCount) {
        Registration r = register(server, poolName, executor, queue, rejectedTaskCount, false, false);
        if (r.refusal != null) {
            throw r.refusal;
        }
        return r;
    }

    private static Registration register(MBeanServer server, String poolName, ThreadPoolExecutor executor,
                                         TurntableQueue queue, LongSupplier rejectedTaskCount,
                                         boolean wrapHandler, boolean logRefusal) {
        ObjectName name = null;
        RejectedExecutionHandler before = null;
        RejectionCounter counter = null;
        try {
            if (isValidPoolName(poolName)) {
                // Known before anything else can fail: objectName() is null only for a bad name.
                name = poolObjectName(poolName);
            }
            Objects.requireNonNull(server, "server");
            Objects.requireNonNull(executor, "executor");
            Objects.requireNonNull(queue, "queue");
            if (!wrapHandler) {
                Objects.requireNonNull(rejectedTaskCount, "rejectedTaskCount");
            }
            PoolAdapter adapter = new PoolAdapter(poolName, executor, queue, rejectedTaskCount);
            name = adapter.objectName();
            if (wrapHandler) {
                before = executor.getRejectedExecutionHandler();
                counter = RejectionCounter.install(executor);
            }
            server.registerMBean(adapter, name);
            Registration r = new Registration(server, name, executor, adapter);
            Reaper.watch(r);
            return r;
        } catch (Exception | LinkageError e) {
            if (counter != null && counter != before && executor.getRejectedExecutionHandler() == counter) {
                executor.setRejectedExecutionHandler(before); // leave the pool as it was
            }
            if (!logRefusal && e instanceof SecurityException) {
                return Registration.refused(name, (SecurityException) e);
            }
            return Registration.failed(poolName, name, e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    /**
     * One pool's registration, returned by {@link TurntableJmx#register}. Any thread may call any
     * method; {@link #close()} is idempotent and never throws.
     */
    public static final class Registration implements AutoCloseable {
        private final MBeanServer server;
        private final ObjectName objectName;
        /** Weak, as the adapter's reference: see {@link PoolAdapter}. */
        private final WeakReference<ThreadPoolExecutor> executor;
        private final PoolAdapter adapter;
        private final String failure;
        /** A security manager's refusal, kept only for {@link TurntableJmx#tryRegister} to throw. */
        private final SecurityException refusal;
        private final AtomicBoolean closed = new AtomicBoolean();

        private Registration(MBeanServer server, ObjectName objectName, ThreadPoolExecutor executor,
                             PoolAdapter adapter) {
            this.server = server;
            this.objectName = objectName;
            this.executor = new WeakReference<>(executor);
            this.adapter = adapter;
            this.failure = null;
            this.refusal = null;
        }

        private Registration(ObjectName objectName, String failure, SecurityException refusal) {
            this.server = null;
            this.objectName = objectName;
            this.executor = null;
            this.adapter = null;
            this.failure = failure;
            this.refusal = refusal;
            closed.set(true);
        }

        /** A refusal not logged here: {@link TurntableJmx#tryRegister} throws it instead. */
        static Registration refused(ObjectName name, SecurityException refusal) {
            return new Registration(name, refusal.toString(), refusal);
        }

        static Registration failed(String poolName, ObjectName name, String reason) {
            LOG.log(System.Logger.Level.WARNING, "Turntable: pool '" + poolName
                    + "' is not registered in JMX: " + reason);
            return new Registration(name, reason, null);
        }

        /** Whether the pool's MBean is registered now (false after a failure, {@link #close()} or termination). */
        public boolean isRegistered() {
            return !closed.get() && adapter.isRegistered();
        }

        /** The MBean's name; {@code null} only when the pool name itself was invalid. */
        public ObjectName objectName() {
            return objectName;
        }

        /** Why registration failed, if it did. */
        public Optional<String> failure() {
            return Optional.ofNullable(failure);
        }

        /**
         * Unregisters the MBean if it is still this registration's (logging one line if the server
         * refuses); the executor's rejection counter stays in place.
         */
        @Override
        public void close() {
            if (!closed.compareAndSet(false, true)) {
                return;
            }
            Reaper.forget(this);
            if (!adapter.isRegistered()) {
                return; // someone else unregistered it; the name may belong to another MBean now
            }
            try {
                server.unregisterMBean(objectName);
            } catch (InstanceNotFoundException e) {
                // already gone
            } catch (Exception e) {
                LOG.log(System.Logger.Level.WARNING, "Turntable: could not unregister " + objectName + ": " + e);
            }
        }

        @Override
        public String toString() {
            return "Registration[" + objectName + (failure != null ? ", failed: " + failure
                    : isRegistered() ? ", registered" : ", closed") + "]";
        }
    }

    /**
     * The single daemon thread that unregisters the MBeans of terminated pools; see the class
     * comment. Its state is guarded by the class lock.
     */
    private static final class Reaper {
        private static final Set<Registration> WATCHED = ConcurrentHashMap.newKeySet();
        private static ScheduledThreadPoolExecutor scheduler;
        private static ScheduledFuture<?> sweep;

        private Reaper() {
        }

        static synchronized void watch(Registration r) {
            WATCHED.add(r);
            if (sweep == null) {
                if (scheduler == null) {
                    // It serves every application's pools and runs none of their code but an
                    // executor's isTerminated and unregistration: it keeps no class loader of the
                    // application that registers first (see ServiceThreads).
                    scheduler = new ScheduledThreadPoolExecutor(1,
                            task -> ServiceThreads.newThread("turntable-jmx-reaper", task));
                    scheduler.setKeepAliveTime(REAPER_IDLE_SECONDS, TimeUnit.SECONDS);
                    scheduler.allowCoreThreadTimeOut(true);
                    scheduler.setRemoveOnCancelPolicy(true);
                }
                sweep = scheduler.scheduleWithFixedDelay(Reaper::sweep, REAPER_PERIOD_MILLIS,
                        REAPER_PERIOD_MILLIS, TimeUnit.MILLISECONDS);
            }
        }

        static synchronized void forget(Registration r) {
            WATCHED.remove(r);
            if (WATCHED.isEmpty() && sweep != null) {
                sweep.cancel(false);
                sweep = null;
            }
        }

        private static void sweep() {
            for (Registration r : WATCHED) {
                try {
                    ThreadPoolExecutor e = r.executor.get();
                    if (e == null || saysTerminated(e) || !r.adapter.isRegistered()) {
                        r.close();
                    }
                } catch (RuntimeException e) { // never let one pool stop the sweeps of the others
                    LOG.log(System.Logger.Level.WARNING, "Turntable: JMX reaper failed on " + r.objectName + ": " + e);
                }
            }
        }
    }
}
