package dev.turntable.pool;

import dev.turntable.pool.stats.TaskTimeWindows;
import dev.turntable.pool.strategy.Measurement;
import dev.turntable.pool.strategy.StrategyRegistry;
import dev.turntable.pool.strategy.WorkerChoiceStrategy;
import java.util.function.Supplier;

/**
 * Settings for a {@link TurntableQueue}; every method validates its argument at once and throws
 * {@link IllegalArgumentException} naming the value and what is allowed, but for the name given
 * to {@link #strategy(String)}, which {@link #build()} looks up among the strategies registered
 * by then (so it may name one that {@link #registerStrategy} registers later). The capacity is set at
 * most once, by one of {@link #unbounded()}, {@link #bounded(int)} or {@link #handOff()}: a second
 * call throws {@link IllegalStateException}. A refused call changes nothing. Not thread-safe: one
 * thread builds, then {@link #build()} copies what it needs.
 */
public final class TurntableQueueBuilder {

    /** What a measurement may be, for the message refusing another. */
    static final String MEASUREMENTS = "one of RUN_TIME, WAIT_TIME, CPU_TIME";
    /** What a pool name may be, for the message refusing another. */
    static final String POOL_NAMES = "any text (the requestor of every task under requestor POOL_NAME)";

    /**
     * {@code value}, or an {@link IllegalArgumentException} naming {@code name} as null and what
     * is {@code allowed}, as every other bad builder argument gets (a bare
     * {@code NullPointerException} names neither).
     */
    static <T> T given(T value, String name, String allowed) {
        if (value == null) {
            throw new IllegalArgumentException(name + " null is not allowed: " + allowed);
        }
        return value;
    }

    TurntableQueue.Capacity capacityMode = TurntableQueue.Capacity.UNBOUNDED;
    int capacity = Integer.MAX_VALUE;
    /** The call that set the capacity ({@code "bounded(10)"}), or null while it has the default. */
    private String capacitySetBy;
    int workerQueueCapacity = 1024;
    StrategyRegistry registry = StrategyRegistry.builtIn();
    String strategy = StrategyRegistry.defaultName();
    boolean taskStealing = true;
    Measurement measurement = Measurement.RUN_TIME;
    boolean median;
    int windowSize = TaskTimeWindows.DEFAULT_WINDOW;
    long[] weightsMillis;
    boolean latencyHistograms;
    int expectedWorkers = 1;
    Ticker ticker = Ticker.system();
    int maxLifetimeTasks;
    int maxConcurrentTasks;
    long heartbeatTimeoutMillis = 60_000;
    long workerSelectTimeoutMillis = 5_000;
    String classLoadPercents;
    String requestorMap;
    int rebalanceThreshold;
    long rebalanceMinimumDurationMillis = 240_000;
    dev.turntable.pool.classes.Requestor requestor = dev.turntable.pool.classes.Requestor.THREAD_NAME;
    String poolName = "pool";
    java.util.concurrent.BlockingQueue<Runnable> replacedQueue;

    TurntableQueueBuilder() {
    }

    /**
     * The queue this one replaces, when code that still holds it may use it directly: a Java
     * agent swapping the engine in for the work queue an application created and passed to its
     * executor, say. The application may keep putting tasks into it (a rejection handler that
     * blocks on {@code queue.put(task)}, tasks queued before {@code prestartAllCoreThreads()}),
     * and those tasks run too: workers take them as they take stolen ones, and they count in
     * {@link TurntableQueue#size()}, {@code drainTo}, {@code remove}, {@code poll}, {@code peek}
     * and the iterator. They bypass the strategy, task classes and this queue's capacity (they
     * are held by, and bounded by, {@code replaced}). See {@link TurntableQueue} for when workers
     * look at it.
     */
    public TurntableQueueBuilder replacing(java.util.concurrent.BlockingQueue<Runnable> replaced) {
        if (replaced == null) {
            throw new IllegalArgumentException("replaced queue is null: pass the queue this one stands in for");
        }
        if (replaced instanceof TurntableQueue) {
            throw new IllegalArgumentException("replaced queue " + replaced
                    + " is a TurntableQueue itself: pass the queue the engine stands in for");
        }
        replacedQueue = replaced;
        return this;
    }

    /**
     * No limit on waiting tasks, like {@code LinkedBlockingQueue()} (the default).
     *
     * @throws IllegalStateException if the capacity was already set
     */
    public TurntableQueueBuilder unbounded() {
        return capacity(TurntableQueue.Capacity.UNBOUNDED, Integer.MAX_VALUE, "unbounded()", CAPACITY_CALLS);
    }

    /**
     * At most {@code capacity} waiting tasks in all, like {@code ArrayBlockingQueue(capacity)}.
     *
     * @throws IllegalArgumentException if {@code capacity} is below 1
     * @throws IllegalStateException    if the capacity was already set
     */
    public TurntableQueueBuilder bounded(int capacity) {
        return capacity(TurntableQueue.Capacity.BOUNDED, checkCapacity(capacity), "bounded(" + capacity + ")",
                CAPACITY_CALLS);
    }

    /**
     * Direct hand-off, like {@code SynchronousQueue}: a task is accepted only by an idle worker.
     *
     * @throws IllegalStateException if the capacity was already set
     */
    public TurntableQueueBuilder handOff() {
        return capacity(TurntableQueue.Capacity.HAND_OFF, 0, "handOff()", CAPACITY_CALLS);
    }

    /** The capacity methods of this builder, for the message refusing a second one. */
    static final String CAPACITY_CALLS = "unbounded(), bounded(n) or handOff()";

    /** {@code capacity}, if a bounded queue may have it. */
    static int checkCapacity(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("queue capacity " + capacity + " must be at least 1");
        }
        return capacity;
    }

    /**
     * Sets the capacity mode once: {@code call} names the caller's method as the user wrote it
     * and {@code calls} the methods that set it, for the message refusing a second one (which
     * changes nothing; a last-wins second call silently undid the first).
     */
    TurntableQueueBuilder capacity(TurntableQueue.Capacity mode, int places, String call, String calls) {
        if (capacitySetBy != null) {
            throw new IllegalStateException("queue capacity already set to " + capacitySetBy + "; " + call
                    + " conflicts with it: call only one of " + calls);
        }
        capacityMode = mode;
        capacity = places;
        capacitySetBy = call;
        return this;
    }

    /** Places in each worker's own queue (a power of two, 2..65536; default 1024); the rest overflow to a shared queue. */
    public TurntableQueueBuilder workerQueueCapacity(int places) {
        if (places < 2 || places > 65536 || Integer.bitCount(places) != 1) {
            throw new IllegalArgumentException("worker queue capacity " + places
                    + " must be a power of two from 2 to 65536");
        }
        workerQueueCapacity = places;
        return this;
    }

    /**
     * The initial strategy, by name: a built-in one (see {@link StrategyRegistry#names()}) or one
     * of your own, registered with {@link #registerStrategy} before or after this call. The name
     * reads as {@code setStrategy} reads it (trimmed, upper-cased, {@code -} as {@code _}) and is
     * looked up by {@link #build()}, which refuses an unknown one.
     *
     * @throws IllegalArgumentException if {@code name} is null
     */
    public TurntableQueueBuilder strategy(String name) {
        strategy = given(name, "strategy", "a strategy name: one of " + StrategyRegistry.builtIn().names()
                + " or one registered with registerStrategy");
        return this;
    }

    /**
     * Registers a strategy of your own under {@code name}, so it can be chosen by name, live.
     * Checked now, not when first chosen: the name reads as a selection does (trimmed,
     * upper-cased, {@code -} as {@code _}) and must then match {@code [A-Z][A-Z0-9_]*}; the factory
     * is called once, on this thread, and must return a strategy whose
     * {@link WorkerChoiceStrategy#name()} is that name. A refused registration changes nothing.
     *
     * @throws IllegalArgumentException naming the value, for a bad name, or a factory that is null,
     *                                  throws, or returns null or a strategy of another name
     */
    public TurntableQueueBuilder registerStrategy(String name, Supplier<? extends WorkerChoiceStrategy> factory) {
        registry = registry.with(name, factory);
        return this;
    }

    public TurntableQueueBuilder taskStealing(boolean on) {
        taskStealing = on;
        return this;
    }

    public TurntableQueueBuilder measurement(Measurement m) {
        measurement = given(m, "measurement", MEASUREMENTS);
        return this;
    }

    public TurntableQueueBuilder median(boolean on) {
        median = on;
        return this;
    }

    /** Samples in each worker's moving average or median (1..4096; default 64). */
    public TurntableQueueBuilder windowSize(int samples) {
        TaskTimeWindows.create(false, samples); // validates
        windowSize = samples;
        return this;
    }

    /**
     * Worker weights in ms of task time per turn, by worker index (each 1..60000); workers beyond
     * the last get the default weight.
     *
     * @throws IllegalArgumentException for {@code null} or a weight out of range
     */
    public TurntableQueueBuilder weightsMillis(long... weights) {
        if (weights == null) {
            throw new IllegalArgumentException("weightsMillis must not be null: leave it unset for weights derived from the CPUs");
        }
        TurntableQueue.toNanos(weights); // validates
        weightsMillis = weights.clone();
        return this;
    }

    /**
     * Records run- and wait-time histograms whatever the strategy needs (default off): the run
     * time of every task workers take from the queue, however short, but the wait time of only a
     * uniform random 1 in 8 of the tasks offered, so the wait snapshot's {@code count()} is not a
     * task count. See {@link TurntableQueue#setLatencyHistograms} and
     * {@link TurntableQueue#runTimeSnapshot()} (a snapshot may miss recently completed tasks,
     * which come in the next one).
     */
    public TurntableQueueBuilder latencyHistograms(boolean on) {
        latencyHistograms = on;
        return this;
    }

    /**
     * Workers the pool is expected to run (default 1); sizes the default weight of the weighted
     * round robins, {@link DefaultWeights#weightMillis}, once, at {@link #build()}. For a
     * {@code ThreadPoolExecutor} of your own, pass its maximum pool size (its core size with an
     * unbounded queue, past which it never grows); {@link TurntableExecutor} passes its
     * maximum workers. Left at 1 on a pool with more workers than CPUs, each default weight is
     * that of a worker with a CPU to itself, 10 ms.
     */
    public TurntableQueueBuilder expectedWorkers(int workers) {
        if (workers < 1) {
            throw new IllegalArgumentException("expected workers " + workers + " must be at least 1");
        }
        expectedWorkers = workers;
        return this;
    }

    /**
     * {@code max-lifetime-tasks}: tasks a worker thread runs before it retires and is replaced
     * (0, the default, = never). Takes effect once the executor declares that it replaces retired
     * workers ({@link TurntableQueue#setRetirementSupported}); {@link TurntableExecutor} does.
     */
    public TurntableQueueBuilder maxLifetimeTasks(int tasks) {
        if (tasks < 0) {
            throw new IllegalArgumentException("max-lifetime-tasks " + tasks + " must be 0 (off) or positive");
        }
        maxLifetimeTasks = tasks;
        return this;
    }

    /**
     * {@code max-concurrent-tasks}: tasks queued or running on one worker at once (0, the default,
     * = no limit). Bounds nothing on a {@link #handOff()} queue, whose workers each hold at most
     * the one task reserved for them (a limit of 1 only keeps a worker that has just become free
     * from being chosen for the instant before it has ended its last task); accepted there all
     * the same, as the agent applies one value to every pool.
     */
    public TurntableQueueBuilder maxConcurrentTasks(int tasks) {
        if (tasks < 0) {
            throw new IllegalArgumentException("max-concurrent-tasks " + tasks + " must be 0 (no limit) or positive");
        }
        maxConcurrentTasks = tasks;
        return this;
    }

    /** {@code heartbeat-timeout-ms}: a worker inside one task longer than this is not chosen (default 60000; 0 = off). */
    public TurntableQueueBuilder heartbeatTimeoutMillis(long millis) {
        heartbeatTimeoutMillis = TurntableQueue.checkDurationMillis("heartbeat-timeout-ms", millis, "off");
        return this;
    }

    /** {@code worker-select-timeout-ms}: how long a submit waits for an eligible worker when limits leave none (default 5000). */
    public TurntableQueueBuilder workerSelectTimeoutMillis(long millis) {
        workerSelectTimeoutMillis = TurntableQueue.checkDurationMillis("worker-select-timeout-ms", millis, null);
        return this;
    }

    /** The clock for heartbeats and retirement hand-over; tests pass one they advance by hand. */
    public TurntableQueueBuilder ticker(Ticker t) {
        ticker = given(t, "ticker", "a Ticker (leave it unset for System.nanoTime)");
        return this;
    }

    /**
     * Task classes: {@code class-load-percents} and {@code requestor-map} (see
     * {@link TurntableQueue#setTaskClasses}); null or blank percents = off (the default).
     */
    public TurntableQueueBuilder taskClasses(String classLoadPercents, String requestorMap) {
        if (TaskClassSettings.switchesClassesOff(classLoadPercents)) {
            TaskClassSettings.refuseMapWithoutClasses(classLoadPercents, requestorMap); // as setTaskClasses does
        } else {
            dev.turntable.pool.classes.ClassConfig.parse(classLoadPercents, requestorMap); // validates
        }
        this.classLoadPercents = classLoadPercents;
        this.requestorMap = requestorMap;
        return this;
    }

    /** {@code rebalance-threshold}: delta entitlement spread (percentage points, 0..200) that triggers rebalancing; 0 = off. */
    public TurntableQueueBuilder rebalanceThreshold(int percentagePoints) {
        dev.turntable.pool.classes.ClassConfig.checkRebalanceThreshold(percentagePoints);
        rebalanceThreshold = percentagePoints;
        return this;
    }

    /** {@code rebalance-min-duration-ms}: how long the spread must stay above the threshold (default 240000). */
    public TurntableQueueBuilder rebalanceMinimumDurationMillis(long millis) {
        rebalanceMinimumDurationMillis = TurntableQueue.checkDurationMillis("rebalance-min-duration-ms", millis, null);
        return this;
    }

    /** {@code requestor}: {@code THREAD_NAME} (default), {@code TASK_CLASS} or {@code POOL_NAME}. */
    public TurntableQueueBuilder requestor(String source) {
        requestor = dev.turntable.pool.classes.Requestor.parse(source);
        return this;
    }

    /** The pool's name (the requestor under {@code POOL_NAME}). */
    public TurntableQueueBuilder poolName(String name) {
        poolName = given(name, "poolName", POOL_NAMES);
        return this;
    }

    /**
     * A new queue with these settings.
     *
     * @throws IllegalArgumentException if the name given to {@link #strategy(String)} is not that
     *                                  of a built-in or registered strategy (the message lists them)
     */
    public TurntableQueue build() {
        registry.resolve(strategy); // before the queue exists: an unknown name builds nothing
        return new TurntableQueue(this);
    }
}
