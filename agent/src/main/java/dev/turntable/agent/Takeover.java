package dev.turntable.agent;

import dev.turntable.pool.TurntableQueue;
import dev.turntable.pool.TurntableQueueBuilder;
import dev.turntable.pool.strategy.Measurement;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;

/**
 * The agent's decisions, behind the bootstrap bridge's hooks: which pool is taken over, under what
 * name, and the engine queue that stands in for its work queue. Called on whatever thread
 * constructs a pool or ends a worker; every entry point catches everything, so nothing is ever
 * thrown into application code.
 */
final class Takeover {

    private final Options options;
    private final PoolRegistry registry;
    private final PoolNamer namer;
    private final Runnable applicationPoolSeen;
    private final BiConsumer<ThreadPoolExecutor, PoolRecord> poolManaged;
    /** Whether the advice that swallows the retirement signal is in place (see {@link Retirement}). */
    private final BooleanSupplier retirementSupported;
    /** Set while this thread is inside a hook: a pool our own code builds is never hooked twice. */
    private final ThreadLocal<Boolean> busy = new ThreadLocal<>();

    Takeover(Options options, PoolRegistry registry, Runnable applicationPoolSeen) {
        this(options, registry, applicationPoolSeen, (pool, record) -> { });
    }

    /**
     * @param applicationPoolSeen called (on the constructing thread) whenever application code
     *                            creates a pool, managed or not
     * @param poolManaged         called (on the constructing thread, as its constructor returns)
     *                            with every pool the agent took over and its record; must be quick
     *                            and must not throw
     */
    Takeover(Options options, PoolRegistry registry, Runnable applicationPoolSeen,
             BiConsumer<ThreadPoolExecutor, PoolRecord> poolManaged) {
        this(options, registry, applicationPoolSeen, poolManaged, () -> false);
    }

    /**
     * @param retirementSupported read as each managed pool's queue is built: whether its workers
     *                            may retire ({@code max-lifetime-tasks}, {@code recycleWorker});
     *                            when false the queue never retires a worker and
     *                            {@code max-lifetime-tasks} stays 0
     */
    Takeover(Options options, PoolRegistry registry, Runnable applicationPoolSeen,
             BiConsumer<ThreadPoolExecutor, PoolRecord> poolManaged, BooleanSupplier retirementSupported) {
        this.options = options;
        this.registry = registry;
        this.namer = new PoolNamer(options.poolNames());
        this.applicationPoolSeen = applicationPoolSeen;
        this.poolManaged = poolManaged;
        this.retirementSupported = retirementSupported;
    }

    PoolRegistry registry() {
        return registry;
    }

    /**
     * Hook for the entry of {@code ThreadPoolExecutor}'s 7-argument constructor: see
     * {@code TurntableBridge.poolConstructing}. Returns {@code {queueOrNull, record}} or {@code null}.
     */
    Object[] onConstructing(Object[] args) {
        if (busy.get() != null) {
            return null;
        }
        busy.set(Boolean.TRUE);
        try {
            int core = (Integer) args[0];
            int max = (Integer) args[1];
            long keepAlive = (Long) args[2];
            if (core < 0 || max <= 0 || max < core || keepAlive < 0 || !(args[3] instanceof TimeUnit)
                    || !(args[4] instanceof BlockingQueue) || !(args[5] instanceof ThreadFactory)
                    || !(args[6] instanceof RejectedExecutionHandler)) {
                return null; // the constructor throws as it always did
            }
            Decision d = decide(CreationSite.current(), (BlockingQueue<?>) args[4], core, max);
            return new Object[] {d.queue, d.record};
        } catch (Throwable t) {
            Log.unexpected("deciding about a new ThreadPoolExecutor", t);
            return null;
        } finally {
            busy.remove();
        }
    }

    /** Hook for the constructor's normal return: the pool now exists under its record. */
    void onConstructed(Object pool, Object token) {
        try {
            PoolRecord r = (PoolRecord) token;
            if (registry.register(pool, r) && r.managed() && pool instanceof ThreadPoolExecutor) {
                TurntableQueue engine = r.queue();
                if (engine != null) {
                    engine.setOwner((ThreadPoolExecutor) pool); // see there: hand-off puts
                }
                poolManaged.accept((ThreadPoolExecutor) pool, r);
            }
        } catch (Throwable t) {
            Log.unexpected("recording a new ThreadPoolExecutor", t);
        }
    }

    /** Hook for a managed pool's {@code reject(Runnable)}: on the submitting thread, lock-free. */
    void onRejected(Object pool) {
        try {
            registry.countRejection(pool);
        } catch (Throwable t) {
            Log.unexpected("counting a rejected task", t);
        }
    }

    /** Hook for a {@code ForkJoinPool} constructor's return: listed, never managed. */
    void onForkJoinPool(Object pool) {
        if (busy.get() != null) {
            return;
        }
        busy.set(Boolean.TRUE);
        try {
            if (registry.contains(pool)) {
                return; // an outer constructor of the same chain
            }
            CreationSite site = CreationSite.current();
            String name = namer.unique(namer.baseName(site));
            registry.register(pool, new PoolRecord(name, site.site(), false,
                    reasonByOrigin(site, "ForkJoinPool: not a ThreadPoolExecutor"), pool.getClass().getName(), null));
            if (site.origin() == CreationSite.Origin.APPLICATION) {
                applicationPoolSeen.run();
            }
        } catch (Throwable t) {
            Log.unexpected("recording a new ForkJoinPool", t);
        } finally {
            busy.remove();
        }
    }

    /** Hook for a managed pool's new worker about to run the task it was created with: on that thread. */
    static void onWorkerStarting(Object queue, Object firstTask) {
        try {
            ((TurntableQueue) queue).workerStarting((Runnable) firstTask);
        } catch (Throwable t) {
            Log.unexpected("telling the engine a worker started", t);
        }
    }

    /**
     * Hook for a managed pool asked for a core thread to run a task first, with {pool, its work
     * queue, the task}: on the submitting thread. True if the engine queued the task behind
     * tasks already waiting ({@link TurntableQueue#queueBehindWaiting}, which also starts a
     * thread for it if needed); false if it did not. If something throws (the pool's own
     * {@code remove} or an override of it), true exactly while the task is still queued: then
     * it is accepted and runs from the queue, and {@code addWorker} must not also run it.
     */
    static boolean onFirstTask(Object[] poolQueueTask) {
        Object queue = poolQueueTask[1]; // the pool's own work queue field, not an override of getQueue()
        Object task = poolQueueTask[2];
        if (!(queue instanceof TurntableQueue) || !(task instanceof Runnable)) {
            return false;
        }
        TurntableQueue engine = (TurntableQueue) queue;
        try {
            return engine.queueBehindWaiting((ThreadPoolExecutor) poolQueueTask[0], (Runnable) task);
        } catch (Throwable t) {
            Log.unexpected("queuing a new worker's first task", t);
            try {
                return engine.contains(task);
            } catch (Throwable again) {
                return false;
            }
        }
    }

    /** Hook for a managed pool's worker leaving: on the worker thread itself. */
    static void onWorkerExiting(Object queue) {
        try {
            ((TurntableQueue) queue).workerExiting();
        } catch (Throwable t) {
            Log.unexpected("telling the engine a worker left", t);
        }
    }

    /** Hook for a managed pool's {@code shutdown()}/{@code shutdownNow()} return: on the thread that shut it down. */
    static void onOwnerShutDown(Object queue) {
        try {
            ((TurntableQueue) queue).ownerShutDown();
        } catch (Throwable t) {
            Log.unexpected("telling the engine its pool shut down", t);
        }
    }

    /** Hook for a managed pool's {@code shutdownNow()} entry (true) and failure (false): on the thread that calls it. */
    static void onOwnerStopping(Object queue, Boolean stopping) {
        try {
            ((TurntableQueue) queue).ownerStopping(stopping);
        } catch (Throwable t) {
            Log.unexpected("telling the engine its pool is stopping", t);
        }
    }

    /**
     * Hook for a managed pool's termination, just before its {@code terminated()}: on the thread
     * that completes it. Ends what the engine still counts of workers that left the pool but have
     * not yet told it (see {@code TurntableQueue.ownerTerminated}).
     */
    static void onOwnerTerminated(Object queue) {
        try {
            ((TurntableQueue) queue).ownerTerminated();
        } catch (Throwable t) {
            Log.unexpected("telling the engine its pool terminated", t);
        }
    }

    /** Lists a pool that existed before the agent was attached: seen, never taken over. */
    void onPreexisting(Object pool) {
        if (registry.contains(pool)) {
            return;
        }
        String name = namer.unique(CreationSite.simpleName(pool.getClass().getName()) + ".beforeAttach");
        registry.register(pool, new PoolRecord(name, "unknown", false, "created before attach",
                pool.getClass().getName(), null));
    }

    /** A decision: the record (always) and the engine queue (when managed). */
    record Decision(PoolRecord record, TurntableQueue queue) {
    }

    Decision decide(CreationSite site, BlockingQueue<?> queue, int core, int max) {
        String base = namer.baseName(site);
        String name = namer.unique(base);
        String poolClass = site.poolClass() == null ? "java.util.concurrent.ThreadPoolExecutor" : site.poolClass().getName();
        String notApplication = reasonByOrigin(site, null);
        if (notApplication != null) {
            return new Decision(new PoolRecord(name, site.site(), false, notApplication, poolClass, null), null);
        }
        applicationPoolSeen.run();
        QueuePolicy.Verdict v = QueuePolicy.classify(site.poolClass(), queue);
        if (!v.takeOver()) {
            if (v.said()) {
                sayUntouched(base, name, v.reason());
            }
            return new Decision(new PoolRecord(name, site.site(), false, v.reason(), poolClass, null), null);
        }
        Glob excludedBy = firstMatch(options.exclude(), name, base);
        if (excludedBy != null) {
            return new Decision(new PoolRecord(name, site.site(), false, "excluded by exclude=" + excludedBy,
                    poolClass, null), null);
        }
        if (firstMatch(options.include(), name, base) == null) {
            return new Decision(new PoolRecord(name, site.site(), false, "not matched by include="
                    + Options.text(OptionKey.INCLUDE, options.include()), poolClass, null), null);
        }
        QueueSharing.Verdict sharing = site.queueSharing();
        if (sharing.kind() == QueueSharing.Kind.SHARED) {
            String reason = "the application keeps its own reference to the work queue (" + sharing.detail()
                    + "), which the engine would leave empty";
            sayUntouched(base, name, reason);
            return new Decision(new PoolRecord(name, site.site(), false, reason, poolClass, null), null);
        }
        TurntableQueue engine;
        try {
            // A queue that only the pool can reach needs no watching; one that came from elsewhere
            // may still be held by code that puts tasks into it, which the engine then runs too.
            engine = newQueue(v, core, max, name, base, sharing.kind() == QueueSharing.Kind.PRIVATE ? null : queue);
        } catch (RuntimeException e) {
            Log.line("pool " + name + " left untouched: the engine refused its settings: " + e.getMessage());
            return new Decision(new PoolRecord(name, site.site(), false, "engine refused: " + e.getMessage(),
                    poolClass, null), null);
        }
        // Taken over on a guess where the reading could not follow the queue: say which, where
        // the Agent MBean's Pools table lists the pool, for an operator whose gauge on that queue
        // object reads 0 (the tasks put there still run).
        String reason = sharing.kind() == QueueSharing.Kind.PRIVATE ? v.reason()
                : v.reason() + "; whether the application keeps the queue is unknown (" + sharing.detail()
                        + "): what it puts there runs too, but that queue object stays empty";
        return new Decision(new PoolRecord(name, site.site(), true, reason, poolClass, engine), engine);
    }

    /** Lines said about pools left untouched, at most: pools built per request may each have their own site. */
    static final int MAX_UNTOUCHED_LINES = 50;
    private final java.util.Set<String> untouchedSaid = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** Creation sites whose hand-off pools were said to keep task classes off, at most {@link #MAX_UNTOUCHED_LINES}. */
    private final java.util.Set<String> handOffClassesSaid = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /**
     * One line the first time an application pool from creation site {@code base} is left
     * untouched for what its queue is or where it goes (not for an order the application chose,
     * see {@link QueuePolicy.Verdict#said}, nor for {@code exclude}/{@code include}, which the
     * operator chose): the agent could not take it over safely, and says so once.
     * {@code turntablectl pools} and the Agent MBean list every such pool with the same reason.
     */
    private void sayUntouched(String base, String name, String reason) {
        if (untouchedSaid.size() < MAX_UNTOUCHED_LINES && untouchedSaid.add(base)) {
            Log.line("pool " + name + " left untouched: " + reason
                    + (untouchedSaid.size() == MAX_UNTOUCHED_LINES ? " (further such pools: turntablectl pools)" : ""));
        }
    }

    private static String reasonByOrigin(CreationSite site, String otherwise) {
        switch (site.origin()) {
            case JDK:
                return "created by the JDK";
            case TURNTABLE:
                return "created by Turntable";
            case UNKNOWN:
                return "creation site not found";
            default:
                return otherwise;
        }
    }

    private static Glob firstMatch(List<Glob> globs, String name, String base) {
        for (Glob g : globs) {
            if (g.matches(name) || g.matches(base)) {
                return g;
            }
        }
        return null;
    }

    /**
     * The engine queue for a pool taken over, with the options applied; {@code name} is the pool's
     * contract name (the requestor of its tasks under {@code requestor=POOL_NAME}), and
     * {@code original} the queue the application passed in, whose tasks the engine runs too (or
     * null). A hand-off pool gets no task classes (its queue holds no task to schedule by class):
     * one line says so.
     */
    @SuppressWarnings("unchecked")
    TurntableQueue newQueue(QueuePolicy.Verdict v, int core, int max, String name, String base, BlockingQueue<?> original) {
        TurntableQueueBuilder b = TurntableQueue.builder();
        if (original != null) {
            // The application may still hold the queue it made and use it directly (a handler
            // that blocks on queue.put, tasks queued before prestartAllCoreThreads): the engine
            // runs what is put there too. A work queue of a ThreadPoolExecutor holds Runnables.
            b.replacing((BlockingQueue<Runnable>) original);
        }
        int expected;
        switch (v.capacity()) {
            case BOUNDED:
                b.bounded(v.bound());
                expected = max;
                break;
            case HAND_OFF:
                b.handOff();
                expected = max;
                break;
            default:
                b.unbounded();
                expected = core; // an unbounded queue never lets the pool grow past its core
                break;
        }
        b.expectedWorkers(Math.max(1, Math.min(expected, 1024)))
                .strategy(options.strategy())
                .measurement(Measurement.parse(options.measurement()))
                .median(options.median())
                .taskStealing(options.taskStealing())
                .maxConcurrentTasks(options.maxConcurrentTasks())
                .heartbeatTimeoutMillis(options.heartbeatTimeoutMillis())
                .workerSelectTimeoutMillis(options.workerSelectTimeoutMillis())
                .poolName(name)
                .requestor(options.requestor())
                .rebalanceThreshold(options.rebalanceThreshold())
                .rebalanceMinimumDurationMillis(options.rebalanceMinDurationMillis());
        if (options.taskClasses()) {
            if (v.capacity() == TurntableQueue.Capacity.HAND_OFF) {
                // Once per creation site, as the untouched lines: a cached pool built per request
                // printed one identical line per pool.
                if (handOffClassesSaid.size() < MAX_UNTOUCHED_LINES && handOffClassesSaid.add(base)) {
                    Log.line("pool " + name + " hands each task straight to a thread (SynchronousQueue),"
                            + " so task classes stay off for it");
                }
            } else {
                b.taskClasses(options.classLoadPercents(), options.requestorMap());
            }
        }
        long[] w = options.weights();
        if (w != null) {
            b.weightsMillis(w);
        }
        // Only with the runWorker advice in place may the engine throw its retirement signal:
        // without it the application's UncaughtExceptionHandler would see every retirement.
        boolean retire = retirementSupported.getAsBoolean();
        if (retire) {
            b.maxLifetimeTasks(options.maxLifetimeTasks());
        }
        TurntableQueue q = b.build();
        if (w != null) {
            sayIfWeightsDoNotFit(name, w, core, max, q.getDefaultWeightMillis());
        }
        if (retire) {
            q.setRetirementSupported(true);
            // The same transformation put the processWorkerExit advice in place, which reports
            // every worker that leaves: idle workers may park without re-checking every 100 ms.
            q.setWorkerExitsReported(true);
        }
        return q;
    }

    /**
     * One {@code weights} option serves every pool, by worker index. A pool with more workers than
     * weights gives the rest the weight derived from the CPUs; one with fewer leaves the last
     * weights unused. Either way the operator may have meant something else: one line says what
     * this pool does with them (the JMX attribute, set per pool, refuses such a count instead).
     */
    private static void sayIfWeightsDoNotFit(String name, long[] w, int core, int max, long derivedMillis) {
        int n = w.length;
        if (n < core) {
            Log.line("pool " + name + ": option weights gives " + n + (n == 1 ? " weight" : " weights") + " for "
                    + core + " workers;"
                    + " workers " + n + " and up get the weight derived from the CPUs, " + derivedMillis + " ms");
        } else if (n > max) {
            Log.line("pool " + name + ": option weights gives " + n + " weights for at most " + max
                    + (max == 1 ? " worker;" : " workers;")
                    + (n - max == 1 ? " the last is unused" : " the last " + (n - max) + " are unused"));
        }
    }
}
