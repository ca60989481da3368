package dev.turntable.jmx;

import java.util.Map;

/**
 * The management interface of one Turntable pool, registered as
 * {@code dev.turntable:type=Pool,name=<pool>}. Implemented by {@link PoolAdapter}; any thread may
 * call any method, concurrently with the pool's own work (JMX calls arrive on RMI or
 * connector threads).
 *
 * <p>Every read is a point-in-time value: two attributes read one after the other may disagree
 * (a task may complete in between), and nothing here is a consistent snapshot of the whole pool.
 * Only settings the engine can change while the pool runs are writable. Every write is
 * validated in full before anything is touched: a bad value throws
 * {@link IllegalArgumentException} naming the value and what is allowed, and changes nothing. A
 * successful write emits a {@code jmx.attribute.change} notification with the old and new value;
 * each worker that retires emits a {@value PoolAdapter#WORKER_RETIRED} notification, and each
 * rebalancing of task classes a {@value PoolAdapter#REBALANCE} notification.
 *
 * <p>Units are in the names ({@code Millis}); counts are plain numbers. In {@link #getWorkers()},
 * {@link #getRunTimeMillis()} and {@link #getWaitTimeMillis()} a value the engine does not
 * collect in the current configuration reads {@code -1} ("not collected"), and a value with no
 * sample yet reads {@code NaN}; neither is ever reported as a fake {@code 0}.
 */
public interface PoolMXBean {

    /** The active worker choice strategy, one of {@link #getAvailableStrategies()}. */
    String getStrategy();

    /**
     * Switches the strategy live; tasks already queued stay where they are and run exactly once.
     * Case-insensitive, {@code -} read as {@code _}.
     *
     * @throws IllegalArgumentException if the name is not one of {@link #getAvailableStrategies()}
     */
    void setStrategy(String name);

    /** Names {@link #setStrategy} accepts, built-ins first. */
    String[] getAvailableStrategies();

    /** What time-based strategies measure: {@code RUN_TIME}, {@code WAIT_TIME} or {@code CPU_TIME}. */
    String getMeasurement();

    /** @throws IllegalArgumentException if not {@code RUN_TIME}, {@code WAIT_TIME} or {@code CPU_TIME} */
    void setMeasurement(String measurement);

    /** Whether the per-worker estimate is a simple moving median instead of a moving average. */
    boolean isMedian();

    void setMedian(boolean median);

    /**
     * Worker weights in milliseconds of task time per turn (weighted round robins), by worker
     * index; workers without a configured weight show the default.
     */
    long[] getWorkerWeightsMillis();

    /**
     * Sets every worker's weight at once; an empty array gives every worker the weight derived
     * from the CPUs again, as in a pool built without weights. Workers beyond the last weight
     * (after {@link #setMaximumPoolSize} raised the maximum) get that derived weight too.
     *
     * @throws IllegalArgumentException if a weight is outside 1..60000 ms, or there are some
     *                                  weights but fewer than worker slots (or
     *                                  {@link #getCorePoolSize()}), or more than
     *                                  {@link #getMaximumPoolSize()}
     */
    void setWorkerWeightsMillis(long[] weightsMillis);

    /** Whether an idle worker takes queued work from the busiest one. */
    boolean isTaskStealing();

    void setTaskStealing(boolean taskStealing);

    /** The executor's core pool size (threads kept even when idle). */
    int getCorePoolSize();

    /** @throws IllegalArgumentException if negative or above {@link #getMaximumPoolSize()} */
    void setCorePoolSize(int corePoolSize);

    /** The executor's maximum pool size. */
    int getMaximumPoolSize();

    /** @throws IllegalArgumentException if below 1 or below {@link #getCorePoolSize()} */
    void setMaximumPoolSize(int maximumPoolSize);

    /** Threads in the pool now. */
    int getPoolSize();

    /** Threads running a task now (approximate, as the executor counts it). */
    int getActiveCount();

    /** Tasks waiting now, in every worker's queue and the shared overflow queue. */
    int getQueuedTaskCount();

    /**
     * Tasks completed since the pool started (approximate, as the executor counts it), a task
     * that rebalancing stopped and ran again counted once.
     */
    long getCompletedTaskCount();

    /**
     * Tasks rejected: for a pool the agent manages, every call of the executor's rejection handler
     * since the pool was created (counted by the agent without touching the handler); for a pool
     * registered by {@link TurntableJmx#register(String, dev.turntable.pool.TurntableExecutor)},
     * since registration, through the counting handler it wraps around the executor's own;
     * {@code -1} ("not collected") when neither applies (the MBean was built directly, or the
     * application replaced the wrapped handler later).
     */
    long getRejectedTaskCount();

    /** One entry per worker slot, by index: see {@link WorkerStats} for the items and their units. */
    WorkerStats[] getWorkers();

    /**
     * Run-time distribution of tasks completed in the last interval, in milliseconds; needs
     * {@link #isLatencyHistograms()}. See {@link LatencyStats} for what "interval" means.
     */
    LatencyStats getRunTimeMillis();

    /** Wait-time (submit to start) distribution in the last interval, in milliseconds; like {@link #getRunTimeMillis()}. */
    LatencyStats getWaitTimeMillis();

    /**
     * Whether run- and wait-time histograms are recorded whatever the strategy needs. Off by
     * default: turning it on times every task, however short (one clock read per task back to
     * back, two after idling), stamps 1 offer in 8 for its wait, and adds a histogram update.
     */
    boolean isLatencyHistograms();

    void setLatencyHistograms(boolean latencyHistograms);

    /** Clears run, wait and CPU statistics, estimates and histograms; task counts are kept. */
    void resetStatistics();

    // ------------------------------------------------------------------ worker lifetimes and limits

    /**
     * {@code max-lifetime-tasks}: tasks a worker thread starts before it retires (one worker at a
     * time) and the executor replaces it with a new thread from the pool's ThreadFactory; 0 = never.
     */
    int getMaxLifetimeTasks();

    /**
     * Sets the lifetime limit live; workers already past a lower limit retire at their next task
     * boundary, one at a time.
     *
     * @throws IllegalArgumentException if negative, or positive on a pool whose executor cannot
     *                                  replace retired workers (the engine's message says so)
     */
    void setMaxLifetimeTasks(int maxLifetimeTasks);

    /**
     * {@code max-concurrent-tasks}: tasks queued on or running on one worker at once; 0 = no limit.
     * When every worker not on its way to retirement is at the limit a submit waits up to
     * {@link #getWorkerSelectTimeoutMillis()}, then the pool's rejection policy applies.
     */
    int getMaxConcurrentTasks();

    /** @throws IllegalArgumentException if negative */
    void setMaxConcurrentTasks(int maxConcurrentTasks);

    /**
     * {@code heartbeat-timeout-ms}: a worker inside one task longer than this is {@code STUCK} and not
     * chosen until it finishes (checked every 100 ms); 0 = off.
     */
    long getHeartbeatTimeoutMillis();

    /** @throws IllegalArgumentException if negative or above {@code TurntableQueue.MAX_DURATION_MILLIS} (about 292 years) */
    void setHeartbeatTimeoutMillis(long heartbeatTimeoutMillis);

    /**
     * {@code worker-select-timeout-ms}: how long a submit waits for a place when every worker not on
     * its way to retirement is at {@code max-concurrent-tasks}, before the pool's rejection policy
     * applies; 0 = do not wait. Lifetime limits alone never make a submit wait.
     */
    long getWorkerSelectTimeoutMillis();

    /** @throws IllegalArgumentException if negative or above {@code TurntableQueue.MAX_DURATION_MILLIS} (about 292 years) */
    void setWorkerSelectTimeoutMillis(long workerSelectTimeoutMillis);

    /**
     * Tasks each worker slot's current thread has been given (started plus queued), by index; 0 for a
     * free slot. With a lifetime limit this is the "staircase": workers started at different times
     * retire at different times.
     */
    int[] getWorkerLifetimes();

    /** Worker threads retired since the pool started (lifetime limit or {@link #recycleWorker}). */
    long getRetiredWorkerCount();

    /**
     * Asks worker {@code index} to retire at its next task boundary (at once if idle) and be replaced
     * by a new thread; its waiting tasks go to the other workers. One worker retires at a time.
     *
     * @throws IllegalArgumentException if the index names no live worker, or the pool's executor
     *                                  cannot replace retired workers
     */
    void recycleWorker(int index);

    // ------------------------------------------------------------------ task classes

    /**
     * {@code class-load-percents}, normalised: each class's share of the workers in percent (they
     * sum to 100), in the planner's order (share descending, then name); empty while task classes
     * are off. Seen by JMX clients as {@code TabularData} with rows {@code key} (class) and
     * {@code value} (percent). Changed by {@link #setClassLoadPercents} and {@link #setTaskClasses}.
     */
    Map<String, Integer> getClassLoadPercents();

    /**
     * {@code requestor-map}: regex to class, in the order they are tried (the first regex that
     * matches the whole requestor wins; a requestor none matches goes to the class with the
     * smallest share); empty while classes are off or when every requestor goes to that class.
     * {@code TabularData} with rows {@code key} (regex) and {@code value} (class).
     */
    Map<String, String> getRequestorMap();

    /**
     * Sets the class shares live, keeping the requestor map (which must name only the new classes):
     * {@code name:share} entries separated by {@code ;}, e.g. {@code interactive:70;batch:30};
     * shares are relative (0 to 1000000, normalised to percents). Empty or blank switches task
     * classes off (waiting tasks then go to the workers at once). An operation, not a setter (the
     * attribute is the normalised map).
     *
     * @return the normalised shares now in effect ({@link #getClassLoadPercents()})
     * @throws IllegalArgumentException with the engine's reason; nothing changes then
     */
    Map<String, Integer> setClassLoadPercents(String classLoadPercents);

    /**
     * Sets the requestor map live, keeping the class shares: {@code regex:class} entries separated
     * by {@code ;}, e.g. {@code http-.*:interactive;report-.*:batch}; empty clears it.
     *
     * @return the map now in effect ({@link #getRequestorMap()})
     * @throws IllegalArgumentException with the engine's reason (also while classes are off);
     *                                  nothing changes then
     */
    Map<String, String> setRequestorMap(String requestorMap);

    /**
     * Sets class shares and requestor map together, in one step (so classes can be renamed): as
     * {@link #setClassLoadPercents} then {@link #setRequestorMap}, but atomically. Empty
     * {@code classLoadPercents} switches classes off; {@code requestorMap} must then be empty too
     * (a map given with it is refused, as {@link #setRequestorMap} refuses one while classes are off).
     *
     * @return the normalised shares now in effect
     * @throws IllegalArgumentException with the engine's reason; nothing changes then
     */
    Map<String, Integer> setTaskClasses(String classLoadPercents, String requestorMap);

    /** Where a task's requestor comes from: {@code THREAD_NAME}, {@code TASK_CLASS} or {@code POOL_NAME}. */
    String getRequestor();

    /**
     * Case-insensitive, {@code -} read as {@code _}; applies to tasks submitted from now on.
     *
     * @throws IllegalArgumentException if not one of the three
     */
    void setRequestor(String requestor);

    /**
     * {@code rebalance-threshold}: delta entitlement spread, in percentage points (0..200), that
     * triggers rebalancing once it has lasted {@link #getRebalanceMinimumDurationMillis()}; 0 = off.
     */
    int getRebalanceThreshold();

    /** @throws IllegalArgumentException if outside 0..200 */
    void setRebalanceThreshold(int rebalanceThreshold);

    /** {@code rebalance-min-duration-ms}: how long the spread must stay above the threshold (default 240000). */
    long getRebalanceMinimumDurationMillis();

    /** @throws IllegalArgumentException if negative or above {@code TurntableQueue.MAX_DURATION_MILLIS} (about 292 years) */
    void setRebalanceMinimumDurationMillis(long rebalanceMinimumDurationMillis);

    /** Per class, tasks started and not yet finished (planner order); empty while classes are off. */
    Map<String, Integer> getRunningTasksByClass();

    /** Per class, tasks waiting to be started (planner order); empty while classes are off. */
    Map<String, Integer> getWaitingTasksByClass();
}
