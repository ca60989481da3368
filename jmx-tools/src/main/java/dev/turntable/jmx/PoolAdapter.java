package dev.turntable.jmx;

import dev.turntable.pool.DefaultWeights;
import dev.turntable.pool.Rebalance;
import dev.turntable.pool.RetiredWorker;
import dev.turntable.pool.TurntableExecutor;
import dev.turntable.pool.TurntableQueue;
import dev.turntable.pool.WorkerInfo;
import dev.turntable.pool.classes.ClassConfig;
import dev.turntable.pool.stats.LatencySnapshot;
import dev.turntable.pool.strategy.Measurement;
import dev.turntable.pool.strategy.Statistic;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import javax.management.AttributeChangeNotification;
import javax.management.MBeanNotificationInfo;
import javax.management.MBeanRegistration;
import javax.management.MBeanServer;
import javax.management.Notification;
import javax.management.NotificationBroadcasterSupport;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeDataSupport;
import javax.management.openmbean.CompositeType;
import javax.management.openmbean.OpenDataException;
import javax.management.openmbean.OpenType;
import javax.management.openmbean.SimpleType;

/**
 * The {@link PoolMXBean} of one pool: adapts a {@link ThreadPoolExecutor} and the
 * {@link TurntableQueue} that is its work queue. Any thread may call any method; writes are
 * serialised among themselves (so each notification's old and new values belong together), reads
 * are not locked. Register it with {@link TurntableJmx#register}, which also counts rejections
 * and unregisters it when the pool terminates, or register it yourself under
 * {@link TurntableJmx#poolObjectName(String)}.
 *
 * <p>The adapter holds the pool weakly, so it never keeps alive a pool the application dropped
 * without shutting it down; reads of such a pool's executor figures throw
 * {@link IllegalStateException} until {@link TurntableJmx}'s reaper unregisters the MBean.
 *
 * <p>{@code RejectedTaskCount} comes from the rejection counter given to the constructor when
 * there is one (the agent counts rejections itself, without touching the pool's handler); else it
 * is read from the executor's handler when that is a {@link RejectionCounter}, and is {@code -1}
 * otherwise.
 *
 * <p>A {@code NotificationEmitter}: every successful write of a writable attribute sends one
 * {@link AttributeChangeNotification} ({@code jmx.attribute.change}) with the old and the new
 * value, synchronously on the writing thread (JMX connectors queue them for remote listeners).
 * While registered, it also sends one {@value #WORKER_RETIRED} notification per worker that
 * retires, on the retiring worker thread itself (the engine calls it just before the worker
 * leaves): its {@code userData} is a {@code CompositeData} of {@link #RETIRED_ITEMS}. Building
 * and sending it never throws into the worker; a slow in-process listener delays that worker's
 * replacement, remote listeners (JMX connectors buffer) do not. Likewise one {@value #REBALANCE}
 * notification per rebalancing of task classes, on the thread that ran the engine's scheduling
 * pass, with a {@code CompositeData} of {@link #REBALANCE_ITEMS}. The class operations
 * ({@code setClassLoadPercents}, {@code setRequestorMap}, {@code setTaskClasses}) send a
 * {@code jmx.attribute.change} for {@code ClassLoadPercents} and {@code RequestorMap} when they
 * change them, with the old and new value as text.
 *
 * <p>Why this file is long (~780 lines, 95 of them comments): it implements the whole
 * {@link PoolMXBean}, 54 attributes and operations, each write checking its value and sending its
 * notification under the one write lock, and the notifications' composite types; the interface is
 * one MBean for JConsole's one attribute tree, so its adapter is one class.
 */
public final class PoolAdapter extends NotificationBroadcasterSupport implements PoolMXBean, MBeanRegistration {

    /** Reads of {@code RunTimeMillis}/{@code WaitTimeMillis} closer together than this share one interval. */
    public static final long LATENCY_INTERVAL_MIN_MILLIS = 1000;

    /** The type of the notification sent when a worker thread retires. */
    public static final String WORKER_RETIRED = "dev.turntable.worker.retired";

    /** Items of a {@value #WORKER_RETIRED} notification's {@code userData}, in this order. */
    public static final List<String> RETIRED_ITEMS = List.of("index", "threadName", "lifetimeTasks", "reason",
            "retirements");

    /** The open type of that {@code userData}. */
    public static final CompositeType RETIRED_TYPE = retiredType();

    /** The type of the notification sent each time the pool rebalances its task classes. */
    public static final String REBALANCE = "dev.turntable.rebalance";

    /** Items of a {@value #REBALANCE} notification's {@code userData}, in this order. */
    public static final List<String> REBALANCE_ITEMS = List.of("deltaSpreadPercent", "thresholdPercent",
            "tasksToStop", "tasksStopped");

    /** The open type of that {@code userData}. */
    public static final CompositeType REBALANCE_TYPE = rebalanceType();

    /** Statistics each built-in strategy needs, by name; computed once per name. */

    private final String poolName;
    /**
     * Held weakly: the MBean never keeps a pool reachable that the application dropped without
     * shutting it down (an idle cached pool would be collected without Turntable, and must be with
     * it); {@link TurntableJmx}'s reaper then unregisters the MBean.
     */
    private final WeakReference<ThreadPoolExecutor> executor;
    private final TurntableQueue queue;
    /** Rejections counted outside the executor's handler, or {@code null}: see the class comment. */
    private final LongSupplier rejectedTaskCount;
    private final AtomicLong sequence = new AtomicLong();
    /** Serialises writes, so each notification's old and new value belong together. */
    private final Object writeLock = new Object();
    private final IntervalCache runTimes = new IntervalCache();
    private final IntervalCache waitTimes = new IntervalCache();
    private volatile ObjectName objectName;
    /** Whether an MBean server holds this object now (set by the registration callbacks). */
    private volatile boolean registered;
    /** Sends a notification per retired worker; subscribed to the engine while registered. */
    private final Consumer<RetiredWorker> retirementListener = this::retired;
    /** Sends a notification per rebalancing; subscribed to the engine while registered. */
    private final Consumer<Rebalance> rebalanceListener = this::rebalanced;
    private final AtomicBoolean listening = new AtomicBoolean();

    /**
     * @param poolName the pool's name, {@code [A-Za-z0-9._-]+}
     * @param executor the pool
     * @param queue    its work queue ({@code executor.getQueue()})
     * @throws IllegalArgumentException if the name has other characters or {@code queue} is not
     *                                  {@code executor}'s work queue
     */
    public PoolAdapter(String poolName, ThreadPoolExecutor executor, TurntableQueue queue) {
        this(poolName, executor, queue, null);
    }

    /**
     * An adapter whose {@code RejectedTaskCount} reads {@code rejectedTaskCount} (which returns
     * {@code -1} for "not collected"), for a pool whose rejections are counted without replacing
     * its {@link RejectedExecutionHandler}, as the agent does.
     *
     * @param rejectedTaskCount the pool's rejections so far; called on JMX threads, so it must be
     *                          thread-safe and fast; {@code null} reads the executor's handler
     *                          as the three-argument constructor does
     * @throws IllegalArgumentException as the three-argument constructor
     */
    public PoolAdapter(String poolName, ThreadPoolExecutor executor, TurntableQueue queue,
                       LongSupplier rejectedTaskCount) {
        super(new MBeanNotificationInfo(new String[] {AttributeChangeNotification.ATTRIBUTE_CHANGE},
                        AttributeChangeNotification.class.getName(), "a writable attribute was set"),
                new MBeanNotificationInfo(new String[] {WORKER_RETIRED}, Notification.class.getName(),
                        "a worker thread retired (max-lifetime-tasks or recycleWorker) and the executor replaces it;"
                                + " userData: index, threadName, lifetimeTasks, reason (LIFETIME or RECYCLED),"
                                + " retirements"),
                new MBeanNotificationInfo(new String[] {REBALANCE}, Notification.class.getName(),
                        "the task classes' delta entitlement spread stayed above RebalanceThreshold for"
                                + " RebalanceMinimumDurationMillis, so over-entitled classes give workers back;"
                                + " userData: deltaSpreadPercent, thresholdPercent, tasksToStop, tasksStopped"
                                + " (class:count;...)"));
        this.objectName = TurntableJmx.poolObjectName(poolName);
        this.poolName = poolName;
        this.executor = new WeakReference<>(Objects.requireNonNull(executor, "executor"));
        this.queue = Objects.requireNonNull(queue, "queue");
        this.rejectedTaskCount = rejectedTaskCount;
        if (executor.getQueue() != queue) {
            throw new IllegalArgumentException("the TurntableQueue given for pool '" + poolName
                    + "' is not that executor's work queue");
        }
    }

    /** The pool's name, as in its {@code ObjectName}. */
    public String poolName() {
        return poolName;
    }

    /**
     * The pool, while it is reachable from elsewhere.
     *
     * @throws IllegalStateException if it was garbage-collected (the MBean is about to go)
     */
    private ThreadPoolExecutor executor() {
        ThreadPoolExecutor e = executor.get();
        if (e == null) {
            throw new IllegalStateException("pool " + poolName + " was garbage-collected without being shut down");
        }
        return e;
    }

    // ------------------------------------------------------------------ strategy and statistics settings

    @Override
    public String getStrategy() {
        return queue.getStrategy();
    }

    @Override
    public void setStrategy(String name) {
        if (name == null) {
            throw new IllegalArgumentException("Strategy must not be null; one of " + queue.getAvailableStrategies());
        }
        // The engine validates first: an unknown name changes nothing.
        write("Strategy", String.class.getName(), queue::getStrategy, () -> queue.setStrategy(name));
    }

    @Override
    public String[] getAvailableStrategies() {
        return queue.getAvailableStrategies().toArray(new String[0]);
    }

    @Override
    public String getMeasurement() {
        return queue.getMeasurement().name();
    }

    @Override
    public void setMeasurement(String measurement) {
        Measurement m = Measurement.parse(measurement); // names the value and the allowed ones
        write("Measurement", String.class.getName(), this::getMeasurement, () -> queue.setMeasurement(m));
    }

    @Override
    public boolean isMedian() {
        return queue.isMedian();
    }

    @Override
    public void setMedian(boolean median) {
        write("Median", "boolean", queue::isMedian, () -> queue.setMedian(median));
    }

    @Override
    public long[] getWorkerWeightsMillis() {
        return queue.getWorkerWeightsMillis();
    }

    @Override
    public void setWorkerWeightsMillis(long[] weightsMillis) {
        if (weightsMillis == null) {
            throw new IllegalArgumentException("WorkerWeightsMillis must not be null");
        }
        long[] w = weightsMillis.clone();
        write("WorkerWeightsMillis", long[].class.getName(), queue::getWorkerWeightsMillis, () -> {
            if (w.length == 0) {
                // None: every worker goes back to the weight derived from the CPUs, as a pool
                // built without weights has (the only way back once weights were written).
                queue.setWorkerWeightsMillis();
                return;
            }
            // One per worker the pool has or may have, by slot (weights go by slot index): at least
            // one for each core worker (core threads may still be starting; a new thread takes the
            // first free slot) and one for every slot up to the highest a thread holds, at most one
            // per worker the pool may have. Not one per slot ever made: slots stay once made, so a
            // pool that grew and shrank back would ask for weights of workers it no longer has.
            // But as many as it reads are fine too: weights set for more or fewer workers than this
            // pool has (the agent's weights option serves every pool; the library's setter takes
            // any count) can be written back as read.
            int core = executor().getCorePoolSize();
            int max = executor().getMaximumPoolSize();
            int highest = highestHeldSlot();
            int least = Math.max(1, Math.max(highest + 1, core));
            int most = Math.max(least, max);
            int read = queue.getWorkerWeightsMillis().length;
            if (w.length != read && (w.length < least || w.length > most)) {
                String low = highest + 1 > core ? "a worker holds slot #" + highest
                        : core > 0 ? "its core size is " + core : "it may start a worker";
                String high = most == max ? "its maximum size is " + max : "a worker holds slot #" + highest;
                throw new IllegalArgumentException("WorkerWeightsMillis " + Arrays.toString(w) + " has " + w.length
                        + (w.length == 1 ? " weight" : " weights") + "; this pool takes one per worker: "
                        + (least == most ? String.valueOf(least) : least + " to " + most)
                        + (most == 1 ? " weight" : " weights") + " (weights go by worker slot: at least " + least
                        + " as " + low + ", at most " + most + " as " + high + ")"
                        // The count it reads is taken too: say so, or a client that read it is told it cannot write it.
                        + (read != 0 && (read < least || read > most)
                                ? ", " + read + (read == 1 ? " weight" : " weights") + " as it reads now" : "")
                        + ", or an empty array"
                        + " (turntablectl: default) for the weights derived from the CPUs");
            }
            for (int i = 0; i < w.length; i++) {
                if (w[i] < 1 || w[i] > DefaultWeights.MAX_WEIGHT_MILLIS) {
                    throw new IllegalArgumentException("WorkerWeightsMillis " + Arrays.toString(w)
                            + ": weight " + w[i] + " of worker " + i + " is not in 1.."
                            + DefaultWeights.MAX_WEIGHT_MILLIS + " ms");
                }
            }
            queue.setWorkerWeightsMillis(w);
        });
    }

    /** The highest index of a worker slot that a thread holds now, or -1 if none does (a free slot reads RETIRED). */
    private int highestHeldSlot() {
        int highest = -1;
        for (WorkerInfo info : queue.workers()) {
            if (!"RETIRED".equals(info.state())) {
                highest = Math.max(highest, info.index());
            }
        }
        return highest;
    }

    @Override
    public boolean isTaskStealing() {
        return queue.isTaskStealing();
    }

    @Override
    public void setTaskStealing(boolean taskStealing) {
        write("TaskStealing", "boolean", queue::isTaskStealing, () -> queue.setTaskStealing(taskStealing));
    }

    @Override
    public boolean isLatencyHistograms() {
        return queue.isLatencyHistograms();
    }

    @Override
    public void setLatencyHistograms(boolean latencyHistograms) {
        write("LatencyHistograms", "boolean", queue::isLatencyHistograms,
                () -> queue.setLatencyHistograms(latencyHistograms));
    }

    @Override
    public void resetStatistics() {
        queue.resetStatistics();
    }

    // ------------------------------------------------------------------ worker lifetimes and limits

    @Override
    public int getMaxLifetimeTasks() {
        return queue.getMaxLifetimeTasks();
    }

    @Override
    public void setMaxLifetimeTasks(int maxLifetimeTasks) {
        // The engine validates first (and refuses a positive limit where retirement is unsupported).
        write("MaxLifetimeTasks", "int", queue::getMaxLifetimeTasks, () -> queue.setMaxLifetimeTasks(maxLifetimeTasks));
    }

    @Override
    public int getMaxConcurrentTasks() {
        return queue.getMaxConcurrentTasks();
    }

    @Override
    public void setMaxConcurrentTasks(int maxConcurrentTasks) {
        write("MaxConcurrentTasks", "int", queue::getMaxConcurrentTasks,
                () -> queue.setMaxConcurrentTasks(maxConcurrentTasks));
    }

    @Override
    public long getHeartbeatTimeoutMillis() {
        return queue.getHeartbeatTimeoutMillis();
    }

    @Override
    public void setHeartbeatTimeoutMillis(long heartbeatTimeoutMillis) {
        write("HeartbeatTimeoutMillis", "long", queue::getHeartbeatTimeoutMillis,
                () -> queue.setHeartbeatTimeoutMillis(heartbeatTimeoutMillis));
    }

    @Override
    public long getWorkerSelectTimeoutMillis() {
        return queue.getWorkerSelectTimeoutMillis();
    }

    @Override
    public void setWorkerSelectTimeoutMillis(long workerSelectTimeoutMillis) {
        write("WorkerSelectTimeoutMillis", "long", queue::getWorkerSelectTimeoutMillis,
                () -> queue.setWorkerSelectTimeoutMillis(workerSelectTimeoutMillis));
    }

    @Override
    public int[] getWorkerLifetimes() {
        return queue.workerLifetimes();
    }

    @Override
    public long getRetiredWorkerCount() {
        return queue.getRetiredWorkerCount();
    }

    @Override
    public void recycleWorker(int index) {
        queue.recycleWorker(index); // validates: a bad index throws with the reason, nothing happens
    }

    /**
     * The engine's retirement listener: on the retiring worker thread, just before it leaves. Sends
     * one {@value #WORKER_RETIRED} notification; never throws (the worker must retire whatever
     * the listeners do).
     */
    private void retired(RetiredWorker w) {
        try {
            Notification n = new Notification(WORKER_RETIRED, objectName, sequence.incrementAndGet(),
                    System.currentTimeMillis(), "worker " + w.index() + " (" + w.threadName() + ") retired after "
                    + w.lifetimeTasks() + " tasks (" + w.reason() + ")");
            n.setUserData(new CompositeDataSupport(RETIRED_TYPE, RETIRED_ITEMS.toArray(new String[0]),
                    new Object[] {w.index(), w.threadName(), w.lifetimeTasks(), w.reason(), w.retirements()}));
            sendNotification(n);
        } catch (OpenDataException | RuntimeException | Error e) {
            // A failing listener or a bad value: the notification is lost, the worker retires anyway.
        }
    }

    private static CompositeType retiredType() {
        try {
            return new CompositeType("dev.turntable.RetiredWorker", "a worker thread that retired",
                    RETIRED_ITEMS.toArray(new String[0]),
                    new String[] {"the worker's slot index", "the retiring thread's name",
                        "tasks the thread started in its life", "LIFETIME (max-lifetime-tasks) or RECYCLED (recycleWorker)",
                        "retirements of this pool so far, this one included"},
                    new OpenType<?>[] {SimpleType.INTEGER, SimpleType.STRING, SimpleType.LONG, SimpleType.STRING,
                        SimpleType.LONG});
        } catch (OpenDataException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    // ------------------------------------------------------------------ task classes

    @Override
    public Map<String, Integer> getClassLoadPercents() {
        return queue.getClassLoadPercents();
    }

    @Override
    public Map<String, String> getRequestorMap() {
        return queue.getRequestorMap();
    }

    @Override
    public Map<String, Integer> setClassLoadPercents(String classLoadPercents) {
        // The engine parses the whole text (and checks the kept map against it) before it changes anything.
        changeClasses(() -> queue.setClassLoadPercents(classLoadPercents));
        return getClassLoadPercents();
    }

    @Override
    public Map<String, String> setRequestorMap(String requestorMap) {
        changeClasses(() -> queue.setRequestorMap(requestorMap));
        return getRequestorMap();
    }

    @Override
    public Map<String, Integer> setTaskClasses(String classLoadPercents, String requestorMap) {
        changeClasses(() -> queue.setTaskClasses(classLoadPercents, requestorMap));
        return getClassLoadPercents();
    }

    @Override
    public String getRequestor() {
        return queue.getRequestor();
    }

    @Override
    public void setRequestor(String requestor) {
        write("Requestor", String.class.getName(), queue::getRequestor, () -> queue.setRequestor(requestor));
    }

    @Override
    public int getRebalanceThreshold() {
        return queue.getRebalanceThreshold();
    }

    @Override
    public void setRebalanceThreshold(int rebalanceThreshold) {
        write("RebalanceThreshold", "int", queue::getRebalanceThreshold,
                () -> queue.setRebalanceThreshold(rebalanceThreshold));
    }

    @Override
    public long getRebalanceMinimumDurationMillis() {
        return queue.getRebalanceMinimumDurationMillis();
    }

    @Override
    public void setRebalanceMinimumDurationMillis(long rebalanceMinimumDurationMillis) {
        write("RebalanceMinimumDurationMillis", "long", queue::getRebalanceMinimumDurationMillis,
                () -> queue.setRebalanceMinimumDurationMillis(rebalanceMinimumDurationMillis));
    }

    @Override
    public Map<String, Integer> getRunningTasksByClass() {
        return queue.getRunningTasksByClass();
    }

    @Override
    public Map<String, Integer> getWaitingTasksByClass() {
        return queue.getWaitingTasksByClass();
    }

    /**
     * One change of the class configuration by an operation, under the write lock: the engine
     * validates and applies it (throwing, changing nothing, on a bad value); then one
     * {@code jmx.attribute.change} for {@code ClassLoadPercents} and one for {@code RequestorMap},
     * each only if it changed, with the old and new value as text ({@code interactive:70;batch:30},
     * {@code http-.*:interactive}; empty: off / none), sent outside the lock.
     */
    private void changeClasses(Runnable validateAndApply) {
        List<AttributeChangeNotification> ns = new ArrayList<>();
        synchronized (writeLock) {
            String oldPercents = entries(queue.getClassLoadPercents());
            String oldMap = entries(queue.getRequestorMap());
            validateAndApply.run();
            String newPercents = entries(queue.getClassLoadPercents());
            String newMap = entries(queue.getRequestorMap());
            if (!oldPercents.equals(newPercents)) {
                ns.add(textChange("ClassLoadPercents", oldPercents, newPercents, "off"));
            }
            if (!oldMap.equals(newMap)) {
                ns.add(textChange("RequestorMap", oldMap, newMap, "none"));
            }
        }
        ns.forEach(this::sendNotification);
    }

    private AttributeChangeNotification textChange(String attribute, String oldValue, String newValue, String empty) {
        return new AttributeChangeNotification(objectName, sequence.incrementAndGet(), System.currentTimeMillis(),
                attribute + " of pool " + poolName + " set from " + (oldValue.isEmpty() ? empty : oldValue) + " to "
                        + (newValue.isEmpty() ? empty : newValue),
                attribute, String.class.getName(), oldValue, newValue);
    }

    /** {@code key:value;key:value}, in the map's order: the option's own text form. */
    static String entries(Map<String, ?> m) {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, ?> e : m.entrySet()) {
            sb.append(sb.length() == 0 ? "" : ";").append(e.getKey()).append(':').append(e.getValue());
        }
        return sb.toString();
    }

    /**
     * The engine's rebalance listener: on the thread that ran the scheduling pass (a submitter, a
     * worker or the housekeeper). Sends one {@value #REBALANCE} notification; never throws.
     */
    private void rebalanced(Rebalance r) {
        try {
            List<String> classes = new ArrayList<>();
            ClassConfig c = queue.classConfig();
            if (c != null) {
                for (String name : c.classNames()) {
                    if (r.tasksToStop().containsKey(name)) {
                        classes.add(name);
                    }
                }
            }
            for (String name : new TreeSet<>(r.tasksToStop().keySet())) {
                if (!classes.contains(name)) {
                    classes.add(name);
                }
            }
            Map<String, Integer> toStop = new LinkedHashMap<>();
            Map<String, Integer> stopped = new LinkedHashMap<>();
            StringBuilder what = new StringBuilder();
            for (String name : classes) {
                int want = r.tasksToStop().get(name);
                int done = r.tasksStopped().getOrDefault(name, 0);
                toStop.put(name, want);
                stopped.put(name, done);
                what.append(what.length() == 0 ? "" : ", ").append(name).append(' ').append(done).append(" of ")
                        .append(want);
                if (done < want) {
                    what.append(" (held until back within its entitlement)");
                }
            }
            int threshold = queue.getRebalanceThreshold();
            Notification n = new Notification(REBALANCE, objectName, sequence.incrementAndGet(),
                    System.currentTimeMillis(), "rebalanced: spread " + r.deltaSpreadPercent() + " pp > " + threshold
                    + "; stopped " + (what.length() == 0 ? "nothing" : what));
            n.setUserData(new CompositeDataSupport(REBALANCE_TYPE, REBALANCE_ITEMS.toArray(new String[0]),
                    new Object[] {r.deltaSpreadPercent(), threshold, entries(toStop), entries(stopped)}));
            sendNotification(n);
        } catch (OpenDataException | RuntimeException | Error e) {
            // A failing listener or a bad value: the notification is lost, scheduling goes on.
        }
    }

    private static CompositeType rebalanceType() {
        try {
            return new CompositeType("dev.turntable.Rebalance", "task classes rebalanced",
                    REBALANCE_ITEMS.toArray(new String[0]),
                    new String[] {"the delta entitlement spread that triggered it, in percentage points",
                        "RebalanceThreshold when it happened, in percentage points",
                        "per class, running tasks over its entitlement the plan named to stop, as class:count;...",
                        "per class, restartable tasks actually interrupted (to run again later), as class:count;..."
                            + " (the rest of a class is held until it is back within its entitlement)"},
                    new OpenType<?>[] {SimpleType.INTEGER, SimpleType.INTEGER, SimpleType.STRING, SimpleType.STRING});
        } catch (OpenDataException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    // ------------------------------------------------------------------ executor settings and counts

    @Override
    public int getCorePoolSize() {
        return executor().getCorePoolSize();
    }

    @Override
    public void setCorePoolSize(int corePoolSize) {
        write("CorePoolSize", "int", executor()::getCorePoolSize, () -> {
            int max = executor().getMaximumPoolSize();
            if (corePoolSize < 0 || corePoolSize > max) {
                throw new IllegalArgumentException("CorePoolSize " + corePoolSize + " is not in 0.." + max
                        + " (MaximumPoolSize " + max + "; raise that first to go higher)");
            }
            try {
                executor().setCorePoolSize(corePoolSize);
            } catch (IllegalArgumentException e) { // the maximum changed meanwhile, outside JMX
                throw new IllegalArgumentException("CorePoolSize " + corePoolSize + " refused by the executor"
                        + " (MaximumPoolSize is now " + executor().getMaximumPoolSize() + ")", e);
            }
        });
    }

    @Override
    public int getMaximumPoolSize() {
        return executor().getMaximumPoolSize();
    }

    @Override
    public void setMaximumPoolSize(int maximumPoolSize) {
        write("MaximumPoolSize", "int", executor()::getMaximumPoolSize, () -> {
            int core = executor().getCorePoolSize();
            if (maximumPoolSize < 1 || maximumPoolSize < core) {
                throw new IllegalArgumentException("MaximumPoolSize " + maximumPoolSize + " is not at least "
                        + Math.max(1, core) + " (CorePoolSize " + core + "; lower that first to go lower)");
            }
            try {
                executor().setMaximumPoolSize(maximumPoolSize);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("MaximumPoolSize " + maximumPoolSize + " refused by the executor"
                        + " (CorePoolSize is now " + executor().getCorePoolSize() + ")", e);
            }
        });
    }

    @Override
    public int getPoolSize() {
        return executor().getPoolSize();
    }

    @Override
    public int getActiveCount() {
        return executor().getActiveCount();
    }

    @Override
    public int getQueuedTaskCount() {
        return queue.size();
    }

    @Override
    public long getCompletedTaskCount() {
        ThreadPoolExecutor e = executor();
        // TurntableExecutor already counts a restarted task once
        return e instanceof TurntableExecutor ? e.getCompletedTaskCount()
                : queue.countingRestartsOnce(e::getCompletedTaskCount);
    }

    @Override
    public long getRejectedTaskCount() {
        if (rejectedTaskCount != null) {
            return rejectedTaskCount.getAsLong();
        }
        RejectedExecutionHandler h = executor().getRejectedExecutionHandler();
        return h instanceof RejectionCounter ? ((RejectionCounter) h).count() : WorkerStats.NOT_COLLECTED;
    }

    // ------------------------------------------------------------------ workers and latencies

    @Override
    public WorkerStats[] getWorkers() {
        Set<Statistic> collected = collectedStatistics();
        boolean run = collected.contains(Statistic.RUN_TIME);
        boolean wait = collected.contains(Statistic.WAIT_TIME);
        boolean cpu = collected.contains(Statistic.CPU_TIME);
        boolean medianRun = collected.contains(Statistic.TASK_TIME_ESTIMATE)
                && queue.getMeasurement() == Measurement.RUN_TIME && queue.isMedian();
        List<WorkerInfo> infos = queue.workers();
        WorkerStats[] out = new WorkerStats[infos.size()];
        for (int i = 0; i < out.length; i++) {
            WorkerInfo w = infos.get(i);
            out[i] = new WorkerStats(w.index(), w.threadName(), w.state(), w.queued(), w.running(),
                    w.completed(), w.lifetimeTasks(),
                    run ? estimate(w.averageRunTimeNanos()) : WorkerStats.NOT_COLLECTED,
                    medianRun ? estimate(w.taskTimeEstimateNanos()) : WorkerStats.NOT_COLLECTED,
                    wait ? estimate(w.averageWaitTimeNanos()) : WorkerStats.NOT_COLLECTED,
                    cpu ? LatencyStats.millis(w.cpuTimeNanos()) : WorkerStats.NOT_COLLECTED,
                    w.lastHeartbeatNanosAgo() < 0 ? -1 : TimeUnit.NANOSECONDS.toMillis(w.lastHeartbeatNanosAgo()));
        }
        return out;
    }

    private static double estimate(long nanos) {
        return nanos <= 0 ? Double.NaN : LatencyStats.millis(nanos);
    }

    @Override
    public LatencyStats getRunTimeMillis() {
        return latency(runTimes, queue::runTimeSnapshot);
    }

    @Override
    public LatencyStats getWaitTimeMillis() {
        return latency(waitTimes, queue::waitTimeSnapshot);
    }

    private LatencyStats latency(IntervalCache cache, Supplier<LatencySnapshot> snapshot) {
        if (!queue.isLatencyHistograms()) {
            return LatencyStats.notCollected();
        }
        return cache.get(snapshot);
    }

    /** What the engine collects now (it knows, for custom strategies too). */
    Set<Statistic> collectedStatistics() {
        return queue.collectedStatistics();
    }

    // ------------------------------------------------------------------ notifications and registration

    /**
     * One write: reads the old value, validates and applies (which throws, changing nothing, on a
     * bad value), reads the new value, all under the write lock; then sends the notification
     * outside it, so a slow or re-entrant listener never holds up other writers.
     */
    private void write(String attribute, String type, Supplier<?> current, Runnable validateAndApply) {
        AttributeChangeNotification n;
        synchronized (writeLock) {
            Object oldValue = current.get();
            validateAndApply.run();
            Object newValue = current.get();
            n = new AttributeChangeNotification(objectName, sequence.incrementAndGet(), System.currentTimeMillis(),
                    attribute + " of pool " + poolName + " set from " + text(oldValue) + " to " + text(newValue),
                    attribute, type, oldValue, newValue);
        }
        sendNotification(n);
    }

    private static String text(Object v) {
        return v instanceof long[] ? Arrays.toString((long[]) v) : String.valueOf(v);
    }

    /** Keeps the name it is registered under, as the source of its notifications. */
    @Override
    public ObjectName preRegister(MBeanServer server, ObjectName name) {
        if (name != null) {
            objectName = name;
        }
        return objectName;
    }

    /**
     * Once registered, listens to the engine's retirements and rebalancings (to send
     * {@value #WORKER_RETIRED} and {@value #REBALANCE}), and marks the JVM as one with Turntable
     * MBeans ({@link TurntableJmx#MBEANS_PROPERTY}).
     */
    @Override
    public void postRegister(Boolean registrationDone) {
        registered = Boolean.TRUE.equals(registrationDone);
        if (registered && listening.compareAndSet(false, true)) {
            queue.addRetirementListener(retirementListener);
            queue.addRebalanceListener(rebalanceListener);
        }
        if (registered) {
            markJvm();
        }
    }

    /** Sets {@link TurntableJmx#MBEANS_PROPERTY} unless set; a security manager's refusal only costs turntablectl's discovery. */
    private static void markJvm() {
        try {
            if (System.getProperty(TurntableJmx.MBEANS_PROPERTY) == null) {
                System.setProperty(TurntableJmx.MBEANS_PROPERTY, "true");
            }
        } catch (RuntimeException e) {
            // turntablectl then finds this JVM with --pid only
        }
    }

    @Override
    public void preDeregister() {
    }

    /** Stops listening to the engine: an unregistered MBean sends nothing and is not kept by the pool. */
    @Override
    public void postDeregister() {
        registered = false;
        if (listening.compareAndSet(true, false)) {
            queue.removeRetirementListener(retirementListener);
            queue.removeRebalanceListener(rebalanceListener);
        }
    }

    /** Whether an MBean server holds this object now; {@link TurntableJmx} unregisters only its own. */
    boolean isRegistered() {
        return registered;
    }

    /** The name it is registered under (or will be). */
    ObjectName objectName() {
        return objectName;
    }

    /**
     * The latest interval's summary of one latency recorder, refreshed at most once per
     * {@link #LATENCY_INTERVAL_MIN_MILLIS}. Any thread; reads serialise on the cache.
     */
    private static final class IntervalCache {
        private static final long MIN_NANOS = TimeUnit.MILLISECONDS.toNanos(LATENCY_INTERVAL_MIN_MILLIS);
        private LatencyStats last;
        private long lastNanos;

        synchronized LatencyStats get(Supplier<LatencySnapshot> snapshot) {
            long now = System.nanoTime();
            if (last == null || now - lastNanos >= MIN_NANOS) {
                last = LatencyStats.of(snapshot.get());
                lastNanos = now;
            }
            return last;
        }
    }
}
