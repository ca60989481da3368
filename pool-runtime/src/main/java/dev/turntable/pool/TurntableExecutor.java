package dev.turntable.pool;

import dev.turntable.pool.strategy.Measurement;
import dev.turntable.pool.strategy.WorkerChoiceStrategy;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * A {@link ThreadPoolExecutor} whose work queue is a {@link TurntableQueue}: the executor keeps
 * its threads, lifecycle, counters, hooks and rejection; the queue's strategy decides which
 * worker runs which task. Any thread may call any method.
 *
 * <pre>{@code
 * TurntableExecutor pool = TurntableExecutor.builder()
 *     .workers(4)                 // core = maximum = 4
 *     .strategy("FAIR_SHARE")
 *     .build();
 * pool.setStrategy("ROUND_ROBIN"); // live
 * }</pre>
 *
 * <p>All core threads are started on construction, which returns once each has reached the queue
 * (or after half a second, for a thread factory whose threads are slow to run), so every task
 * goes through the queue and is placed by the strategy among all core workers (a plain pool
 * hands its first {@code core} tasks straight to new threads). Subclass it through
 * {@link #TurntableExecutor(Builder)} to override {@code beforeExecute}, {@code afterExecute} or
 * {@code terminated}.
 *
 * <p>Why this file is long (~670 lines, half of them javadoc): it holds the public
 * {@link Builder}, nested because users name it {@code TurntableExecutor.Builder}, whose every
 * option documents what it accepts and which checks wait for {@link Builder#build()}; and the
 * ThreadPoolExecutor setters it overrides to refuse bad values with a message.
 */
public class TurntableExecutor extends ThreadPoolExecutor {

    private final TurntableQueue turntable;

    /** Builds the pool the builder describes and starts its core threads. */
    protected TurntableExecutor(Builder builder) {
        this(builder, builder.newQueue());
    }

    private TurntableExecutor(Builder b, TurntableQueue queue) {
        super(b.workers, b.maximumWorkers(), b.keepAliveNanos, TimeUnit.NANOSECONDS, queue,
                b.threadFactory, b.handler);
        this.turntable = queue;
        // Our thread wrapper swallows the retirement signal and ThreadPoolExecutor replaces the
        // worker (see ExitReportingThreadFactory): the queue may retire workers.
        queue.setRetirementSupported(true);
        // A hand-off put that waits counts as queued, and one that gives up empties the queue
        // behind ThreadPoolExecutor's back: the queue then makes us re-check termination.
        queue.setOwner(this);
        if (b.allowCoreThreadTimeOut) {
            allowCoreThreadTimeOut(true);
        }
        int started;
        try {
            started = prestartAllCoreThreads();
        } catch (RuntimeException | Error e) {
            // The thread factory threw after it made some threads (a cap, no native threads
            // left): the caller gets no pool to shut down, so the threads already started would
            // run for good (non-daemon ones keep the JVM alive). Stop them, then throw as it did.
            // ThreadPoolExecutor's own shutdownNow, not ours: a subclass's override would run
            // before its fields exist.
            try {
                turntable.ownerStopping(true);
                super.shutdownNow();
                turntable.ownerShutDown();
            } catch (RuntimeException | Error stopping) {
                e.addSuppressed(stopping);
            }
            throw e;
        }
        awaitAttached(started);
    }

    /**
     * How long construction waits for the core threads to reach the queue ({@link #awaitAttached}).
     * Half a second: workers attach within a millisecond or so, and a thread start rarely takes
     * more than tens of ms on a loaded machine. Short because a worker may be unable to run
     * until the constructor returns: a pool built in a static initialiser with a thread factory
     * (a lambda, say) from that same class waits for the class's initialisation, which waits for
     * us (5 s, the first bound, stalled every such class load that long).
     */
    private static final long ATTACH_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    /**
     * As {@link ThreadPoolExecutor#execute}, except in a single-worker pool (maximum size 1)
     * while tasks wait: there a task queues behind them (and a core thread without a task of its
     * own is started if the pool is below its core size), where ThreadPoolExecutor would hand it
     * to a new thread to run ahead of them ({@link TurntableQueue#queueBehindWaiting}). So a single worker keeps
     * submission order across its retirements and deaths, while a larger pool below its core
     * size still gives a task a new thread of its own. Any thread.
     */
    @Override
    public void execute(Runnable command) {
        if (!turntable.queueBehindWaiting(this, command)) {
            super.execute(command);
        }
    }

    /**
     * Waits until the {@code started} workers have attached to the queue (each does on its first
     * take), or as many as are still in the pool (with core time-out one may have come and gone):
     * until then the strategy cannot choose them, and with stealing off the first tasks all
     * stayed behind worker 0. Bounded, because a ThreadFactory may make threads that start slowly
     * or never: after {@link #ATTACH_WAIT_NANOS} the pool goes on as it is. An interrupt ends the
     * wait and stays set.
     */
    private void awaitAttached(int started) {
        long deadline = System.nanoTime() + ATTACH_WAIT_NANOS;
        for (int round = 0; turntable.ownedSlots() < Math.min(started, getPoolSize()); round++) {
            if (Thread.currentThread().isInterrupted() || System.nanoTime() - deadline >= 0) {
                return;
            }
            if (round < 16) {
                Thread.yield();
            } else {
                LockSupport.parkNanos(100_000L); // threads take a while to start on a busy machine
            }
        }
    }

    /** A builder with the defaults of {@code Executors.newFixedThreadPool}: set {@link Builder#workers}. */
    public static Builder builder() {
        return new Builder();
    }

    /** The engine (the same object as {@link #getQueue()}). */
    public TurntableQueue getTurntableQueue() {
        return turntable;
    }

    /** Switches the worker choice strategy live; see {@link TurntableQueue#setStrategy}. */
    public void setStrategy(String name) {
        turntable.setStrategy(name);
    }

    public String getStrategy() {
        return turntable.getStrategy();
    }

    public List<String> getAvailableStrategies() {
        return turntable.getAvailableStrategies();
    }

    public void setTaskStealing(boolean on) {
        turntable.setTaskStealing(on);
    }

    public boolean isTaskStealing() {
        return turntable.isTaskStealing();
    }

    /** See {@link TurntableQueue#setMaxLifetimeTasks}. */
    public void setMaxLifetimeTasks(int tasks) {
        turntable.setMaxLifetimeTasks(tasks);
    }

    public int getMaxLifetimeTasks() {
        return turntable.getMaxLifetimeTasks();
    }

    /** See {@link TurntableQueue#recycleWorker}. */
    public void recycleWorker(int index) {
        turntable.recycleWorker(index);
    }

    /**
     * As ThreadPoolExecutor's, but a size it refuses is named, with what is allowed (its own
     * {@code IllegalArgumentException} has no message). Any thread.
     */
    @Override
    public void setCorePoolSize(int corePoolSize) {
        int max = getMaximumPoolSize();
        if (corePoolSize < 0 || corePoolSize > max) {
            throw new IllegalArgumentException("corePoolSize " + corePoolSize
                    + " is not allowed: from 0 to the maximum pool size, " + max);
        }
        super.setCorePoolSize(corePoolSize); // checks again: a racing change of the maximum still throws
    }

    /** As {@link #setCorePoolSize}, for the maximum: from 1, and not below the core size. Any thread. */
    @Override
    public void setMaximumPoolSize(int maximumPoolSize) {
        int core = getCorePoolSize();
        if (maximumPoolSize < Math.max(1, core)) {
            throw new IllegalArgumentException("maximumPoolSize " + maximumPoolSize
                    + " is not allowed: from " + Math.max(1, core) + " (1, and not below the core pool size " + core
                    + ") to " + Integer.MAX_VALUE);
        }
        super.setMaximumPoolSize(maximumPoolSize);
    }

    /**
     * As ThreadPoolExecutor's, but a time it refuses is named, with what is allowed (its own
     * refusal of a negative time has no message): from 0, and above 0 while core threads may time
     * out. Any thread.
     */
    @Override
    public void setKeepAliveTime(long time, TimeUnit unit) {
        if (unit == null) {
            throw new NullPointerException("keep-alive " + time + " needs a unit, not null");
        }
        if (time < 0) {
            throw new IllegalArgumentException("keep-alive " + time + " " + unit + " is not allowed: from 0"
                    + (allowsCoreThreadTimeOut() ? " (above 0 while core threads may time out)" : ""));
        }
        if (time == 0 && allowsCoreThreadTimeOut()) {
            throw new IllegalArgumentException("keep-alive 0 " + unit + " is not allowed while core threads may"
                    + " time out (allowCoreThreadTimeOut(true)): above 0, or allowCoreThreadTimeOut(false) first");
        }
        super.setKeepAliveTime(time, unit);
    }

    /**
     * As ThreadPoolExecutor's, but {@code true} while the keep-alive is 0 is refused with a
     * message saying what to do (its own has none), and changes nothing. Any thread.
     */
    @Override
    public void allowCoreThreadTimeOut(boolean value) {
        if (value && getKeepAliveTime(TimeUnit.NANOSECONDS) <= 0) {
            throw new IllegalArgumentException("allowCoreThreadTimeOut(true) is not allowed while the keep-alive is 0:"
                    + " set a keep-alive above 0 first (setKeepAliveTime)");
        }
        super.allowCoreThreadTimeOut(value); // checks again: a racing setKeepAliveTime(0) still throws
    }

    /**
     * As ThreadPoolExecutor's, but a null is refused with a message that names what is allowed
     * (its own {@code NullPointerException} has none); the type stays, so code that catches it
     * still does. Any thread.
     */
    @Override
    public void setThreadFactory(ThreadFactory threadFactory) {
        if (threadFactory == null) {
            throw new NullPointerException("threadFactory null is not allowed: a ThreadFactory"
                    + " (Executors.defaultThreadFactory() is what a pool built without one uses)");
        }
        super.setThreadFactory(threadFactory);
    }

    /** As {@link #setThreadFactory}, for the rejection handler. Any thread. */
    @Override
    public void setRejectedExecutionHandler(RejectedExecutionHandler handler) {
        if (handler == null) {
            throw new NullPointerException("rejectedExecutionHandler null is not allowed: a RejectedExecutionHandler"
                    + " (ThreadPoolExecutor.AbortPolicy is what a pool built without one uses)");
        }
        super.setRejectedExecutionHandler(handler);
    }

    /**
     * The application's thread factory, as given to the builder or {@link #setThreadFactory}.
     *
     * <p>ThreadPoolExecutor makes each worker thread through this method; for that one caller
     * it returns the factory wrapped so that the thread tells the queue when its worker loop
     * ends (its waiting tasks then go to the other workers at once). The thread itself, its
     * name, daemon flag, priority and handler are still the application factory's. Should a
     * JDK make its threads elsewhere, the queue still notices dead workers, only later.
     */
    @Override
    public ThreadFactory getThreadFactory() {
        ThreadFactory app = super.getThreadFactory();
        int maker = workerMaker();
        if (maker == NOT_A_WORKER) {
            return app;
        }
        if (maker == AN_EXITING_WORKER) {
            // A worker ending (its beforeExecute threw, say, which skips the afterExecute that
            // hands its tasks on early) makes its own replacement: its waiting tasks go to the
            // shared queue now, ahead of anything submitted later, before the replacement exists
            // to take newer tasks first. A no-op if it already left, or is no worker of ours.
            // Nothing it throws may stop the replacement being made.
            try {
                turntable.workerExiting();
            } catch (Throwable ignored) {
                // Out of memory for the move, say: the slot is free by then, and what was not
                // moved stays on its queue, which the next thread to take the slot serves.
            }
        }
        // Every worker is made here, so from now on each one reports its exit: idle workers
        // may park without re-checking for dead ones. (If a JDK made workers elsewhere, this
        // is never reached and the queue keeps re-checking: slower rescue, nothing lost.)
        turntable.setWorkerExitsReported(true);
        return new ExitReportingThreadFactory(app, turntable);
    }

    private static final StackWalker WALKER = StackWalker.getInstance();
    private static final int NOT_A_WORKER = 0;
    private static final int A_WORKER = 1;
    private static final int AN_EXITING_WORKER = 2;

    /**
     * Whether the caller's caller is ThreadPoolExecutor's worker constructor, and if so whether
     * {@code addWorker} was called by {@code processWorkerExit} (a worker making its own
     * replacement on its way out); once per thread made.
     */
    private static int workerMaker() {
        return WALKER.walk(frames -> {
            java.util.Iterator<StackWalker.StackFrame> it = frames.skip(2).limit(3).iterator();
            if (!it.hasNext() || !isFrame(it.next(), "java.util.concurrent.ThreadPoolExecutor$Worker", "<init>")) {
                return NOT_A_WORKER;
            }
            if (it.hasNext() && isFrame(it.next(), "java.util.concurrent.ThreadPoolExecutor", "addWorker")
                    && it.hasNext() && isFrame(it.next(), "java.util.concurrent.ThreadPoolExecutor", "processWorkerExit")) {
                return AN_EXITING_WORKER;
            }
            return A_WORKER;
        });
    }

    private static boolean isFrame(StackWalker.StackFrame f, String className, String methodName) {
        return f.getMethodName().equals(methodName) && f.getClassName().equals(className);
    }

    /**
     * As {@link ThreadPoolExecutor#afterExecute}; when the task threw, its worker is about to die
     * (ThreadPoolExecutor rethrows and starts a replacement), so the queue takes that worker out
     * of the strategies' choice and hands its waiting tasks on now, before the replacement
     * starts, which keeps them ahead of tasks submitted later. Subclasses should call
     * {@code super.afterExecute} first, as ThreadPoolExecutor recommends; otherwise this happens
     * a moment later, when the dying thread's loop ends.
     */
    @Override
    protected void afterExecute(Runnable r, Throwable t) {
        super.afterExecute(r, t);
        if (t != null) {
            turntable.workerExiting();
        }
    }

    /**
     * Re-checks whether the pool may terminate, through ThreadPoolExecutor's own
     * {@code remove} of a task never queued (which runs its {@code tryTerminate}), whatever a
     * subclass made of {@code remove}: the queue calls it when a hand-off put that kept a worker
     * gives up ({@link TurntableQueue#setOwner}). Any thread.
     */
    final void recheckTermination() {
        super.remove(TurntableQueue.NOT_QUEUED);
    }

    /**
     * As {@link ThreadPoolExecutor#terminated}; first ends what the engine still counts of
     * workers that have left the pool but not yet told the queue (their threads do that only on
     * their way out, which may come after {@code awaitTermination} has returned): the calling
     * thread's, when it is one of this pool's workers, and any task-class task still counted as
     * running ({@link TurntableQueue#ownerTerminated}). So a task that rebalancing stopped and
     * {@code shutdownNow} interrupted no longer counts, in its class or in {@code getQueue().size()},
     * once the pool has terminated. Subclasses should call {@code super.terminated()}.
     */
    @Override
    protected void terminated() {
        turntable.workerExiting(); // nothing when this thread is no worker of ours (or already out)
        turntable.ownerTerminated();
        super.terminated();
    }

    /**
     * As {@link ThreadPoolExecutor#getCompletedTaskCount()}, counting a {@link RestartableTask}
     * that rebalancing stopped and ran again once, not once per run. For an instant after a
     * stopped run ends it may still count that run (the pool decides to restart it as the worker
     * asks for its next task); it never counts less than the tasks completed.
     */
    @Override
    public long getCompletedTaskCount() {
        return turntable.countingRestartsOnce(super::getCompletedTaskCount);
    }

    /** As {@link ThreadPoolExecutor#getTaskCount()}, counting a restarted {@link RestartableTask} once. */
    @Override
    public long getTaskCount() {
        return turntable.countingRestartsOnce(super::getTaskCount);
    }

    /** As {@link ThreadPoolExecutor#shutdown()}; idle workers then leave as soon as the queue is empty. */
    @Override
    public void shutdown() {
        super.shutdown();
        turntable.ownerShutDown();
    }

    /**
     * As {@link ThreadPoolExecutor#shutdownNow()}. A {@link RestartableTask} that rebalancing
     * stopped counts as waiting once its worker has come back from it (then it is returned), and
     * as running until then (then it is interrupted and not run again, as any running task).
     */
    @Override
    public java.util.List<Runnable> shutdownNow() {
        turntable.ownerStopping(true);
        java.util.List<Runnable> unrun;
        try {
            unrun = super.shutdownNow();
        } catch (RuntimeException | Error refused) {
            turntable.ownerStopping(false); // a security manager said no: nothing was stopped
            throw refused;
        }
        turntable.ownerShutDown();
        return unrun;
    }

    @Override
    public String toString() {
        // Not the queue's toString, which lists every waiting task (as a LinkedBlockingQueue's
        // does): AbortPolicy puts this string in every rejection message, and a full backlog
        // made each one megabytes long, just when the pool is overloaded.
        return super.toString() + "[strategy = " + turntable.getStrategy() + ", capacity = "
                + turntable.getCapacityMode() + "]";
    }

    /**
     * Wraps the application's thread factory so that a worker thread tells the queue when its
     * worker loop ends (its queue then goes to the other workers at once). The thread itself,
     * its name, daemon flag, priority and handler are the application factory's.
     */
    private static final class ExitReportingThreadFactory implements ThreadFactory {
        private final ThreadFactory delegate;
        private final TurntableQueue queue;

        ExitReportingThreadFactory(ThreadFactory delegate, TurntableQueue queue) {
            this.delegate = delegate;
            this.queue = queue;
        }

        @Override
        public Thread newThread(Runnable worker) {
            return delegate.newThread(() -> {
                try {
                    worker.run();
                } catch (WorkerRetirement retired) {
                    // The worker retired (max-lifetime-tasks or recycleWorker); ThreadPoolExecutor
                    // has already started its replacement. Nothing for the application to see.
                } finally {
                    queue.workerExiting();
                }
            });
        }
    }

    /**
     * Settings for a {@link TurntableExecutor}. Each method checks its own argument at once and
     * throws {@link IllegalArgumentException} naming the value and what is allowed; the queue's
     * capacity is set at most once ({@link #queueCapacity} or {@link #handOff}: a second call
     * throws {@link IllegalStateException}). Checks that combine settings, such as workers
     * against {@link #maximumWorkers}, run in {@link #build()}, which lists them. A refused call
     * changes nothing. Not thread-safe: build on one thread.
     */
    public static final class Builder {
        private int workers;
        private boolean workersSet;
        private int maximumWorkers = -1;
        private long keepAliveNanos = 0;
        private boolean allowCoreThreadTimeOut;
        private ThreadFactory threadFactory = Executors.defaultThreadFactory();
        private RejectedExecutionHandler handler = new AbortPolicy();
        private final TurntableQueueBuilder queue = TurntableQueue.builder();

        private Builder() {
        }

        /**
         * Core and maximum pool size (like {@code newFixedThreadPool(n)}); from 0. With 0, set
         * {@link #maximumWorkers} too: threads then start as tasks come, as in
         * {@code newCachedThreadPool()} ({@code workers(0).maximumWorkers(n).handOff().keepAlive(60, SECONDS)}).
         * As with ThreadPoolExecutor, a pool grows past its core size only when its queue refuses a
         * task: with the default unbounded queue, {@code workers(0)} runs a single thread.
         */
        public Builder workers(int n) {
            if (n < 0) {
                throw new IllegalArgumentException("workers " + n + " is not allowed: from 0"
                        + " (0 with maximumWorkers(n) of at least 1)");
            }
            workers = n;
            workersSet = true;
            return this;
        }

        /**
         * Maximum pool size when it should exceed {@link #workers} (bounded or hand-off queues);
         * at least 1, and not below workers (checked by {@link #build()}).
         */
        public Builder maximumWorkers(int max) {
            if (max < 1) {
                throw new IllegalArgumentException("maximum workers " + max + " must be at least 1");
            }
            maximumWorkers = max;
            return this;
        }

        /** How long a worker above the core size (or any, with {@code allowCoreThreadTimeOut}) waits idle before it exits. */
        public Builder keepAlive(long time, TimeUnit unit) {
            if (unit == null) {
                throw new IllegalArgumentException("keep-alive " + time + " needs a unit, not null");
            }
            if (time < 0) {
                throw new IllegalArgumentException("keep-alive " + time + " " + unit + " must not be negative");
            }
            keepAliveNanos = unit.toNanos(time);
            return this;
        }

        /** Whether core threads too time out after {@link #keepAlive}, which must then be above 0 (checked by {@link #build()}). */
        public Builder allowCoreThreadTimeOut(boolean on) {
            allowCoreThreadTimeOut = on;
            return this;
        }

        public Builder threadFactory(ThreadFactory factory) {
            threadFactory = TurntableQueueBuilder.given(factory, "threadFactory",
                    "a ThreadFactory (leave it unset for Executors.defaultThreadFactory())");
            return this;
        }

        public Builder rejectionHandler(RejectedExecutionHandler h) {
            handler = TurntableQueueBuilder.given(h, "rejectionHandler",
                    "a RejectedExecutionHandler (leave it unset for ThreadPoolExecutor.AbortPolicy)");
            return this;
        }

        /** The initial worker choice strategy; any name from {@code getAvailableStrategies()}. */
        public Builder strategy(String name) {
            queue.strategy(name);
            return this;
        }

        /**
         * Registers a strategy of your own, selectable by name (also live, by {@code setStrategy}),
         * checked at once as {@link TurntableQueueBuilder#registerStrategy} says: the factory is
         * called once and must return a strategy whose {@code name()} is {@code name} upper-cased,
         * with {@code -} read as {@code _}.
         */
        public Builder registerStrategy(String name, Supplier<? extends WorkerChoiceStrategy> factory) {
            queue.registerStrategy(name, factory);
            return this;
        }

        /**
         * At most {@code capacity} tasks waiting in all, like an {@code ArrayBlockingQueue}.
         * Without this or {@link #handOff()}, the queue is unbounded.
         *
         * @throws IllegalArgumentException if {@code capacity} is below 1
         * @throws IllegalStateException    if {@code queueCapacity} or {@link #handOff()} was called already
         */
        public Builder queueCapacity(int capacity) {
            queue.capacity(TurntableQueue.Capacity.BOUNDED, TurntableQueueBuilder.checkCapacity(capacity),
                    "queueCapacity(" + capacity + ")", CAPACITY_CALLS);
            return this;
        }

        /**
         * Direct hand-off like a {@code SynchronousQueue}: a task goes to an idle worker or a new thread.
         *
         * @throws IllegalStateException if {@code handOff} or {@link #queueCapacity} was called already
         */
        public Builder handOff() {
            queue.capacity(TurntableQueue.Capacity.HAND_OFF, 0, "handOff()", CAPACITY_CALLS);
            return this;
        }

        private static final String CAPACITY_CALLS = "queueCapacity(n) or handOff() (neither: unbounded)";

        /**
         * Whether an idle worker takes tasks waiting behind a busy one (default on). Off, a task
         * stays on the worker the strategy placed it on until that worker runs it: workers added
         * later (a raised core size, say) do not take over another worker's backlog, and a task
         * waiting for one queued behind it on its own worker waits for good.
         */
        public Builder taskStealing(boolean on) {
            queue.taskStealing(on);
            return this;
        }

        /** What time-based strategies measure: {@code RUN_TIME}, {@code WAIT_TIME} or {@code CPU_TIME}. */
        public Builder measurement(String name) {
            queue.measurement(Measurement.parse(name));
            return this;
        }

        public Builder median(boolean on) {
            queue.median(on);
            return this;
        }

        /**
         * Worker weights in ms of task time per turn, one per worker: at least {@link #workers}
         * (1 with {@code workers(0)}) and at most {@link #maximumWorkers} of them (checked by
         * {@link #build()}), each 1..60000.
         * Unset, each worker gets the default weight derived from the CPUs.
         */
        public Builder weightsMillis(long... weights) {
            queue.weightsMillis(weights);
            return this;
        }

        /**
         * Run- and wait-time histograms whatever the strategy needs (default off): the run time
         * of every task, the wait time of a uniform random 1 in 8 of them (the wait snapshot's
         * {@code count()} is not a task count); see {@link TurntableQueue#setLatencyHistograms}.
         */
        public Builder latencyHistograms(boolean on) {
            queue.latencyHistograms(on);
            return this;
        }

        public Builder workerQueueCapacity(int places) {
            queue.workerQueueCapacity(places);
            return this;
        }

        /** {@code max-lifetime-tasks}: each worker thread retires after this many tasks and is replaced (0 = never). */
        public Builder maxLifetimeTasks(int tasks) {
            queue.maxLifetimeTasks(tasks);
            return this;
        }

        /**
         * {@code max-concurrent-tasks}: tasks queued or running on one worker at once (0 = no
         * limit). When every worker not on its way to retirement is full, a submit waits up to
         * {@link #workerSelectTimeoutMillis} and is then refused: the workers hold at most workers
         * × this many tasks (tasks meant for workers draining toward retirement wait in the shared
         * queue for their replacements, unbounded). Bounds nothing on a {@link #handOff} pool (see
         * {@link TurntableQueueBuilder#maxConcurrentTasks}).
         */
        public Builder maxConcurrentTasks(int tasks) {
            queue.maxConcurrentTasks(tasks);
            return this;
        }

        /** {@code heartbeat-timeout-ms}: a worker inside one task longer than this is not chosen (0 = off). */
        public Builder heartbeatTimeoutMillis(long millis) {
            queue.heartbeatTimeoutMillis(millis);
            return this;
        }

        /** {@code worker-select-timeout-ms}: how long a submit waits for an eligible worker when limits leave none. */
        public Builder workerSelectTimeoutMillis(long millis) {
            queue.workerSelectTimeoutMillis(millis);
            return this;
        }

        /**
         * Task classes: {@code class-load-percents} (e.g. {@code interactive:75;batch:25}) and
         * {@code requestor-map} (e.g. {@code http-.*:interactive;report-.*:batch}); off by default.
         * Not with {@link #handOff()} (checked by {@link #build()}).
         */
        public Builder taskClasses(String classLoadPercents, String requestorMap) {
            queue.taskClasses(classLoadPercents, requestorMap);
            return this;
        }

        /** {@code rebalance-threshold} in percentage points (0 = off). */
        public Builder rebalanceThreshold(int percentagePoints) {
            queue.rebalanceThreshold(percentagePoints);
            return this;
        }

        /** {@code rebalance-min-duration-ms}. */
        public Builder rebalanceMinimumDurationMillis(long millis) {
            queue.rebalanceMinimumDurationMillis(millis);
            return this;
        }

        /** {@code requestor}: {@code THREAD_NAME}, {@code TASK_CLASS} or {@code POOL_NAME}. */
        public Builder requestor(String source) {
            queue.requestor(source);
            return this;
        }

        /** The pool's name, used as the requestor under {@code POOL_NAME}. */
        public Builder poolName(String name) {
            queue.poolName(name);
            return this;
        }

        /** The clock for heartbeats; tests pass one they advance by hand. */
        public Builder ticker(Ticker ticker) {
            queue.ticker(ticker);
            return this;
        }

        TurntableQueue newQueue() {
            check();
            return queue.expectedWorkers(maximumWorkers()).build();
        }

        int maximumWorkers() {
            return maximumWorkers < 0 ? workers : maximumWorkers;
        }

        /**
         * Builds the executor, starts its core threads and returns once they have reached the
         * queue (see {@link TurntableExecutor}). First it checks the settings that combine, and
         * starts no thread if one fails.
         *
         * @throws IllegalArgumentException naming the values, if {@link #workers} was not set;
         *         is 0 without {@link #maximumWorkers}; exceeds {@link #maximumWorkers}; there are
         *         fewer {@link #weightsMillis} than workers (at least 1) or more than the maximum;
         *         {@link #allowCoreThreadTimeOut} is on without a {@link #keepAlive} above 0;
         *         {@link #taskClasses} are set on a {@link #handOff} pool, which holds no task; or
         *         the {@link #strategy} name is none of the built-in or registered ones (looked up
         *         here, so {@link #registerStrategy} may come after {@code strategy})
         */
        public TurntableExecutor build() {
            return new TurntableExecutor(this);
        }

        void check() {
            if (!workersSet) {
                throw new IllegalArgumentException("workers is not set: call workers(n) with n >= 0");
            }
            if (workers == 0 && maximumWorkers < 0) {
                throw new IllegalArgumentException("workers 0 needs maximumWorkers(n) with n >= 1:"
                        + " a pool of at most 0 threads runs nothing");
            }
            if (maximumWorkers() < workers) {
                throw new IllegalArgumentException("maximum workers " + maximumWorkers
                        + " is below workers " + workers + ": the maximum must be at least the workers");
            }
            if (queue.weightsMillis != null) {
                // at least 1 with workers(0): an empty list would mean the defaults, which leaving it unset says
                DefaultWeights.requireOnePerWorker("weightsMillis", queue.weightsMillis, Math.max(1, workers),
                        maximumWorkers());
            }
            if (allowCoreThreadTimeOut && keepAliveNanos == 0) {
                throw new IllegalArgumentException("allowCoreThreadTimeOut(true) needs a keep-alive above 0;"
                        + " keepAlive is 0: set keepAlive(time, unit) too");
            }
        }
    }
}
