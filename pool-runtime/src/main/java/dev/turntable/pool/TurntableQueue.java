package dev.turntable.pool;

import dev.turntable.pool.stats.LatencySnapshot;
import dev.turntable.pool.strategy.Measurement;
import dev.turntable.pool.strategy.StrategyRegistry;
import dev.turntable.pool.strategy.WorkerChoiceStrategy;
import dev.turntable.pool.strategy.WorkerView;
import java.util.AbstractQueue;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;
import java.util.concurrent.ThreadPoolExecutor;

/**
 * Turntable's engine: a {@link BlockingQueue} that stands in for a {@code ThreadPoolExecutor}'s
 * work queue and gives each task to a worker chosen by a {@link WorkerChoiceStrategy}. Any thread
 * may call any method; the threads that call {@link #take()} or {@link #poll(long, TimeUnit)}
 * are the pool's workers.
 *
 * <p>Each worker thread owns a slot with its own JCTools MPMC queue. {@link #offer} asks the
 * active strategy for a worker and pushes the task onto that worker's queue; a worker takes from
 * its own queue first, then from the pool's shared overflow queue, then (task stealing, on by
 * default) from the worker with the most queued tasks. Without stealing, a parent task waiting for
 * a child queued behind it on the same worker could wait forever where a plain pool would not.
 *
 * <p>Guarantees:
 * <ul>
 *   <li>Every offered task is handed out exactly once: to one worker, or by {@link #drainTo},
 *       {@link #remove(Object)} or a foreign {@link #poll()}. Strategy switches, worker exits,
 *       stealing and removals move tasks between queues only by claiming them first.</li>
 *   <li>Capacity semantics of the queue it replaces: unbounded (like {@code LinkedBlockingQueue}),
 *       bounded (like {@code ArrayBlockingQueue}: {@code offer} fails when full, so the executor
 *       grows and then rejects through its own handler), or direct hand-off (like
 *       {@code SynchronousQueue}: {@code offer} succeeds only if a worker is idle and waiting).</li>
 *   <li>A worker that leaves (keep-alive timeout, shrink, interruption, death) leaves no task
 *       behind: its queue is moved to the front of the shared queue, which every worker polls.</li>
 *   <li>A task's order is FIFO within a worker's queue; across workers there is no order, as
 *       there is none between a plain pool's threads. While tasks wait in the shared queue (a
 *       worker's queue overflowed, or none was attached), new tasks join them there; a worker
 *       serves its own queue first, but a new worker first takes what the shared queue held
 *       when it attached. So a single-worker pool runs the tasks queued on it in submission
 *       order, past its queue's capacity and across its worker's death; a submit that races a
 *       worker's exit, which ThreadPoolExecutor would give a new worker to run first, queues
 *       behind them where the executor asks first ({@link #queueBehindWaiting}). Not covered:
 *       {@link #remove(Object)}, which puts the tasks it passes over back behind newer ones.</li>
 *   <li>Submitters never block in {@code offer} but for one opt-in limit: with
 *       {@code max-concurrent-tasks} set, a submit that finds every worker full waits up to
 *       {@code worker-select-timeout-ms} for a place, then {@code offer} returns false. No lock
 *       is taken on the submit or take path.</li>
 *   <li>Built {@link TurntableQueueBuilder#replacing replacing} a queue that its application may
 *       still hold, it also runs every task put straight into that queue, and counts, drains,
 *       removes and iterates them with its own; those tasks skip the strategy and task classes.</li>
 * </ul>
 *
 * <p>Why this file is long (~2,590 lines, over a third of them comments): it keeps the queuing
 * modes' submit and take paths and the wake-up protocol between them, a set of Dekker handshakes
 * between {@code offer}, the wait loop, stealing and the concurrency limit's own-place
 * reservation, whose memory-ordering arguments refer to one another, so that one reading checks
 * them all; with them what the take path runs per task (the bounded mode's permits, the replaced
 * queue's reads, {@code retireDue}). And it keeps the public API, about 560 lines with its
 * documentation, which users reach through this class. Colder code lives apart, and where an
 * ordering argument crosses into it, the comment on each side names the other: the hand-off
 * mode's reservations and waits ({@link HandOffMode}), the collection side ({@link WaitingTasks}),
 * retirement and housekeeping ({@link WorkerLifetimes}), slot ownership and a leaving worker's
 * tasks ({@link WorkerRegistry}) and the task-class settings ({@link TaskClassSettings}); as do
 * statistics ({@link StatisticsCollector}), the strategies' view ({@link SlotView}), per-worker
 * state ({@link WorkerSlot}), the class scheduler ({@link ClassScheduler}) and the housekeeper
 * thread ({@link Housekeeper}). Public methods whose bodies live elsewhere are one-line
 * delegations, and so are the few private methods the take path calls into them by name
 * ({@code register}, {@code betweenTasks}, {@code tryRetire}, {@code awaitHandOff}), so that
 * the hot path reads as one piece here.
 */
public final class TurntableQueue extends AbstractQueue<Runnable> implements BlockingQueue<Runnable> {

    /** How tasks beyond the idle workers are held. */
    public enum Capacity {
        /** No limit, like {@code LinkedBlockingQueue()}. */
        UNBOUNDED,
        /** At most a fixed number waiting, like {@code ArrayBlockingQueue(n)}. */
        BOUNDED,
        /** None waiting: a task is accepted only by an idle worker, like {@code SynchronousQueue}. */
        HAND_OFF
    }

    /**
     * Wait-loop budget before a worker parks: first {@value #SPINS} busy spins (a submitter's
     * next offer usually lands within them), then up to {@value #YIELDS} yields (none while its
     * waits keep ending in long parks: {@link #yieldsBeforePark}), which hand the CPU to a
     * runnable submitter when workers outnumber free cores (on a 2-vCPU machine a spinning
     * worker would otherwise slow the very thread it waits for), then park. A park costs the
     * submitter an unpark (~5-20 µs of wake-up), which is what the spins and yields are there to
     * avoid. Not every submitter gets the CPU that way: under Linux's EEVDF scheduler (6.6+) one
     * just woken after using more than its share waits until the yields end and the worker parks
     * ({@code BatchPhasesRunner}: 23-37 µs behind LEAST_USED's, LEAST_BUSY's and FAIR_SHARE's
     * workers against 7-21 behind a ThreadPoolExecutor's, in most rounds of two runs; without the
     * yields, in a scratch run of the same rhythm, ROUND_ROBIN's producer waited ~5 µs instead of
     * 24-30, but the next burst found the workers asleep and throughput stayed the same). A
     * hand-off worker does not yield (see {@link HandOffMode#awaitHandOff}).
     */
    private static final int SPINS = 32;
    static final int YIELDS = 16;
    /** Spins of a hand-off worker's wait before it parks (see {@link #HAND_OFF_LONG_SPINS}). */
    static final int HAND_OFF_SPINS = SPINS;
    /**
     * Spins of a hand-off worker's untimed wait (a core worker's {@code take()}) before it parks
     * while work has been coming back within its waits (the rule of {@link #yieldsBeforePark}),
     * for at most {@link #HAND_OFF_LONG_SPINNERS} workers of the pool at a time: 16 times the
     * short spins, as a {@code SynchronousQueue} spins 16 times longer in {@code take()} than in
     * a timed {@code poll}, so a cached pool's workers (timed) keep the short ones. A submitter
     * handing tasks to a fixed pool one at a time, whose next task comes after its own wake-up,
     * then finds the worker still looking instead of parked. {@code BlockingHandOffBenchmark}
     * (one worker, a blocking rejection handler, quiet 2-vCPU host): 32-35 k ops/s with the short
     * spins (0.65x a {@code SynchronousQueue} pool's), 475-698 k with these (9-14x); 2,048 gave
     * 1.4-1.6 M but 1.48x a {@code SynchronousQueue} pool's CPU at 10,000 tiny tasks a second,
     * where these cost 1.25-1.33x ({@code LightLoadCpuRunner}, {@code SYNC_FIXED}). Limited in
     * number so that idle workers spinning in a burst do not keep the ones reserved for its
     * tasks off the CPUs ({@link HandOffBurstTest}).
     */
    static final int HAND_OFF_LONG_SPINS = 16 * HAND_OFF_SPINS;
    static final int HAND_OFF_LONG_SPINNERS = Math.min(4, Runtime.getRuntime().availableProcessors() / 2);
    /**
     * Queuing waits in a row that must end in a park (longer than {@link #SHORT_IDLE_NANOS})
     * before a worker stops yielding first. The yields pay off only while work comes back within them; in an application whose pool is
     * mostly idle (tasks every millisecond) they were wasted on every wait, and the process used
     * 1.2-1.55x the CPU of a ThreadPoolExecutor's, whose workers park at once
     * ({@code LightLoadCpuRunner}).
     */
    static final int PARKS_BEFORE_SKIPPING_YIELDS = 4;
    /**
     * While a worker skips its yields, one wait in this many yields anyway: the probe that
     * notices work coming back within the yields again (it resets the streak), at an eighth of
     * the cost.
     */
    static final int YIELD_PROBE_EVERY = 8;
    /**
     * A wait that parked but had work again within this long counts as if the yields had caught
     * it. Without it, a worker that lives by stealing (under {@code WEIGHTED_ROUND_ROBIN} every
     * task goes to one worker for a whole turn) parked for microseconds at a time, stopped
     * yielding, and was then woken by an unpark for each steal: no-op throughput fell from
     * 1.47x to 0.57x of a ThreadPoolExecutor's. A mostly idle pool's waits last far longer.
     */
    static final long SHORT_IDLE_NANOS = 100_000;

    /**
     * The context class loader of the thread that built this queue (the application's), weakly,
     * or {@code null}: the housekeeper runs this pool's housekeeping with it
     * ({@link Housekeeper#visit}).
     */
    final java.lang.ref.WeakReference<ClassLoader> creatorContextLoader;
    final Capacity capacityMode;
    private final int capacity;
    private final StrategyRegistry registry;
    final StatisticsCollector statistics;

    /** Slots only ever grow; a free slot is reused by the next thread. Replaced copy-on-write. */
    volatile WorkerSlot[] slots = new WorkerSlot[0];
    /**
     * One past the highest index of a slot that is not {@code FREE}, at most {@code slots.length}:
     * where the strategies' view ends ({@link SlotView#count}). A cached pool that grew to a
     * thousand threads in a burst and is back to a few kept every choice reading the thousand
     * slots (ROUND_ROBIN went round them, FAIR_SHARE and the others looked at each), for good.
     * Raised by a registering thread before it publishes its slot, lowered by a leaving one past
     * the free slots at the top ({@link WorkerRegistry#lowerSlotBound}), both under the
     * registration lock. Written after {@link #slots} grows, so a reader that sees the bound
     * sees the slots below it. A choice that read the bound just before a thread registered
     * above it misses that worker once, as if the thread had come a moment later.
     */
    volatile int slotBound;
    final Object registration = new Object();
    final ThreadLocal<WorkerSlot> currentSlot = new ThreadLocal<>();
    /** Slot ownership: registration, leaving, and moving a leaving worker's tasks. */
    final WorkerRegistry workerRegistry;

    /**
     * Tasks no worker's queue holds: they found none attached or a full one, or a leaving worker
     * left them (put at the front: they are older than what joined since; see
     * WorkerRegistry.moveToShared).
     */
    final SharedQueue shared = new SharedQueue();
    final AtomicInteger sharedCount = new PaddedAtomicInteger(); // padded: see parkedCount
    /**
     * Tasks taken out of one queue and not yet in another (moved to the shared queue by a
     * worker that leaves, or held by a {@link #remove(Object)} in progress). Counted before they
     * are taken, so {@link #size()} never dips, and {@link #drainTo} and {@link #remove(Object)}
     * wait for it to reach zero: otherwise a task on the move is in no queue they can see (the
     * readers are {@link WaitingTasks}'; the movers {@link WorkerRegistry}'s and the class
     * scheduler's).
     */
    final AtomicInteger inTransit = new AtomicInteger();
    /** Bumped each time a task on the move lands in a queue again (before inTransit drops). */
    final java.util.concurrent.atomic.AtomicLong moves = new java.util.concurrent.atomic.AtomicLong();
    /**
     * Workers parked or about to park; read by submitters to decide whether to wake one. Padded:
     * it changes at every park and wake, and must not invalidate {@link #sharedCount}, which
     * every spinning worker reads.
     */
    final AtomicInteger parkedCount = new PaddedAtomicInteger();
    /**
     * Queuing mode: wakes in flight, that is workers moved from {@code PARKED} to
     * {@code WOKEN} that have not yet consumed the wake ({@link #consumeWake}). While it is
     * positive, a submitter leaves parked workers asleep (with stealing on): the woken worker
     * looks at every queue after it consumes its wake and passes one on while work is left
     * ({@link #passWakeOn}), as a ThreadPoolExecutor's taker signals the next. A burst over
     * parked workers then costs the submitting thread one wake-up instead of one per worker.
     * Raised after the CAS that woke, lowered by the wakee: see {@link #tryWake} for why a
     * positive reading always has a wakee that will look after the reader's push. Padded like
     * {@link #parkedCount}, for the same reason.
     */
    private final AtomicInteger waking = new PaddedAtomicInteger();

    /** Bounded mode: free places; a submitter claims one per task, a take gives it back. */
    private final AtomicInteger permits;
    private final ReentrantLock putLock = new ReentrantLock();
    private final Condition notFull = putLock.newCondition();
    private volatile int putWaiters;
    /** The executor this queue serves ({@link #setOwner}), or null. */
    volatile WeakReference<ThreadPoolExecutor> owner;

    volatile WorkerChoiceStrategy strategy;
    /** Choices that threw (a strategy of the user's own); written only on that failure path. */
    private final java.util.concurrent.atomic.AtomicLong strategyFailures = new java.util.concurrent.atomic.AtomicLong();
    private volatile boolean taskStealing;
    private volatile long[] weightsNanos;
    private final long defaultWeightNanos;

    /**
     * Whether the executor reports every worker that leaves ({@link #workerExiting()}). Until it
     * does, idle workers re-check every {@link #RESCAN_NANOS} for workers that died without a
     * word (a task's exception kills a ThreadPoolExecutor worker) and take over their tasks.
     */
    private volatile boolean workerExitsReported;
    static final long RESCAN_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    /**
     * The queue this one replaces, which the code that made the executor may still hold and use
     * directly (see {@link TurntableQueueBuilder#replacing}), or null. Workers take its tasks:
     * when they find no other work, at every {@value #REPLACED_LOOK_EVERY}th task boundary (so a
     * worker kept busy by its own queue does not starve it), and, idle, every
     * {@link #REPLACED_RESCAN_NANOS} once a task has been found there, else every
     * {@link #REPLACED_FIRST_LOOK_NANOS}: nothing tells the engine when the application puts a task there.
     */
    final BlockingQueue<Runnable> replaced;
    /** Whether {@link #replaced} hands off ({@code SynchronousQueue}: always "empty", so only a poll finds a waiting put). */
    private final boolean replacedHandsOff;
    /**
     * Set (never cleared) when a worker first finds a task in {@link #replaced}. Only a hint of
     * how long idle workers park: a worker that reads it stale parks once for the longer period,
     * and every task there is still found at the next look, so a plain volatile flag suffices.
     */
    private volatile boolean replacedInUse;
    static final int REPLACED_LOOK_EVERY = 64;
    static final long REPLACED_RESCAN_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    static final long REPLACED_FIRST_LOOK_NANOS = TimeUnit.MILLISECONDS.toNanos(1_000);

    /**
     * How long an idle worker may park before it looks at {@link #replaced} again (nothing
     * signals a task put there), or 0 with no replaced queue.
     */
    long replacedLookNanos() {
        return replaced == null ? 0L : replacedInUse ? REPLACED_RESCAN_NANOS : REPLACED_FIRST_LOOK_NANOS;
    }
    /** Set once the owning executor shuts down: idle workers stop waiting indefinitely. */
    volatile boolean ownerShutDown;
    /** Set as the owning executor's {@code shutdownNow()} begins, before it drains the queue. */
    volatile boolean ownerStopping;
    static final long SHUTDOWN_RECHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    /**
     * The longest duration a live setter takes, in milliseconds (about 292 years): durations are
     * kept in nanoseconds, so a longer one would be stored shortened and read back as another value.
     * A compile-time constant ({@code TimeUnit.NANOSECONDS.toMillis(Long.MAX_VALUE)}, which
     * {@code TurntableQueueTest} checks): the agent's option table reads it in {@code premain},
     * and a computed value made that read initialize this class and its warm-up there.
     */
    public static final long MAX_DURATION_MILLIS = Long.MAX_VALUE / 1_000_000L;

    /**
     * Checks a duration setting (builder or live): 0 to {@link #MAX_DURATION_MILLIS}, where 0
     * means {@code zeroMeans} if that is not null. Returns it.
     *
     * @throws IllegalArgumentException naming the key, the value and what is allowed
     */
    static long checkDurationMillis(String key, long millis, String zeroMeans) {
        if (millis < 0 || millis > MAX_DURATION_MILLIS) {
            throw new IllegalArgumentException(key + " " + millis + " must be 0"
                    + (zeroMeans == null ? "" : " (" + zeroMeans + ")") + " or positive, at most " + MAX_DURATION_MILLIS);
        }
        return millis;
    }

    // ---- worker lifetimes (max-lifetime-tasks), concurrency limit, heartbeats ----
    final Ticker ticker;
    /** Retirement, heartbeats and the housekeeper's look at this pool. */
    final WorkerLifetimes lifetimes;
    /**
     * {@code max-lifetime-tasks} ({@link WorkerLifetimes}) while retirement is supported, else 0:
     * what eligibility reads.
     */
    volatile int lifetimeLimit;
    volatile int maxConcurrentTasks;
    private volatile long workerSelectTimeoutNanos;
    volatile boolean retirementSupported;
    /**
     * Only one worker retires at a time: the turn passes on when its replacement registers.
     * Taken and passed by {@link WorkerLifetimes}; read here by the queuing wait before it parks
     * ({@link #parkForWork}) and passed on by a registering worker ({@link WorkerRegistry#register}).
     */
    final AtomicInteger retireTurn = new AtomicInteger(NO_RETIREMENT);
    static final int NO_RETIREMENT = 0;
    static final int RETIRING = 1;
    static final int AWAITING_REPLACEMENT = 2;

    // ---- task classes (load-based scheduling); null until first configured ----
    volatile ClassScheduler classes;
    /** The task classes' settings, and the class scheduler's making ({@link #classes}). */
    final TaskClassSettings classSettings;

    private final SlotView queuingView = new SlotView(this, false);
    /** The direct hand-off mode's submit and wait paths ({@link Capacity#HAND_OFF}). */
    final HandOffMode handOffMode = new HandOffMode(this);
    /** The collection side: counts, reads, drains and removals of waiting tasks. */
    final WaitingTasks waitingTasks = new WaitingTasks(this);

    TurntableQueue(TurntableQueueBuilder b) {
        this.creatorContextLoader = ServiceThreads.callersContextLoader();
        this.capacityMode = b.capacityMode;
        this.capacity = b.capacityMode == Capacity.BOUNDED ? b.capacity : Integer.MAX_VALUE;
        this.workerRegistry = new WorkerRegistry(this, b.workerQueueCapacity);
        this.registry = b.registry;
        this.permits = new AtomicInteger(capacity);
        this.statistics = new StatisticsCollector(this, b.measurement, b.median, b.windowSize, b.latencyHistograms);
        this.taskStealing = b.taskStealing;
        this.weightsNanos = toNanos(b.weightsMillis);
        this.defaultWeightNanos = TimeUnit.MILLISECONDS.toNanos(DefaultWeights.weightMillis(
                Runtime.getRuntime().availableProcessors(), b.expectedWorkers));
        WorkerChoiceStrategy s = registry.create(b.strategy);
        statistics.setTaskStealing(b.taskStealing, s); // configures the statistics for s
        this.strategy = s;
        this.ticker = b.ticker;
        this.maxConcurrentTasks = b.maxConcurrentTasks;
        this.lifetimes = new WorkerLifetimes(this, b.maxLifetimeTasks,
                TimeUnit.MILLISECONDS.toNanos(b.heartbeatTimeoutMillis));
        this.workerSelectTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(b.workerSelectTimeoutMillis);
        this.classSettings = new TaskClassSettings(this, b.rebalanceThreshold,
                TimeUnit.MILLISECONDS.toNanos(b.rebalanceMinimumDurationMillis), b.requestor, b.poolName);
        this.replaced = b.replacedQueue;
        this.replacedHandsOff = replaced instanceof java.util.concurrent.SynchronousQueue;
        if (!TaskClassSettings.switchesClassesOff(b.classLoadPercents)) {
            setTaskClasses(b.classLoadPercents, b.requestorMap);
        }
    }

    /** A builder for a queue to hand to a {@code ThreadPoolExecutor} of your own. */
    public static TurntableQueueBuilder builder() {
        return new TurntableQueueBuilder();
    }

    // ------------------------------------------------------------------ configuration

    /** The active strategy's name. */
    public String getStrategy() {
        return strategy.name();
    }

    /**
     * Switches the strategy live. Tasks already queued stay where they are and run exactly once;
     * the next offer is dispatched by the new strategy, which starts from fresh state.
     *
     * @throws IllegalArgumentException if the name is unknown; nothing changes then
     */
    public void setStrategy(String name) {
        WorkerChoiceStrategy next = registry.create(name);
        synchronized (registration) {
            statistics.configureFor(next);
            strategy = next;
        }
    }

    /** Names accepted by {@link #setStrategy}. */
    public List<String> getAvailableStrategies() {
        return registry.names();
    }

    public boolean isTaskStealing() {
        return taskStealing;
    }

    public void setTaskStealing(boolean on) {
        synchronized (registration) { // as setStrategy: the statistics follow the pair
            taskStealing = on;
            statistics.setTaskStealing(on, strategy);
        }
        if (!on && capacityMode != Capacity.HAND_OFF) {
            // A submitter that read stealing on may have left a parked owner asleep beside its
            // task for a woken worker to steal (signalPushed); none will now. It read stealing
            // before our volatile write, so its push is visible to this look: wake the owners.
            for (WorkerSlot o : slots) {
                if (!o.queue.isEmpty()) {
                    tryWake(o);
                }
            }
        }
    }

    public Measurement getMeasurement() {
        return statistics.measurement();
    }

    /**
     * What the per-worker task time estimate measures, live. Each worker starts a new window at
     * its next timed task: until then its estimate is still the old measurement's, and from then
     * on it rests on the samples since (one, at first).
     *
     * @throws IllegalArgumentException if null; nothing changes then
     */
    public void setMeasurement(Measurement m) {
        TurntableQueueBuilder.given(m, "measurement", TurntableQueueBuilder.MEASUREMENTS);
        synchronized (registration) {
            statistics.setMeasurement(m, strategy);
        }
    }

    public boolean isMedian() {
        return statistics.median();
    }

    /**
     * Moving median instead of moving average for the per-worker task time estimate, live. As
     * with {@link #setMeasurement}, each worker starts a new window at its next timed task: the
     * samples of the old one are not carried over, so the estimate reads the old figure until
     * then and rests on the samples since (one, at first) after.
     */
    public void setMedian(boolean on) {
        statistics.setMedian(on);
    }

    public boolean isLatencyHistograms() {
        return statistics.histograms();
    }

    /**
     * Records the distributions that {@link #runTimeSnapshot()} and {@link #waitTimeSnapshot()}
     * summarise, whatever the strategy needs. Run time: every task a worker takes from this queue,
     * however short (the 1-in-16 sampling of tiny tasks stops while they are on). Wait time, from
     * the offer to a worker taking the task: only a uniform random 1 in 8 of the offered tasks, as
     * for the strategies (a stamp costs the submitter a clock read and a wrapper object), so the
     * wait histogram's {@code count()} is about an eighth of the tasks, not a task count, and a
     * handful of tasks may leave it empty. Neither records a task that never passes through this
     * queue (a task {@code ThreadPoolExecutor} hands straight to a new worker as its first), nor
     * the wait of one taken from the queue this one replaced. Off by default; switching them on the
     * first time allocates their histograms.
     */
    public void setLatencyHistograms(boolean on) {
        synchronized (registration) {
            statistics.setHistograms(on, strategy);
        }
    }

    /**
     * The weight in ms of each worker index in use: one entry per weight set or worker slot so
     * far, whichever is more (slots appear as worker threads first poll, so a fresh pool may show
     * fewer than its core size); an index past the end has the default weight,
     * {@link #getDefaultWeightMillis()}. A fresh array each call.
     */
    public long[] getWorkerWeightsMillis() {
        long[] w = weightsNanos;
        int n = Math.max(w.length, slots.length);
        long[] out = new long[n];
        for (int i = 0; i < n; i++) {
            out[i] = TimeUnit.NANOSECONDS.toMillis(weightNanos(i));
        }
        return out;
    }

    /**
     * Sets worker weights in milliseconds of task time per turn, by worker index; workers beyond
     * the last get the default weight, so {@code null} or no weights give every worker the default,
     * and weights beyond the pool's workers wait for workers that may come (a pool that grows).
     * Unlike {@link TurntableExecutor.Builder#weightsMillis}, which takes exactly one per worker,
     * this live setter accepts any count, so that a script can set the first few.
     *
     * @throws IllegalArgumentException if any weight is not in 1..60000 ms; nothing changes then
     */
    public void setWorkerWeightsMillis(long... weightsMillis) {
        weightsNanos = toNanos(weightsMillis);
    }

    static long[] toNanos(long[] weightsMillis) {
        if (weightsMillis == null) {
            return new long[0];
        }
        long[] out = new long[weightsMillis.length];
        for (int i = 0; i < weightsMillis.length; i++) {
            if (weightsMillis[i] <= 0 || weightsMillis[i] > DefaultWeights.MAX_WEIGHT_MILLIS) {
                throw new IllegalArgumentException("weight " + weightsMillis[i] + " ms of worker " + i
                        + " is not in 1.." + DefaultWeights.MAX_WEIGHT_MILLIS + " ms");
            }
            out[i] = TimeUnit.MILLISECONDS.toNanos(weightsMillis[i]);
        }
        return out;
    }

    long weightNanos(int worker) {
        long[] w = weightsNanos;
        return worker < w.length ? w[worker] : defaultWeightNanos;
    }

    /** The default weight a worker without a configured one gets, in milliseconds. */
    public long getDefaultWeightMillis() {
        return TimeUnit.NANOSECONDS.toMillis(defaultWeightNanos);
    }

    /**
     * Declares that the executor calls {@link #workerExiting()} on every worker thread that
     * leaves, as {@link TurntableExecutor} and the agent do. Then idle workers park until woken;
     * without it they wake every 100 ms to look for workers that died without telling.
     */
    public void setWorkerExitsReported(boolean reported) {
        workerExitsReported = reported;
    }

    /**
     * Declares that the executor catches {@link WorkerRetirement} where a worker's {@code run()}
     * ends (so it never reaches the application) and replaces the worker, as ThreadPoolExecutor
     * does for a worker whose loop ended abruptly. {@link TurntableExecutor} and the agent declare
     * it; until then {@code max-lifetime-tasks} and {@link #recycleWorker} have no effect.
     */
    public void setRetirementSupported(boolean supported) {
        lifetimes.setRetirementSupported(supported);
    }

    public boolean isRetirementSupported() {
        return retirementSupported;
    }

    /** Tasks a worker thread runs before it retires and is replaced; 0 = never. */
    public int getMaxLifetimeTasks() {
        return lifetimes.maxLifetimeTasks();
    }

    /**
     * Sets {@code max-lifetime-tasks} live: a worker thread that has started this many tasks
     * takes nothing new, retires at its next task boundary (one worker at a time) and is replaced
     * by a new thread from the pool's ThreadFactory. 0 turns retirement off.
     *
     * @throws IllegalArgumentException if negative, or positive on a pool whose executor cannot
     *                                  replace retired workers; nothing changes then
     */
    public void setMaxLifetimeTasks(int tasks) {
        lifetimes.setMaxLifetimeTasks(tasks);
    }

    /** Tasks queued on or running on one worker at once; 0 = no limit. */
    public int getMaxConcurrentTasks() {
        return maxConcurrentTasks;
    }

    /**
     * Limits the tasks queued on or running on one worker ({@code max-concurrent-tasks}); when every
     * worker not on its way to retirement is at the limit, a submit waits up to the worker-select
     * timeout and is then refused (the executor's rejection policy applies): the workers hold at
     * most workers × limit tasks. Tasks meant for workers draining toward retirement are not
     * refused: they wait in the shared queue for the replacements, without a bound. 0 = no limit.
     *
     * <p>Exact: each submitter reserves its place on the chosen worker before it pushes, so two
     * racing for a worker's last place cannot both take it (the loser chooses again), and a
     * worker about to take a task from outside its own queue (stealing, or from the shared queue)
     * first reserves a place on itself the same way; refused one, it serves its own queue
     * instead, so a shared-queue task waits for a worker with room. A change applies to submits
     * that start after it: tasks already placed stay where they are.
     *
     * <p>On a direct hand-off queue ({@link Capacity#HAND_OFF}) the limit bounds nothing, yet is
     * accepted and reported by {@link #getMaxConcurrentTasks()} all the same (the agent applies
     * one value to every pool): a hand-off worker holds at most the one task reserved for it, so
     * a limit of 2 or more is always met, and a limit of 1 only keeps a worker that has just
     * become free from being chosen for the instant before it has ended its last task.
     *
     * @throws IllegalArgumentException if negative; nothing changes then
     */
    public void setMaxConcurrentTasks(int tasks) {
        if (tasks < 0) {
            throw new IllegalArgumentException("max-concurrent-tasks " + tasks + " must be 0 (no limit) or positive");
        }
        maxConcurrentTasks = tasks;
    }

    public long getHeartbeatTimeoutMillis() {
        return lifetimes.heartbeatTimeoutMillis();
    }

    /**
     * A worker inside one task longer than this is {@code STUCK}: not chosen until it finishes.
     * Checked every {@value Housekeeper#TICK_MILLIS} ms, so the verdict comes up to that much late.
     * 0 turns the check off.
     *
     * @throws IllegalArgumentException if negative or above {@link #MAX_DURATION_MILLIS}; nothing changes then
     */
    public void setHeartbeatTimeoutMillis(long millis) {
        lifetimes.setHeartbeatTimeoutMillis(millis);
    }

    public long getWorkerSelectTimeoutMillis() {
        return TimeUnit.NANOSECONDS.toMillis(workerSelectTimeoutNanos);
    }

    /**
     * How long a submit waits for a place when every worker not on its way to retirement is at
     * {@code max-concurrent-tasks} (a task finishing, a replacement coming up) before
     * {@code offer} fails and the executor's rejection policy applies. 0 = do not wait. Lifetime
     * limits alone never make a submit wait: a task no worker may take before it retires waits
     * in the shared queue for a replacement.
     *
     * @throws IllegalArgumentException if negative or above {@link #MAX_DURATION_MILLIS}; nothing changes then
     */
    public void setWorkerSelectTimeoutMillis(long millis) {
        checkDurationMillis("worker-select-timeout-ms", millis, null);
        workerSelectTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(millis);
    }

    /** Worker threads retired so far (lifetime limit or recycled). */
    public long getRetiredWorkerCount() {
        return lifetimes.retiredWorkerCount();
    }

    /** Lifetime count of each worker slot's current thread (0 for a free slot): the staircase. */
    public int[] workerLifetimes() {
        return lifetimes.workerLifetimes();
    }

    /**
     * Asks worker {@code index} to retire at its next task boundary (at once if idle) and be
     * replaced by a fresh thread; like a lifetime retirement, one worker at a time. Its waiting
     * tasks go to the other workers.
     *
     * @throws IllegalArgumentException if the index names no live worker, or the executor cannot
     *                                  replace retired workers
     */
    public void recycleWorker(int index) {
        lifetimes.recycleWorker(index);
    }

    /**
     * Calls {@code listener} on the retiring worker thread each time a worker retires.
     *
     * @throws IllegalArgumentException if {@code listener} is null; nothing is registered then
     */
    public void addRetirementListener(java.util.function.Consumer<RetiredWorker> listener) {
        lifetimes.addRetirementListener(TurntableQueueBuilder.given(listener, "retirement listener",
                "a Consumer<RetiredWorker>, called on the retiring worker thread"));
    }

    public void removeRetirementListener(java.util.function.Consumer<RetiredWorker> listener) {
        lifetimes.removeRetirementListener(listener);
    }

    // ---- task classes ----

    /**
     * Configures task classes live: {@code class-load-percents} (e.g. {@code interactive:75;batch:25})
     * and {@code requestor-map} (e.g. {@code http-.*:interactive;report-.*:batch}); see
     * {@link dev.turntable.pool.classes.ClassConfig} for the text forms. A null or blank
     * {@code classLoadPercents} switches classes off: waiting tasks then go to the workers at once;
     * {@code requestorMap} must then be null or empty (a map cannot apply without classes).
     * Applied atomically: the next scheduling pass sees the whole change.
     *
     * @throws IllegalArgumentException naming the bad value; nothing changes then (also on a
     *                                  direct hand-off queue, which holds no task to schedule)
     */
    public void setTaskClasses(String classLoadPercents, String requestorMap) {
        classSettings.setTaskClasses(classLoadPercents, requestorMap);
    }

    /**
     * Changes the class shares, keeping the requestor map (which must still name only these
     * classes); null or blank switches classes off, map and all.
     */
    public void setClassLoadPercents(String classLoadPercents) {
        classSettings.setClassLoadPercents(classLoadPercents);
    }

    /**
     * Changes the requestor map, keeping the class shares.
     *
     * @throws IllegalArgumentException if the map is bad, or classes are not configured
     */
    public void setRequestorMap(String requestorMap) {
        classSettings.setRequestorMap(requestorMap);
    }

    /** The active class configuration, or null when classes are off. */
    public dev.turntable.pool.classes.ClassConfig classConfig() {
        return classSettings.classConfig();
    }

    /** Normalised class shares in percent (planner order: share, then name); empty when off. */
    public java.util.Map<String, Integer> getClassLoadPercents() {
        dev.turntable.pool.classes.ClassConfig c = classConfig();
        return c == null ? java.util.Map.of() : c.normalisedPercents();
    }

    /** Requestor regex to class, in the order they are tried; empty when off. */
    public java.util.Map<String, String> getRequestorMap() {
        return classSettings.requestorMap();
    }

    /**
     * Stopped {@link RestartableTask}s put back to run again by rebalancing, so far. The
     * executor counts each run of such a task in {@code getCompletedTaskCount()} and
     * {@code getTaskCount()}; {@link #countingRestartsOnce} corrects such a count.
     * {@link TurntableExecutor} already does.
     */
    public long getRestartedTaskCount() {
        return classSettings.restartedTaskCount();
    }

    /**
     * An executor's task count (as {@code getCompletedTaskCount()} or {@code getTaskCount()}
     * counts: every run) with each restarted task counted once. The restarts are read first: a
     * restart is counted here only after the executor counted the stopped run, so the result is
     * never below the tasks (for a moment it may still include that run).
     */
    public long countingRestartsOnce(java.util.function.LongSupplier executorCount) {
        long restarted = getRestartedTaskCount();
        return Math.max(0L, executorCount.getAsLong() - restarted);
    }

    /** Per class: tasks started and not yet finished. Empty when classes are off. */
    public java.util.Map<String, Integer> getRunningTasksByClass() {
        return classSettings.classCounts(1);
    }

    /** Per class: tasks waiting to be started. Empty when classes are off. */
    public java.util.Map<String, Integer> getWaitingTasksByClass() {
        return classSettings.classCounts(0);
    }

    public int getRebalanceThreshold() {
        return classSettings.rebalanceThreshold();
    }

    /**
     * The delta entitlement spread, in percentage points (0..200), that triggers rebalancing once it
     * has lasted the minimum duration; 0 = off.
     *
     * @throws IllegalArgumentException if out of range; nothing changes then
     */
    public void setRebalanceThreshold(int percentagePoints) {
        classSettings.setRebalanceThreshold(percentagePoints);
    }

    public long getRebalanceMinimumDurationMillis() {
        return classSettings.rebalanceMinimumDurationMillis();
    }

    /**
     * How long the spread must stay above the threshold before rebalancing (default 240000 ms).
     *
     * @throws IllegalArgumentException if negative or above {@link #MAX_DURATION_MILLIS}; nothing changes then
     */
    public void setRebalanceMinimumDurationMillis(long millis) {
        classSettings.setRebalanceMinimumDurationMillis(millis);
    }

    /** Where a task's requestor comes from: {@code THREAD_NAME}, {@code TASK_CLASS} or {@code POOL_NAME}. */
    public String getRequestor() {
        return classSettings.requestor();
    }

    /** @throws IllegalArgumentException naming the value and the allowed ones; nothing changes then */
    public void setRequestor(String source) {
        classSettings.setRequestor(source);
    }

    /** The pool's name, the requestor of every task when the requestor is {@code POOL_NAME}. */
    public void setPoolName(String name) {
        classSettings.setPoolName(name);
    }

    /**
     * Calls {@code listener} each time the pool rebalances its classes.
     *
     * @throws IllegalArgumentException if {@code listener} is null; nothing is registered then
     */
    public void addRebalanceListener(java.util.function.Consumer<Rebalance> listener) {
        classSettings.addRebalanceListener(TurntableQueueBuilder.given(listener, "rebalance listener",
                "a Consumer<Rebalance>, called each time the pool rebalances its classes"));
    }

    public void removeRebalanceListener(java.util.function.Consumer<Rebalance> listener) {
        classSettings.removeRebalanceListener(listener);
    }

    /**
     * The statistics collected now: the union of what the active strategy declares (with the
     * measurement behind its estimate) and, when latency histograms are on, run and wait time.
     */
    public java.util.Set<dev.turntable.pool.strategy.Statistic> collectedStatistics() {
        return statistics.collected();
    }

    /**
     * Tells the queue which executor it serves, held weakly (a JMX registration may hold the
     * queue after the pool is gone, and must not keep the pool alive). In hand-off mode this lets
     * a submitter's waiting {@code put} count in {@code size()}, so that a pool shut down while one
     * waits keeps a worker to run its task (a {@code SynchronousQueue} pool's workers leave, and
     * such a put waits for ever): without an owner, such a task is not counted. When a counted put
     * gives up (interrupt or timeout) the queue has become empty with no worker taking anything,
     * and a ThreadPoolExecutor re-checks whether it may terminate only when a worker leaves or a
     * task is removed through it, which may not happen again; so the giving-up submitter, once
     * its count is lowered, calls the owner's {@code remove} with a task never queued (which runs
     * its {@code tryTerminate}) if the owner is shut down: the owner set when the put began (so
     * clearing it during the wait strands nothing), and a {@link TurntableExecutor}'s through
     * ThreadPoolExecutor's own {@code remove}, past any override. The put lowers its count and then reads
     * the run state; {@code shutdown()} writes the run state and then reads the count: one sees
     * the other. The owner likewise re-checks when an application's own {@code remove(task)} on
     * this queue counted a task in transit that a worker had taken meanwhile, since
     * {@code tryTerminate} may have read that count ({@link #emptyClaimEnded}).
     * {@link TurntableExecutor} sets itself, and so does the agent for a pool it takes
     * over; null clears it. Any thread.
     */
    public void setOwner(ThreadPoolExecutor owner) {
        this.owner = owner == null ? null : new WeakReference<>(owner);
    }

    /** Never queued: an owner's {@code remove} of it only re-checks termination ({@link #setOwner}). */
    static final Runnable NOT_QUEUED = () -> { };

    /**
     * Makes a shut-down owner re-check whether it may terminate, after the queue emptied (or
     * stopped looking non-empty) behind its back: the owner {@code ownerAtStart} read when the
     * step that could have misled it began, and the one set now, if another ({@link #setOwner}).
     * Cold: called by a hand-off put that gave up, and after a counted claim that found nothing
     * ({@link #emptyClaimEnded}). Any thread.
     */
    void recheckOwnerTermination(WeakReference<ThreadPoolExecutor> ownerAtStart) {
        WeakReference<ThreadPoolExecutor> now = owner;
        recheckTermination(ownerAtStart);
        if (now != ownerAtStart) {
            recheckTermination(now);
        }
    }

    /**
     * A claim counted in transit before it is made, so that {@code size()} never dips: raises
     * the transit count, then takes the head of {@code from}. Null when the claim came up empty
     * (another thread took the task after the caller looked): the count has dropped again, and
     * the caller passes that on ({@link #emptyClaimEnded}) once out of its locks. The claimant's
     * moves, rescues, removals and class passes all claim this way; {@code probe} is a test's
     * seam on them, null outside tests. Cold paths only.
     */
    Runnable countedClaim(java.util.Queue<Runnable> from, ClaimProbe probe) {
        if (probe != null) {
            probe.beforeCount();
        }
        inTransit.incrementAndGet();
        Runnable e = from.poll();
        if (e == null) {
            if (probe != null) {
                probe.claimedNothing();
            }
            inTransit.decrementAndGet();
        }
        return e;
    }

    /**
     * A claim counted in {@link #inTransit} before it was made found nothing: another thread took
     * the task after this one looked (a worker, a thief, a removal), and the claim's count has
     * dropped. For that instant {@code size()} counted a task that was not there. A shut-down
     * pool's workers read {@code isEmpty()} again and again (once the owner is shut down,
     * {@code take()} and {@code poll} return null within {@code SHUTDOWN_RECHECK_NANOS} and
     * {@code getTask} reads again), so misleading one of those reads only delays a worker.
     * {@code tryTerminate} reads it once: the last worker leaving (or {@code shutdown()} with no
     * worker left) that read our count returns, and if {@code processWorkerExit}'s
     * {@code addWorker} then reads the queue empty it adds no worker, nothing re-checks again,
     * and the pool stays SHUTDOWN for good, with no worker and nothing queued
     * ({@code DirectRemoveTerminationTest}). {@code ThreadPoolExecutor.remove} and {@code purge}
     * re-check after calling us, but nothing else does; so the claimant makes a shut-down owner
     * re-check termination, as after a hand-off put that gives up
     * ({@link #recheckOwnerTermination}). Without an owner ({@link #setOwner}) there is none to
     * ask. Called for every claim counted before it is made: a removal's
     * ({@link WaitingTasks#removeFrom}), a leaving worker's move to the shared queue
     * ({@link WorkerRegistry#moveToShared}), a submitter's rescue of its task from a slot whose
     * owner left ({@link #rescueToShared}) and a class pass's start or flush
     * ({@link ClassScheduler#schedule}).
     *
     * <p>Never under the registration lock: the re-check takes the executor's main lock (and
     * may run its {@code terminated()} hook), and the main lock is held while the registration
     * lock is taken: the last worker's {@code tryTerminate} runs
     * {@code TurntableExecutor.terminated()}, whose {@code workerExiting()} frees the worker's
     * slot under the registration lock. Nor while a move of the caller's own is still counted in
     * {@link #inTransit}: the re-check's {@code remove} of a task never queued waits for every
     * counted move to end ({@code WaitingTasks.remove}), which would include its own, for good;
     * and {@code shutdownNow()} holds the main lock while its drain waits for them too
     * ({@code WaitingTasks.drainTo}). A site under either records that its claim came up empty
     * and calls this once out of it, on the same thread: so the re-check still comes after the
     * claim's decrement in program order, which the argument below needs.
     *
     * <p>Ordering: the count's increment and decrement, the executor's run state and
     * {@code ownerShutDown} are all volatile, so their accesses fall in one total order that
     * agrees with each thread's program order. A {@code tryTerminate} we misled read the run
     * state (SHUTDOWN, not yet STOP) and then, in {@code size()}, the transit count with our
     * increment but not our decrement: so its run-state read comes before our decrement, and
     * our {@code isShutdown()} read after that decrement sees the pool shut down; the re-check's
     * own {@code isEmpty()} comes after our decrement too. Another claim's empty count still
     * under way may mislead our re-check as well, but that claim re-checks after its own
     * decrement: the last such claim to end re-checks a count no claim inflates. The owner is read
     * before the count ({@code ownerAtCount}) and again now, so a {@code setOwner} in between
     * strands neither.
     *
     * <p>Not once {@code shutdownNow()} has begun ({@code ownerStopping}, set before it advances
     * the run state): it moves the pool to STOP and then calls {@code tryTerminate} itself,
     * which reads no {@code isEmpty()} under STOP; and its drain calls {@code remove} under the
     * executor's main lock, where a re-check could terminate the pool before the drain has
     * returned what was queued. (Only a {@code shutdownNow()} refused by a security manager
     * leaves the run state short of STOP, and it asks for the same permission a
     * {@code shutdown()} already had.)
     */
    void emptyClaimEnded(WeakReference<ThreadPoolExecutor> ownerAtCount) {
        assert !Thread.holdsLock(registration) : "an owner's re-check under the registration lock";
        if (!ownerStopping) {
            recheckOwnerTermination(ownerAtCount);
        }
    }

    private void recheckTermination(WeakReference<ThreadPoolExecutor> ref) {
        ThreadPoolExecutor pool = ref == null ? null : ref.get();
        if (pool != null) {
            // Only isShutdown() is asked, and a refusal counts as shut down: remove() of a task
            // never queued re-checks termination, which does nothing for a pool still running or
            // already terminated, so asking isTerminated() saved nothing, and an override of it
            // that throws (an agent-managed pool's may) left a shut-down pool that never terminated.
            boolean shutDown;
            try {
                shutDown = ownerShutDown || pool.isShutdown();
            } catch (RuntimeException refused) {
                shutDown = true;
            }
            if (shutDown) {
                try {
                    if (pool instanceof TurntableExecutor) {
                        // ThreadPoolExecutor's own remove: a subclass's override of remove() that
                        // skips super would otherwise skip the re-check too.
                        ((TurntableExecutor) pool).recheckTermination();
                    } else {
                        pool.remove(NOT_QUEUED);
                    }
                } catch (RuntimeException | Error ignored) {
                    // The caller's own outcome stands (a put's false or InterruptedException, a
                    // removal's answer); a failing terminated() hook (or an override that throws)
                    // is the executor's to report.
                }
            }
        }
    }

    /**
     * Tells the queue that its executor's {@code shutdownNow()} is about to drain it
     * ({@code true}), or failed before it could ({@code false}, for a caller that was refused
     * permission). From then on a {@link RestartableTask} that rebalancing stopped and whose worker
     * has not yet come back is not put back to wait: it was running when the pool was stopped,
     * and ThreadPoolExecutor neither returns nor runs again a running task it interrupts. One put
     * back before this call is drained and returned by {@code shutdownNow()}. Without this call a
     * stopped task could be put back after the drain, where nothing runs it and {@code size()}
     * counts it until the pool is gone. {@link TurntableExecutor} and the agent call it; an
     * executor of your own on this queue should call it first thing in {@code shutdownNow()}.
     * Any thread.
     */
    public void ownerStopping(boolean stopping) {
        ownerStopping = stopping;
    }

    boolean isOwnerStopping() {
        return ownerStopping;
    }

    /**
     * Tells the queue that its executor has terminated: every worker has counted itself out, and
     * none runs a task again. A worker that has not yet told the queue it is leaving may still
     * count the class task it last ran (its thread ends its accounting only on its way out, and
     * after {@code shutdownNow()} ThreadPoolExecutor lets it go without asking the queue again);
     * this ends those tasks in their classes now, so that {@link #getRunningTasksByClass()}
     * reads none once {@code awaitTermination} has returned. Each such task is ended exactly
     * once, by this call or by its worker, whichever comes first; an ending its worker has begun
     * is waited for. {@link TurntableExecutor} calls it from {@code terminated()}; an executor of
     * your own should too, and only there: called while a worker still runs a task, it would end
     * that task in its class too early. Any thread.
     */
    public void ownerTerminated() {
        classSettings.ownerTerminated();
    }

    /**
     * Tells the queue that its executor has been shut down. From then on a worker with nothing
     * to take waits at most 10 ms and returns {@code null} from {@link #take()} or
     * {@link #poll(long, TimeUnit)}, so that ThreadPoolExecutor re-checks its own state and lets
     * the worker exit once the queue is empty. ThreadPoolExecutor otherwise ends idle workers
     * only through {@code tryTerminate}, which interrupts one if {@code isEmpty()} holds at that
     * very moment: a single racing read there would leave a worker parked and the pool never
     * terminated. {@link TurntableExecutor} and the agent call this from
     * {@code shutdown}/{@code shutdownNow}; an executor of your own on this queue must too.
     */
    public void ownerShutDown() {
        ownerShutDown = true;
        ClassScheduler cs = classes;
        if (cs != null) {
            cs.ownerShutDown(); // waiting tasks of every class start now, so the pool can finish
        }
        if (capacityMode == Capacity.HAND_OFF) {
            // Hand-off workers hold at most a task reserved for them, and their wait loop has
            // its own states: the executor's interrupts end them; waking them here would not.
            return;
        }
        for (WorkerSlot o : slots) {
            tryWake(o);
        }
    }

    /** Clears run, wait and CPU statistics, estimates and histograms (counts are kept). */
    public void resetStatistics() {
        statistics.reset();
    }

    /**
     * Run-time percentiles of the run times recorded since the previous call (needs
     * {@linkplain #setLatencyHistograms latency histograms} on; empty otherwise). The interval
     * is the queue's, not the caller's: every call starts a new one, the JMX attribute
     * {@code RunTimeMillis}'s included.
     *
     * <p>A completed task may come in a later interval: its run time is recorded when its worker
     * next asks the queue for a task (or leaves the pool), into a buffer of the worker's that
     * snapshots see only once it is flushed: when it holds 64 samples, when the worker finds
     * no work and goes idle, or when it leaves the pool (exits, retires, or dies and is
     * reaped). So a busy worker can hold back up to 64 completed tasks (63 buffered, and the one
     * it has just finished); they come in the next intervals, none lost or counted twice.
     */
    public LatencySnapshot runTimeSnapshot() {
        return statistics.runTimeSnapshot();
    }

    /**
     * Wait-time percentiles (offer to start) of a sample of the tasks: a uniform random 1 in 8
     * of those offered, so {@code count()} is about an eighth of the tasks started, not a task
     * count (see {@link #setLatencyHistograms}). Needs latency histograms on; empty otherwise.
     * Every call starts a new interval, as for {@link #runTimeSnapshot()} (JMX
     * {@code WaitTimeMillis} too).
     *
     * <p>A wait is recorded as its task starts, into the same kind of per-worker buffer as run
     * times, flushed at 64 samples, when the worker goes idle or when it leaves: a busy worker
     * can hold back up to 63 sampled waits of tasks it has started, which come in the next
     * intervals, none lost or counted twice.
     */
    public LatencySnapshot waitTimeSnapshot() {
        return statistics.waitTimeSnapshot();
    }

    /**
     * A point-in-time picture of every worker slot, by index. A time statistic the active
     * strategy (and the histograms) do not collect reads 0 ({@link #collectedStatistics()}); one
     * that a switch starts collecting again starts from zero, as the tasks in between went
     * unmeasured.
     */
    public List<WorkerInfo> workers() {
        WorkerSlot[] ss = slots;
        List<WorkerInfo> out = new ArrayList<>(ss.length);
        long now = ticker.nanoTime();
        int limit = lifetimeLimit;
        java.util.Set<dev.turntable.pool.strategy.Statistic> collected = statistics.collected();
        for (WorkerSlot s : ss) {
            out.add(WorkerInfo.of(s, statistics.isCurrent(s), collected, limit, now));
        }
        return out;
    }

    public Capacity getCapacityMode() {
        return capacityMode;
    }

    // ------------------------------------------------------------------ submit side

    /**
     * Whether this queue keeps a single worker's submission order for {@code pool}, its owner:
     * the pool's maximum size is 1 (a volatile read of a field ThreadPoolExecutor writes only
     * when the size is set; an override may throw), and tasks wait here rather than being handed
     * off (a hand-off queue has no backlog to order, and a task pushed to one of its workers is
     * one a submitter reserved that worker for, which a move would leave waiting for it for
     * good). The one rule for every part of that order: a submit that would overtake waiting
     * tasks ({@link #queueBehindWaiting}), a registrant that hands on a counted-out worker's
     * tasks ({@code WorkerRegistry.register}), and, with a concurrency limit, submits joining
     * the shared queue and the worker serving its own queue first while tasks wait there
     * ({@link #ownerKeepsSingleWorkerOrder}).
     */
    boolean keepsSingleWorkerOrder(ThreadPoolExecutor pool) {
        return pool.getMaximumPoolSize() == 1 && capacityMode != Capacity.HAND_OFF;
    }

    /**
     * {@link #keepsSingleWorkerOrder} for this queue's owner; false if there is none (yet, or
     * any longer) or its {@code getMaximumPoolSize} override throws. Any thread; not on the
     * default hot path (only while the shared queue holds tasks, or as a thread registers).
     */
    boolean ownerKeepsSingleWorkerOrder() {
        try {
            ThreadPoolExecutor pool = ownerNow();
            return pool != null && keepsSingleWorkerOrder(pool);
        } catch (RuntimeException | Error e) {
            return false;
        }
    }

    /** The executor this queue serves ({@link #setOwner}), or null if none was set or it is gone. */
    ThreadPoolExecutor ownerNow() {
        WeakReference<ThreadPoolExecutor> ref = owner;
        return ref == null ? null : ref.get();
    }

    /**
     * For a single-worker pool ({@code pool}'s maximum size 1, whose order
     * {@code Executors.newSingleThreadExecutor} promises): queues {@code task} behind the tasks
     * already waiting where {@code ThreadPoolExecutor.execute} would hand it to a new core
     * thread to run ahead of them; on the submitting thread. True: the task is queued and
     * accepted, and a thread will take it (a core thread without a task of its own was started
     * if the pool is below its core size). False: nothing changed, and the caller goes on as
     * ThreadPoolExecutor does ({@link TurntableExecutor#execute} calls {@code super.execute};
     * the agent lets {@code addWorker} go on).
     *
     * <p>Why: a pool is below its core size from the moment a worker that retired or died leaves
     * until ThreadPoolExecutor has made its replacement, while the tasks it left wait in the
     * shared queue. A submit in that window ran ahead of all of them: a single-thread executor
     * under {@code max-lifetime-tasks=100} ran [98, 99, 1825, 100, 101] in 3 of 10 rounds of
     * 20,000 tasks (and a task's exception, which ends its worker, did the same to a plain
     * ThreadPoolExecutor).
     *
     * <p>Guarantees:
     * <ul>
     *   <li>Only for a single-worker pool: any other answers false after one read of its
     *       maximum size, and grows as ThreadPoolExecutor does (a task below the core size gets a
     *       new thread of its own, which with task stealing off is what keeps it from waiting
     *       behind a busy worker); there is no order across workers to keep.</li>
     *   <li>Only while tasks wait (in the shared queue or on the worker's own): with nothing
     *       waiting, a first task of its own overtakes nothing, takes no place in a bounded
     *       queue, and counts once in {@code getTaskCount}, as in ThreadPoolExecutor. While they
     *       wait, in a bounded queue, the task takes a place that ThreadPoolExecutor's new thread
     *       would have taken without one.</li>
     *   <li>With a concurrency limit, only while tasks wait in the shared queue (where a
     *       departed worker's tasks go), which the task then joins within the limit
     *       ({@link #joinSharedWithinLimit}), waiting for room behind them if need be (below
     *       the core size, the taskless core thread is started first, to make that room).
     *       Refused after the select timeout, the task then meets execute's own wait too: it is
     *       rejected after twice the timeout.</li>
     *   <li>False also for a null task, a hand-off queue (no backlog to keep order in), a
     *       pool of core size 0 (execute queues every task there, and keeps order) or shut down
     *       (execute rejects), and a full bounded queue (execute rejects).</li>
     *   <li>A pool shut down as the task was queued: the task is taken back through the pool's
     *       {@code remove}, as execute does, and the answer is false (execute then rejects it).
     *       Not taken back (a worker has it), it runs, as after execute's own re-check.</li>
     *   <li>A thread that cannot be started ({@code prestartCoreThread} threw: out of native
     *       threads, say): the task is taken back and the answer is false, so execute's own
     *       attempt fails as it would have; not taken back, a worker has it and it is accepted.</li>
     *   <li>No thread left to take it (the core size was lowered to 0 meanwhile and the last
     *       worker has gone): taken back, false, and execute starts one as it does whatever the
     *       core size.</li>
     *   <li>What the pool's own methods throw ({@code remove}'s {@code terminated()} hook, an
     *       override) reaches the caller, as from execute's re-check.</li>
     * </ul>
     */
    public boolean queueBehindWaiting(ThreadPoolExecutor pool, Runnable task) {
        int limit = maxConcurrentTasks;
        if (task == null || !keepsSingleWorkerOrder(pool) || (limit > 0 && sharedCount.get() == 0)) {
            return false;
        }
        if (limit > 0 && !roomBehindShared(sharedCount.get(), limit) && pool.getPoolSize() < pool.getCorePoolSize()) {
            // No room behind the waiting tasks, and a worker just left: execute would give the
            // task a new thread to run first. Start that thread without a task of its own
            // instead, then wait for room behind the others below, as execute's offer would.
            // Also at the core size the wait is here, not left to execute: the worker may leave
            // between this look and execute's, which then hands the task a thread of its own
            // (seen in 2 of 5 runs of SingleWorkerLimitOrderTest). Refused after the select
            // timeout, the task meets execute's own wait too: twice the timeout, only then.
            try {
                pool.prestartCoreThread();
            } catch (RuntimeException | Error e) {
                return false; // execute's own attempt fails as it would have
            }
        }
        // Nothing waiting: the task overtakes nothing, and gets a thread of its own if the pool
        // is below its core size, as in ThreadPoolExecutor (a queued first task would count
        // twice in getTaskCount until its taskless thread starts, and take a bounded place).
        // One volatile read while the shared queue is in use, else the one worker's counts.
        // A worker that leaves hands its tasks on (a fenced move) before the pool counts it
        // gone (afterExecute, the retirement path, the replacement's construction, the agent's
        // processWorkerExit hook), or they are still on its own queue, which this sees too; so
        // the agent, which asks once addWorker has seen the pool below its core size, sees
        // them. TurntableExecutor asks before execute reads the pool's size: a death whose move
        // and count both fall between the two reads can still let one task run first.
        if (!waitingTasks.any()
                || pool.getCorePoolSize() == 0 || pool.isShutdown() || !offer(task)) {
            return false;
        }
        if (pool.isShutdown() && pool.remove(task)) {
            return false;
        }
        boolean started;
        try {
            started = pool.prestartCoreThread();
        } catch (RuntimeException | Error e) {
            return !pool.remove(task);
        }
        // At or above the core size: a worker will take it, unless none is left because the core
        // size went to 0 (the only way prestartCoreThread finds no thread too few). Locks the
        // pool only then.
        return started || pool.getCorePoolSize() > 0 || pool.getPoolSize() > 0 || !pool.remove(task);
    }

    @Override
    public boolean offer(Runnable task) {
        Objects.requireNonNull(task, "task");
        if (capacityMode == Capacity.HAND_OFF) {
            return handOff(task);
        }
        if (capacityMode == Capacity.BOUNDED && !tryAcquirePermit()) {
            return false;
        }
        ClassScheduler cs = classes;
        if (cs != null && cs.enabled()) {
            // Waits in its class and job until a scheduling pass starts it (see ClassScheduler).
            cs.offer(statistics.stampThisOffer() ? new TimedTask(task, System.nanoTime()) : task, task);
            return true;
        }
        if (dispatch(statistics.stampThisOffer() ? new TimedTask(task, System.nanoTime()) : task)) {
            return true;
        }
        releasePermit();
        return false;
    }

    /**
     * How many times a submit asks the strategy for a worker ({@code max-concurrent-tasks}) before
     * it waits as if every worker were at the limit. A reservation fails only when the worker is
     * full or other submitters hold its last places at that instant; the strategy, asked again,
     * then usually sees their pushes and picks another. Losing this many times in a row means
     * the pool is filling as fast as we choose: it is at the limit in all but name.
     */
    private static final int CHOICE_ATTEMPTS = 4;

    /** Places the task; false only when the concurrency limit left no place for the select timeout. */
    private boolean dispatch(Runnable element) {
        // Without a concurrency limit (the default) this one int read is all the limit costs.
        int limit = maxConcurrentTasks;
        if (limit > 0 && sharedCount.get() > 0 && ownerKeepsSingleWorkerOrder()) {
            return joinSharedWithinLimit(element, limit);
        }
        if (limit <= 0 && sharedCount.get() > 0) {
            // Tasks wait in the shared queue (a worker's queue overflowed, or none was attached,
            // or one left): a new task queues behind them, not on a worker, where it would run
            // first. So a single worker keeps submission order past its queue's capacity, as
            // Executors.newSingleThreadExecutor promises, and an overflowed task is not overtaken
            // for as long as submissions go on: workers serve their own queues, which then only
            // drain, before the shared one (findEngineWork). One read of a line that is written
            // only while the shared queue is in use. Not with a concurrency limit, whose
            // back-pressure the shared queue would bypass (but see joinSharedWithinLimit).
            toShared(element);
            return true;
        }
        int i = chooseQueuing();
        if (limit > 0) {
            return dispatchWithinLimit(element, i, limit);
        }
        // No worker chosen: none attached yet, or every one draining toward retirement (its
        // lifetime reached by the tasks it holds, or recycled). The task waits in the shared
        // queue, which a replacement serves first (sharedFirstTakes). Lifetimes are about
        // recycling, not capacity: they never make a submit wait or fail, as an unbounded
        // queue never does. (A worker at its lifetime limit still has all the tasks it holds
        // to run before its replacement comes, so waiting for that, as a proxy waits for a
        // restarting worker, stalled execute() for the whole select timeout and then refused
        // the task whenever a burst outgrew the workers' remaining lifetimes.)
        place(element, i, slots);
        return true;
    }

    /**
     * {@link #dispatch} with {@code max-concurrent-tasks} set, for a single worker that keeps its
     * submission order ({@link #ownerKeepsSingleWorkerOrder}) while tasks wait in the shared
     * queue: the task joins them there, behind, where on the worker's own queue it would run
     * first (a task reaches the shared queue with the limit set when no place was found for it
     * although the worker was below the limit: not attached yet, stuck, or counted twice for an
     * instant; or a departed worker left it). Within the limit: only while the worker's tasks,
     * queued or running, and the shared queue's number fewer than it; else it waits as for a
     * place ({@link #awaitEligibleWorker}: up to the select timeout, then refused), so a fast
     * submitter cannot grow the shared queue without bound (a review: 100 submits to a full
     * worker all accepted). Once the shared queue is empty, the usual placement. Submitters
     * racing here may each add one past the limit (the count is read, not reserved); the worker
     * itself never holds more ({@link #findWorkWithinLimit}).
     */
    private boolean joinSharedWithinLimit(Runnable element, int limit) {
        long deadline = 0L;
        long pause = TimeUnit.MICROSECONDS.toNanos(20);
        for (;;) {
            int waiting = sharedCount.get();
            if (waiting <= 0) {
                return dispatchWithinLimit(element, chooseQueuing(), limit);
            }
            if (roomBehindShared(waiting, limit)) {
                toShared(element);
                return true;
            }
            long now = System.nanoTime();
            if (deadline == 0L) {
                deadline = now + workerSelectTimeoutNanos;
            }
            long left = deadline - now;
            if (left <= 0 || ownerShutDown || Thread.currentThread().isInterrupted()) {
                return false;
            }
            LockSupport.parkNanos(this, Math.min(pause, left));
            pause = Math.min(pause * 2, TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    /**
     * Whether a single worker under a concurrency limit has room for one more task behind the
     * {@code waiting} in the shared queue: its own tasks, queued or running, and those number
     * fewer than {@code limit}. Cold: {@link #joinSharedWithinLimit}, {@link #queueBehindWaiting}.
     */
    private boolean roomBehindShared(int waiting, int limit) {
        return (long) waiting + singleWorkerLoad() < limit;
    }

    /** Tasks queued on or running in the slots a thread owns (one, in a single-worker pool); cold. */
    private long singleWorkerLoad() {
        long n = 0;
        for (WorkerSlot o : slots) {
            if (o.state != WorkerSlot.FREE) {
                n += Math.max(0, o.queue.size()) + Math.max(0, o.running);
            }
        }
        return n;
    }

    /**
     * {@link #dispatch} with {@code max-concurrent-tasks} set: the chosen worker's place is
     * reserved before the push ({@link WorkerSlot#tryReserve}), so submitters racing for its last
     * place cannot both take it; a submitter that loses chooses again. No worker found and every
     * attached one that is not draining toward retirement at the concurrency limit, or every
     * attempt lost: the wait of {@link #awaitEligibleWorker}, then refusal.
     *
     * <p>No worker found although some is below every limit: choose again, and only on the last
     * attempt use the shared queue, as without the limit (the case it is there for: only stuck
     * workers, or none attached yet). The shared queue does not bypass the limit (a worker takes
     * from it only into a place it holds on itself: {@link #findWorkWithinLimit}), but it does
     * bypass the choice and the select timeout: a task there is accepted, and waits for whichever
     * worker first has room. And this case also arises in passing:
     * a worker moving a task from its queue to itself counts it twice for an instant (see
     * {@code claim}), so the strategy can read it at the limit and
     * {@link #everyWorkerAtConcurrencyLimit}, a moment later, below it.
     */
    private boolean dispatchWithinLimit(Runnable element, int i, int limit) {
        for (int attempt = 1; ; attempt++) {
            if (i >= 0) {
                if (placeWithinLimit(element, i, slots, limit)) {
                    return true;
                }
            } else if (everyWorkerAtConcurrencyLimit()) {
                return awaitEligibleWorker(element);
            } else if (attempt == CHOICE_ATTEMPTS) {
                toShared(element);
                return true;
            }
            if (attempt == CHOICE_ATTEMPTS) {
                return awaitEligibleWorker(element);
            }
            i = chooseQueuing();
        }
    }

    /**
     * The active strategy's choice of a worker to queue on, with the clock read only when the
     * strategy needs it for this choice. The strategy is read once: a switch in between cannot pair one
     * strategy's clock needs with another's choice.
     */
    private int chooseQueuing() {
        return choose(strategy, queuingView);
    }

    /**
     * {@code s}'s choice, with the clock read only if it needs it now ({@link WorkerChoiceStrategy#needsClock}). A strategy must not throw; one
     * of your own that does anyway, or answers an index that is neither a worker nor
     * {@link WorkerChoiceStrategy#NONE}, is treated as choosing no worker, so the task goes to the
     * shared queue (or, handed off, is refused) and is never lost half-placed; the failures are
     * counted and the first is logged.
     */
    int choose(WorkerChoiceStrategy s, SlotView view) {
        try {
            long nowNanos = 0L;
            if (s.needsClock(view)) {
                nowNanos = System.nanoTime();
            }
            if (statistics.observesStarts() && (ThreadLocalRandom.current().nextInt()
                    & (StatisticsCollector.OBSERVE_START_EVERY - 1)) == 0) {
                // Remaining times collected (FAIR_SHARE): one choice in 16 notes the running
                // tasks of unknown start (untimed tasks of the sampled run time); one still
                // running at a look 2 µs or more after the first (so not a tiny one) ages from
                // that first look (observeUnknownStarts). Only this one in 16, so that a pool
                // whose other choices read the clock anyway pays the notes no more often.
                if (nowNanos == 0L) {
                    nowNanos = System.nanoTime();
                }
                observeUnknownStarts(nowNanos);
            }
            int boundBefore = slotBound; // the line count() reads anyway
            int i = s.choose(view, nowNanos);
            if (answersNoWorker(i, boundBefore)) {
                // Once more before blaming the strategy: a thread that registered and another
                // that left while it chose can raise the bound and lower it again past the
                // worker it saw (a built-in LIFETIME_FIRST was blamed so, once, under
                // max-lifetime-tasks=13). A strategy that answers beyond the pool does so again.
                boundBefore = slotBound;
                i = s.choose(view, nowNanos);
                if (answersNoWorker(i, boundBefore)) {
                    // One of your own answered no worker of this pool: as if it had thrown (a
                    // task placed on no queue would be lost; the shared queue runs it).
                    return strategyFailed(s, "answered worker " + i + ", which is not one of the pool's "
                            + view.count() + " worker indexes (0.." + (view.count() - 1) + ") nor NONE (-1)", null);
                }
            }
            return i;
        } catch (RuntimeException e) {
            return strategyFailed(s, "threw", e);
        }
    }

    /**
     * Whether a strategy's answer {@code i} names no worker: below {@code NONE}, beyond the
     * slots, or past the bound it was shown both before ({@code boundBefore}) and after its
     * choice (an answer at or beyond {@code count()} breaks the contract, though the slot may
     * exist). Not against one reading: a leaving thread may lower the bound past a worker the
     * strategy saw a moment ago, and a new one raise it as the strategy looks.
     */
    private boolean answersNoWorker(int i, int boundBefore) {
        return i < WorkerChoiceStrategy.NONE || i >= slots.length || (i >= boundBefore && i >= slotBound);
    }

    /** Counts a strategy's failure (logging the first) and answers {@code NONE}. */
    private int strategyFailed(WorkerChoiceStrategy s, String what, RuntimeException e) {
        if (strategyFailures.getAndIncrement() == 0) {
            System.getLogger(TurntableQueue.class.getName()).log(System.Logger.Level.WARNING,
                    "worker choice strategy " + s.name() + " " + what + "; tasks it fails to place go to the"
                            + " shared queue (or a hand-off is refused). Later failures are only counted", e);
        }
        return WorkerChoiceStrategy.NONE;
    }

    /**
     * Notes each attached worker's running task whose start is unknown (an untimed task of the
     * sampled run time): a first look dates it with one clock reading taken after every such
     * look has read its task's count, a later look with {@code lookNanos} 2 µs or more after
     * that confirms the date ({@link WorkerSlot#beginFirstLook}, {@link WorkerSlot#confirmLook}).
     * A task ended meanwhile leaves a date no one reads (the owner's count moves on, or its
     * completed count catches up). Writes only on a first or confirming look, on a line of its
     * own; at most one clock read of its own. Package-private for tests.
     */
    void observeUnknownStarts(long lookNanos) {
        WorkerSlot[] ss = slots; // one array for both passes (a pool that grows replaces it)
        long firstLooks = 0; // bit i: this call holds slot i's first look
        for (int i = 0; i < ss.length; i++) {
            WorkerSlot o = ss[i];
            if (o.running > 0 && o.runningSinceNanos == WorkerView.START_UNKNOWN && o.state == WorkerSlot.ATTACHED) {
                long started = o.started;
                if (o.observedStarted == started) {
                    o.confirmLook(started, lookNanos);
                } else if (o.beginFirstLook(started)) {
                    if (i < Long.SIZE) {
                        firstLooks |= 1L << i;
                    } else {
                        o.endFirstLook(System.nanoTime()); // beyond 64 workers: a reading each
                    }
                }
            }
        }
        if (firstLooks != 0) {
            long dateNanos = System.nanoTime(); // after every first look read its count
            for (int i = 0; firstLooks != 0; i++, firstLooks >>>= 1) {
                if ((firstLooks & 1) != 0) {
                    ss[i].endFirstLook(dateNanos);
                }
            }
        }
    }

    /**
     * Times a strategy threw, or answered an index that is no worker, instead of choosing (only
     * one of your own can): each such task went to the shared queue, or, on a hand-off queue, was
     * refused. Counted per choice asked for: while tasks wait in the shared queue, new ones join
     * them without a choice, and a submit may ask up to four times (with
     * {@code max-concurrent-tasks}, on a hand-off queue, or to start a waiting class task).
     */
    public long getStrategyFailureCount() {
        return strategyFailures.get();
    }

    /**
     * Class scheduler: a started task goes to the worker the strategy chooses (or the shared
     * queue). With {@code max-concurrent-tasks}, as in {@link #dispatchWithinLimit}, but a
     * started task cannot be refused: after the last attempt it goes to the shared queue.
     */
    void placeStarted(Runnable element) {
        int limit = maxConcurrentTasks;
        for (int attempt = 1; ; attempt++) {
            int i = chooseQueuing();
            if (limit <= 0) {
                place(element, i, slots);
                return;
            }
            if (i >= 0 && placeWithinLimit(element, i, slots, limit)) {
                return;
            }
            if (attempt == CHOICE_ATTEMPTS) {
                toShared(element);
                return;
            }
        }
    }

    /**
     * {@link #place}, within a concurrency limit of {@code limit} tasks per worker (0 = none):
     * false, with nothing placed, only when the chosen worker had no place left once this
     * submitter had reserved one (another submitter took it first, or holds it right now).
     */
    private boolean placeWithinLimit(Runnable element, int i, WorkerSlot[] ss, int limit) {
        if (limit <= 0 || i < 0 || i >= ss.length) {
            place(element, i, ss);
            return true;
        }
        WorkerSlot w = ss[i];
        if (!w.tryReserve(limit)) {
            return false;
        }
        if (w.offerReserved(element)) {
            signalPushed(w);
        } else {
            toShared(element); // the worker's queue is full (workerQueueCapacity), as in place()
        }
        return true;
    }

    /**
     * Class scheduler: a stopped task goes back to wait in its class, so in a bounded queue it
     * holds a place again (its first place was given back when it started). Taken before the
     * task is visible, so the count never shows more room than there is; for a moment it may
     * show less, as the task was admitted once and is not refused now.
     */
    void holdPlaceAgain() {
        if (capacityMode == Capacity.BOUNDED) {
            permits.decrementAndGet();
        }
    }

    /** Class scheduler: a task is about to leave its job for a worker queue (size() must not dip). */
    void beginMove() {
        inTransit.incrementAndGet();
    }

    /** Class scheduler: the task of {@link #beginMove()} is in a queue now (or there was none). */
    void endMove(boolean moved) {
        if (moved) {
            moves.incrementAndGet(); // before inTransit drops: a waiter that sees 0 sees the move
        }
        inTransit.decrementAndGet();
    }

    Ticker ticker() {
        return ticker;
    }

    private void place(Runnable element, int i, WorkerSlot[] ss) {
        if (i < 0 || i >= ss.length || !ss[i].queue.offer(element)) {
            // No worker attached yet (or all left): the shared queue, which every worker polls.
            toShared(element);
            return;
        }
        signalPushed(ss[i]);
    }

    /**
     * Whether a submit must wait for a place: {@code max-concurrent-tasks} is set, and every
     * attached worker that is not draining toward retirement (lifetime reached, recycled) holds
     * that many tasks, queued or running, and there is at least one such worker. Workers on
     * their way to retirement do not count either way: their replacements start with room, and
     * a task meant for one of them waits in the shared queue, as without the limit. A worker
     * held back only by being stuck does not make a submit wait either: with stuck workers
     * alone the task goes to the shared queue, as a plain pool would queue it (limits are
     * opt-in; heartbeats are not, and must never turn into rejections).
     */
    private boolean everyWorkerAtConcurrencyLimit() {
        int life = lifetimeLimit;
        int conc = maxConcurrentTasks;
        if (conc <= 0) {
            return false;
        }
        boolean any = false;
        for (WorkerSlot o : slots) {
            // A worker in its executor-given first task counts neither way, as one draining.
            if (o.state != WorkerSlot.ATTACHED || (o.flags & WorkerSlot.FIRST_TASK) != 0 || o.drainingToRetire(life)) {
                continue;
            }
            if (!o.atConcurrencyLimit(conc)) {
                return false;
            }
            any = true;
        }
        return any;
    }

    /**
     * Cold path, with {@code max-concurrent-tasks} only: every worker not on its way to
     * retirement holds that many tasks (or other submitters took the last places on every
     * worker this one chose). Waits (parking 20 µs,
     * doubling to 1 ms) up to the worker-select timeout for one: a replacement registering, a
     * task finishing. Gives up at once on shutdown or interrupt (the interrupt is kept for the
     * caller).
     */
    private boolean awaitEligibleWorker(Runnable element) {
        long timeout = workerSelectTimeoutNanos;
        long deadline = System.nanoTime() + timeout;
        long pause = TimeUnit.MICROSECONDS.toNanos(20);
        for (;;) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || ownerShutDown || Thread.currentThread().isInterrupted()) {
                return false;
            }
            LockSupport.parkNanos(this, Math.min(pause, left));
            pause = Math.min(pause * 2, TimeUnit.MILLISECONDS.toNanos(1));
            int i = chooseQueuing();
            // A reservation lost to another submitter is one more reason to wait (the limit
            // is read afresh: it may have changed while we waited).
            if ((i >= 0 || !everyWorkerAtConcurrencyLimit()) && placeWithinLimit(element, i, slots, maxConcurrentTasks)) {
                return true;
            }
        }
    }

    /**
     * After pushing onto {@code s}'s queue: rescue the task if the owner left meanwhile, wake
     * the owner if it parked, or wake an idle worker to steal if the owner is busy.
     */
    void signalPushed(WorkerSlot s) {
        // StoreLoad (Dekker): the task must be visible before we read the owner's waitState
        // and the parked count, because a parking worker writes those and then re-reads the
        // queues. offer()'s CAS on the producer index looks sufficient on paper, but without
        // this fence a stress test left a worker parked beside a stuck task about once in
        // 7,600 rounds (0 in 11,550 with it): the element and its sequence are published by
        // plain/release stores after that CAS, so keep the fence.
        VarHandle.fullFence();
        // The same fence, then the state: a leaving owner writes FREE or DETACHED and then looks
        // at its queue (WorkerRegistry.release and detach), so one of us moves this task.
        if (s.state != WorkerSlot.ATTACHED) {
            rescueToShared(s);
            return;
        }
        int ws = s.waitState;
        if (ws == WorkerSlot.PARKED) {
            // Wake in flight (stealing on): a woken worker that has yet to look will see this
            // task when it does, and wake the next worker for it if it leaves it (waking).
            if (!taskStealing || waking.get() <= 0) {
                tryWake(s);
            }
        } else if (ws == WorkerSlot.RUNNING && parkedCount.get() > 0
                && ((taskStealing && waking.get() <= 0) || isOrphaned(s))) {
            // The owner is inside a task: an idle worker can steal this one (or must rescue it,
            // if the owner died without telling; that check costs a liveness call, only here).
            wakeOneParked(null);
        }
        // WOKEN: the owner looks at its queue once it has consumed its wake (consumeWake).
    }

    void toShared(Runnable element) { // package-private for tests
        shared.offer(element);
        sharedCount.incrementAndGet(); // full fence: pairs with a parking worker's parkedCount increment
        wakeOneParked();
    }

    /**
     * A submitter's task pushed onto a slot whose owner left meanwhile: to the shared queue
     * ({@link WorkerRegistry#rescueToShared}). A claim of the rescue that came up empty makes a
     * shut-down owner re-check ({@link #emptyClaimEnded}), out of the registration lock the
     * rescue holds; but not here when the rescuing thread is a class pass placing a task it
     * started: that pass's own move is still counted, and the re-check's {@code remove} of a task
     * never queued waits for every counted move to end ({@code WaitingTasks.remove}), its own
     * too: it would wait for good. The pass re-checks once it is over
     * ({@link ClassScheduler#deferredToPlacingPass}). Cold: a slot whose owner left.
     */
    private void rescueToShared(WorkerSlot s) {
        WeakReference<ThreadPoolExecutor> ownerAtCount = owner; // before the rescue counts: see emptyClaimEnded
        if (workerRegistry.rescueToShared(s)) {
            ClassScheduler cs = classes;
            if (cs == null || !cs.deferredToPlacingPass(ownerAtCount)) {
                emptyClaimEnded(ownerAtCount);
            }
        }
    }

    void wakeOneParked() {
        wakeOneParked(null);
    }

    /** Wakes in flight ({@link #waking}); package-private for tests. */
    int wakesInFlight() {
        return waking.get();
    }

    /** Wakes one parked worker other than {@code except} (null: any), if there is one. */
    private void wakeOneParked(WorkerSlot except) {
        if (parkedCount.get() == 0) {
            return;
        }
        for (WorkerSlot o : slots) {
            // A worker draining toward retirement takes no task: a wake-up spent on it would be
            // lost while a worker that could take the task sleeps on (wakePendingRetirees, in
            // WorkerLifetimes, wakes it when its turn comes).
            if (o != except && o.waitState == WorkerSlot.PARKED && !retireDue(o) && tryWake(o)) {
                return;
            }
        }
    }

    /**
     * Wakes {@code o} if it is parked; the CAS makes sure one parked worker is woken (and
     * counted as woken) by one caller only. Returns whether this call woke it.
     *
     * <p>Queuing mode: to {@code WOKEN}, one more wake in flight ({@link #waking}). The count
     * is raised after the CAS, so a wakee may lower it first and it may read low for a moment
     * (a submitter then wakes a worker it could have left asleep: harmless). It never reads
     * high: each wake adds one only after its CAS and takes it back only when its wakee
     * consumes it, so a positive reading counts at least one wake whose wakee has yet to
     * lower the count. That wakee's decrement (a full fence) comes after the reader's read,
     * which came after its push and fence (signalPushed): its look for work after the
     * decrement sees that push (Dekker).
     */
    boolean tryWake(WorkerSlot o) {
        if (o.waitState != WorkerSlot.PARKED) {
            return false;
        }
        if (capacityMode == Capacity.HAND_OFF) {
            // The hand-off wait has states of its own and no wake-in-flight rule: the woken
            // worker takes itself from RUNNING back to SEARCHING (HandOffMode.handOffWait).
            if (o.casWaitState(WorkerSlot.PARKED, WorkerSlot.RUNNING)) {
                LockSupport.unpark(o.thread);
                return true;
            }
            return false;
        }
        if (o.casWaitState(WorkerSlot.PARKED, WorkerSlot.WOKEN)) {
            waking.incrementAndGet();
            LockSupport.unpark(o.thread);
            return true;
        }
        return false;
    }

    /**
     * Owner, queuing wait: ends a wake that was spent on it ({@code WOKEN} to {@code RUNNING})
     * and lowers the count of wakes in flight. The caller must then look for work, and pass a
     * wake on if it leaves some ({@link #passWakeOn}). Returns whether there was a wake.
     */
    boolean consumeWake(WorkerSlot s) {
        if (s.waitState == WorkerSlot.WOKEN && s.casWaitState(WorkerSlot.WOKEN, WorkerSlot.RUNNING)) {
            waking.decrementAndGet(); // full fence: the look that follows sees what was pushed before
            return true;
        }
        return false;
    }

    /**
     * Owner, queuing wait: leaves {@code PARKED} (or {@code WOKEN}) for {@code RUNNING} without
     * overwriting a wake a waker may be spending on it right now. Returns whether it consumed
     * a wake (the caller passes it on, {@link #passWakeOn}).
     */
    private boolean leaveParked(WorkerSlot s) {
        for (;;) {
            int ws = s.waitState;
            if (ws == WorkerSlot.WOKEN) {
                if (consumeWake(s)) {
                    return true;
                }
            } else if (ws == WorkerSlot.PARKED) {
                if (s.casWaitState(WorkerSlot.PARKED, WorkerSlot.RUNNING)) {
                    return false;
                }
            } else {
                // RUNNING or SEARCHING: in queuing mode only the owner moves from these.
                s.waitState = WorkerSlot.RUNNING;
                return false;
            }
        }
    }

    /**
     * A worker that consumed a wake, after it looked for work (and took a task, or did not):
     * wakes one more parked worker (not {@code self}) if work is still queued where a parked
     * worker would take it. Submitters left the other parked workers asleep while the wake was
     * in flight, so this is what wakes them for the rest of a burst: one at a time, each woken
     * worker passing it on, as a ThreadPoolExecutor's takers signal one another. The work is
     * seen first and the parked count read after, as in {@link #wakeAnotherIfWorkRemains}.
     */
    void passWakeOn(WorkerSlot self) {
        if (workLeftForParked(self) && parkedCount.get() > 0) {
            wakeOneParked(self);
        }
    }

    /** Whether a task waits that a parked worker other than {@code self} could take. */
    private boolean workLeftForParked(WorkerSlot self) {
        if (sharedCount.get() > 0) {
            return true;
        }
        for (WorkerSlot o : slots) {
            if (!o.queue.isEmpty() && (taskStealing || isOrphaned(o))) {
                return true;
            }
        }
        return false;
    }

    /*
     * Loads and links the classes a worker's first trip through the queue needs (its slot, the
     * slot's JCTools queue and that queue's offer, poll and size, the task wrappers that start()
     * tests for) once per class loader, on the thread that builds the first queue. Left to the
     * first worker, that took 5-90 ms (measured cold, on a loaded 2-CPU machine) inside
     * WorkerRegistry.register(), under the registration lock, so no worker became reservable for
     * that long and a cached pool's submitter, finding none, made a new thread per call: 12-50
     * threads for the first 50 sequential submit().get() calls of a fresh JVM where a
     * SynchronousQueue (whose classes the JDK ships pre-loaded) makes 2-3. The first queue's
     * constructor pays instead, once (HandOffThreadGrowthTest). The classes the queue delegates
     * to (HandOffMode, WaitingTasks, WorkerLifetimes, WorkerRegistry) are loaded there too: the
     * constructor makes one of each.
     */
    static {
        WorkerSlot warm = new WorkerSlot(-1, 2);
        Runnable nothing = () -> { };
        warm.queue.offer(nothing);
        warm.queue.size();
        warm.queue.poll();
        warm.queue.isEmpty();
        Object unused = ClassedTask.class;
        unused = TimedTask.class;
    }

    /** Hand-off {@code offer}: {@link HandOffMode#handOff}. */
    private boolean handOff(Runnable task) {
        return handOffMode.handOff(task);
    }

    private boolean tryAcquirePermit() {
        for (;;) {
            int p = permits.get();
            if (p <= 0) {
                return false;
            }
            if (permits.compareAndSet(p, p - 1)) {
                return true;
            }
        }
    }

    void releasePermit() {
        if (capacityMode == Capacity.BOUNDED) {
            permits.incrementAndGet();
            if (putWaiters > 0) {
                putLock.lock();
                try {
                    notFull.signal();
                } finally {
                    putLock.unlock();
                }
            }
        }
    }

    @Override
    public void put(Runnable task) throws InterruptedException {
        Objects.requireNonNull(task, "task");
        if (capacityMode == Capacity.HAND_OFF && HandOffMode.SYNC_PUT_CHECKS_INTERRUPT_FIRST && Thread.interrupted()) {
            // As this JDK's SynchronousQueue.put: a pending interrupt throws before any taker is
            // looked for, and is cleared (see HandOffMode.SYNC_PUT_CHECKS_INTERRUPT_FIRST).
            throw new InterruptedException();
        }
        if (!offer(task, Long.MAX_VALUE, TimeUnit.NANOSECONDS)) {
            throw new IllegalStateException("unreachable: an unbounded wait gave up");
        }
    }

    /**
     * Offers {@code task}, waiting up to {@code timeout} for room (bounded) or for an idle worker
     * to take it (hand-off); an unbounded queue always has room. Interrupts are handled as the
     * replaced JDK queue handles them, so an application behaves the same on the engine: a
     * pending interrupt throws {@link InterruptedException} at once and queues nothing, as
     * {@code LinkedBlockingQueue}'s and {@code ArrayBlockingQueue}'s interruptible lock does, even
     * with room; in hand-off mode an idle worker takes the task first, as a
     * {@code SynchronousQueue}'s waiting taker does, and only an offer that would otherwise fail
     * or wait throws (also with a zero timeout). A hand-off {@link #put} on a JDK whose
     * {@code SynchronousQueue.put} throws first (JDK 25's does, 17's does not) throws first
     * too. Any thread.
     */
    @Override
    public boolean offer(Runnable task, long timeout, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(task, "task");
        long nanos = unit.toNanos(timeout);
        if (capacityMode == Capacity.HAND_OFF) {
            if (handOff(task)) {
                return true;
            }
            if (nanos <= 0) {
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
                return false;
            }
            // A ThreadPoolExecutor never calls this; a rejection handler that blocks the
            // submitter does, once per task while the pool is at its maximum. The submitter then
            // holds its task until a worker turning idle takes it, as a SynchronousQueue's put
            // is taken: waking the submitter to push it instead cost 0.18-0.28x of a
            // SynchronousQueue's throughput (BlockingHandOffBenchmark), retrying every
            // millisecond 0.002x.
            return handOffMode.awaitHandOffTaker(task, nanos);
        }
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        long deadline = System.nanoTime() + nanos;
        while (!offer(task)) {
            long left = nanos == Long.MAX_VALUE ? Long.MAX_VALUE : deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            putLock.lockInterruptibly();
            try {
                putWaiters++;
                if (permits.get() <= 0) {
                    notFull.awaitNanos(left);
                }
            } finally {
                putWaiters--;
                putLock.unlock();
            }
        }
        return true;
    }

    @Override
    public int remainingCapacity() {
        switch (capacityMode) {
            case BOUNDED: return Math.max(0, permits.get());
            case HAND_OFF: return 0;
            // As LinkedBlockingQueue(): its capacity, Integer.MAX_VALUE, less what waits.
            default: return Math.max(0, Integer.MAX_VALUE - size());
        }
    }

    // ------------------------------------------------------------------ worker side

    @Override
    public Runnable take() throws InterruptedException {
        return awaitTask(false, 0L);
    }

    @Override
    public Runnable poll(long timeout, TimeUnit unit) throws InterruptedException {
        return awaitTask(true, unit.toNanos(timeout));
    }

    private Runnable awaitTask(boolean timed, long nanos) throws InterruptedException {
        WorkerSlot s = attachCurrent();
        if (capacityMode == Capacity.HAND_OFF) {
            return awaitHandOff(s, timed, nanos); // ends the last task itself: see there
        }
        long endNanos = finishRunning(s);
        int f = s.flags;
        if (f != 0 || lifetimeLimit > 0) {
            betweenTasks(s, f); // may retire this worker: throws WorkerRetirement
        }
        Runnable r = findWork(s, true);
        if (r != null) {
            // Found without waiting: the clock read that ended the last task starts this one.
            return start(s, r, endNanos);
        }
        statistics.workerIdle(s);
        scheduleWaitingClassTasks(); // an idle worker is capacity the class plan may give a waiting task
        s.setWaitState(WorkerSlot.SEARCHING);
        int budget = SPINS + yieldsBeforePark(s);
        for (int i = 1; i <= budget; i++) {
            if (i <= SPINS) {
                Thread.onSpinWait();
            } else if (Thread.currentThread().isInterrupted()) {
                // shutdownNow (or shutdown, for an idle worker) interrupted us: the wait below
                // sees it at once. Yielding on instead cost up to 16 time slices when the CPUs
                // were busy: terminating an idle pool took 11.5 ms at p90 instead of 0.9 ms.
                break;
            } else {
                Thread.yield();
            }
            r = findWork(s, (i & 7) == 0 || i > SPINS);
            if (r != null) {
                // Volatile (not release): leaving the wait must be visible before start() looks
                // at our queue again. A submitter that pushed while it still read SEARCHING woke
                // no thief; start() then sees that push and wakes one itself (Dekker: StoreLoad).
                s.waitState = WorkerSlot.RUNNING;
                if (s.parkStreak != 0) {
                    s.parkStreak = 0; // work came back within the wait: keep waiting for it
                }
                return start(s, r);
            }
        }
        if (s.parkStreak < PARKS_BEFORE_SKIPPING_YIELDS) {
            s.parkStreak++;
        }
        // Off the hot path: this wait is about to park, which costs microseconds anyway.
        long idleSinceNanos = System.nanoTime();
        long deadline = timed ? idleSinceNanos + nanos : 0L;
        try {
            return parkForWork(s, timed, deadline, idleSinceNanos);
        } catch (Throwable t) {
            // Leaving by an exception (a retirement, an interrupt, a failure): never with a
            // wake unconsumed, or the count of wakes in flight would stay up and submitters
            // would leave parked workers asleep for good; never PARKED, where a waker could
            // still spend a wake on us. Only while the slot is still ours: a retiree released
            // it before it threw, and a new thread may have adopted it and parked there since
            // (writing RUNNING over that would hide it from every waker). Passed on whether or
            // not a wake is consumed here: one consumed earlier (passOn) is lost with the frame.
            if (s.thread == Thread.currentThread()) {
                leaveParked(s);
                passWakeOn(s);
            }
            throw t;
        }
    }

    /**
     * The queuing wait's parking part, after the spins and yields found nothing: announce
     * PARKED, look once more, park; until a task is found, the wait times out, the pool shuts
     * down, or this worker retires.
     */
    private Runnable parkForWork(WorkerSlot s, boolean timed, long deadline, long idleSinceNanos)
            throws InterruptedException {
        Runnable r;
        // A wake was spent on us since our last look: after the next look, pass one on if work
        // is left (passWakeOn), since submitters left other parked workers asleep meanwhile.
        boolean passOn = false;
        for (;;) {
            // Woken in the park below (or just before it): the wake ends here, before we look.
            // Not PARKED while we retire or run a class pass below either: a wake spent on us
            // then would stay counted through the pass and hold off submitters' wakes. On the
            // first turn we are still SEARCHING from the spins, which no waker writes and for
            // which a submitter wakes no thief (RUNNING would), so that stays as it is.
            int ws = s.waitState;
            if (ws == WorkerSlot.PARKED || ws == WorkerSlot.WOKEN) {
                passOn |= leaveParked(s);
            }
            if (retireDue(s)) {
                passOn |= leaveParked(s); // SEARCHING too: a retiree leaves the wait RUNNING
                if (passOn) {
                    passOn = false;
                    passWakeOn(s); // we take nothing now: the work is another's
                }
                tryRetire(s); // woken because the retirement turn came free, or recycled while idle
            }
            scheduleWaitingClassTasks(); // about to park idle while tasks wait in their classes: look again
            // Volatile write, then the re-check below reads the queues' producer indices: a
            // submitter CASes a producer index, then reads our waitState or parkedCount; in
            // the one total order of these operations, one side always sees the other. A plain
            // store is safe: we are RUNNING or SEARCHING since the loop's top, and wakers only
            // CAS from PARKED, so no WOKEN can be erased by it.
            s.waitState = WorkerSlot.PARKED;
            parkedCount.incrementAndGet();
            try {
                r = findWork(s, true);
                if (r == null && retireDue(s) && retireTurn.get() == NO_RETIREMENT) {
                    // The turn came free while we got ready to park. Volatile write of PARKED,
                    // then this read; passRetirementTurn (in WorkerLifetimes) frees the turn, then
                    // reads PARKED to wake us: one side sees the other, so a draining worker never
                    // sleeps past its turn. (The finally ends our parked count; the loop's top
                    // retires us.)
                    continue;
                }
                if (r != null) {
                    // A submitter may have seen us PARKED and spent its one wake-up on us,
                    // meant for a task we may not be taking (we found this one ourselves): it
                    // is passed on if work is left, or a truly parked worker could sleep next
                    // to a waiting task.
                    if (leaveParked(s) || passOn) {
                        passOn = false;
                        passWakeOn(s);
                    }
                    long foundNanos = System.nanoTime();
                    if (foundNanos - idleSinceNanos < SHORT_IDLE_NANOS && s.parkStreak != 0) {
                        s.parkStreak = 0; // work came back soon: the yields would have caught it
                    }
                    return start(s, r, foundNanos);
                }
                if (passOn) {
                    passOn = false;
                    passWakeOn(s); // looked and found nothing: normally nothing is left either
                }
                if (Thread.interrupted()) {
                    leaveWait(s);
                    throw new InterruptedException();
                }
                // A worker that died unreported still counts what it held (a class task, a
                // stopped task on its way back) until an idle worker reaps it, before every park,
                // shut down or not: otherwise isEmpty() could stay false and the pool never terminate.
                boolean rescan = !workerExitsReported;
                if (rescan) {
                    reapDeadWorkers();
                }
                // Idle with a replaced queue: look at it again after a while (findWork at the
                // top of this loop), since nothing signals a task put there.
                long parkNanos = rescan ? RESCAN_NANOS : 0L;
                long look = replacedLookNanos();
                if (look != 0L) {
                    parkNanos = parkNanos == 0L ? look : Math.min(parkNanos, look);
                }
                if (ownerShutDown) {
                    // After shutdown: a short wait, then null, so the executor re-checks its state
                    // (it ends the worker once the queue is empty, or asks again).
                    LockSupport.parkNanos(this, SHUTDOWN_RECHECK_NANOS);
                    boolean woken = consumeWake(s);
                    r = findWork(s, true);
                    if (r != null) {
                        if (leaveParked(s) || woken) {
                            passWakeOn(s);
                        }
                        return start(s, r);
                    }
                    if (woken) {
                        passWakeOn(s);
                    }
                    leaveWait(s);
                    if (Thread.interrupted()) {
                        throw new InterruptedException();
                    }
                    return null;
                }
                if (timed) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        leaveWait(s);
                        return null;
                    }
                    LockSupport.parkNanos(this, parkNanos != 0L ? Math.min(left, parkNanos) : left);
                } else if (parkNanos != 0L) {
                    LockSupport.parkNanos(this, parkNanos);
                } else {
                    LockSupport.park(this);
                }
            } finally {
                parkedCount.decrementAndGet();
            }
        }
    }

    /**
     * Owner: how many yields this queuing wait makes before it parks. {@link #YIELDS} while work
     * has recently come back within a wait; after {@link #PARKS_BEFORE_SKIPPING_YIELDS} waits in a
     * row that parked anyway (for longer than {@link #SHORT_IDLE_NANOS}), none, but for one wait
     * in {@link #YIELD_PROBE_EVERY}. The spins stay: a few hundred nanoseconds, and they catch a
     * submitter's next task in a burst. A hand-off wait asks the same to decide whether it may
     * spin long ({@link #HAND_OFF_LONG_SPINS}) instead of yielding.
     */
    static int yieldsBeforePark(WorkerSlot s) {
        if (s.parkStreak < PARKS_BEFORE_SKIPPING_YIELDS) {
            return YIELDS;
        }
        return (++s.skippedYieldWaits & (YIELD_PROBE_EVERY - 1)) == 0 ? YIELDS : 0;
    }

    /** A hand-off worker between tasks: {@link HandOffMode#awaitHandOff}. */
    private Runnable awaitHandOff(WorkerSlot s, boolean timed, long nanos) throws InterruptedException {
        return handOffMode.awaitHandOff(s, timed, nanos);
    }

    /**
     * The wait loop's exit without a task (interrupted, timed out, or shut down): the worker
     * leaves the wait and detaches. A submitter may have spent its one wake-up on us after our
     * last look for work (it pushed, then found us PARKED and marked us WOKEN): that wake-up was
     * for a task we are not taking (one in the shared queue, or behind a busy worker), so it is
     * passed on if work is left, as on the found-work path. Queuing mode only.
     */
    private void leaveWait(WorkerSlot s) {
        boolean woken = leaveParked(s);
        workerRegistry.detach(s);
        if (woken) {
            passWakeOn(s);
        }
    }

    /** Between two tasks of a worker: {@link WorkerLifetimes#betweenTasks} (may retire it). */
    void betweenTasks(WorkerSlot s, int flags) {
        lifetimes.betweenTasks(s, flags);
    }

    /**
     * Whether the owner has used up its lifetime or was asked to recycle. Also after the owner's
     * {@code shutdown()} in the queuing modes: ThreadPoolExecutor still replaces a worker that
     * ends while the queue holds tasks, so a shut-down pool keeps renewing its threads while it
     * drains a backlog, and the lifetime bound holds to its last task. (Once the queue is empty
     * no replacement comes, and the housekeeper frees the retirement turn; the workers waiting
     * for it take nothing meanwhile, and end like any idle worker of a shut-down pool: the
     * queuing wait returns null within {@code SHUTDOWN_RECHECK_NANOS} once the owner is shut
     * down.) Not in hand-off mode, which has no backlog to drain, and whose wait for the turn
     * ends only by retiring: there, after shutdown, a due worker ends as an idle one does, on the
     * executor's interrupt, instead of retiring one at a time. And never the last worker of a
     * shut-down pool: its replacement may never come (a thread factory at its limit, no native
     * thread left), and with no submit to start another, the backlog would stay queued with no
     * worker for good. A worker is not the last while another owns a slot, or while another is
     * retiring or its replacement is on its way (it then waits for its turn, taking nothing; if
     * the replacement never comes, the housekeeper frees the turn and it drains the backlog past
     * its lifetime).
     * So a single-worker pool stops retiring at its shutdown.
     */
    boolean retireDue(WorkerSlot s) {
        int limit = lifetimeLimit;
        return ((limit > 0 && s.started >= limit) || (s.flags & WorkerSlot.RECYCLE) != 0)
                && retirementSupported
                && !lifetimes.replacementMissing // read only by a worker due: recycling waits too
                && (!ownerShutDown || (capacityMode != Capacity.HAND_OFF
                        && (retireTurn.get() != NO_RETIREMENT || anotherWorkerOwnsASlot(s))));
    }

    /**
     * Slots a worker thread owns now: it attached (on its first take) and has not left for good
     * (a free slot is what {@link #workers()} reports as {@code RETIRED}). Cold: construction asks.
     */
    int ownedSlots() {
        int n = 0;
        for (WorkerSlot o : slots) {
            if (o.state != WorkerSlot.FREE) {
                n++;
            }
        }
        return n;
    }

    /**
     * Whether a worker other than {@code s} owns a slot, attached or detached; cold (a due worker
     * of a shut-down pool asks). Detached counts: after shutdown an idle worker detaches each time
     * its wait returns null and attaches again at its next take, so a partner descheduled in
     * between looked absent, and the asking worker ran on as if last (a probe on JDK 25: 652
     * tasks on one thread of lifetime 50, once in 300 rounds). While the queue holds tasks
     * ThreadPoolExecutor ends a detached core worker only if another remains, so the backlog is
     * not stranded.
     */
    private boolean anotherWorkerOwnsASlot(WorkerSlot s) {
        for (WorkerSlot o : slots) {
            if (o != s && o.state != WorkerSlot.FREE) {
                return true;
            }
        }
        return false;
    }

    /** Retires the calling worker if it is its turn: {@link WorkerLifetimes#tryRetire}. */
    void tryRetire(WorkerSlot s) {
        lifetimes.tryRetire(s);
    }

    /** Hand-off workers holding a long-spin place now (for tests). */
    int handOffLongSpinnerCount() {
        return handOffMode.longSpinnerCount();
    }

    /** Workers parked or about to park (for tests). */
    int parkedWorkerCount() {
        return parkedCount.get();
    }

    /** Whether a retiree has left and its replacement has not yet registered (for tests). */
    boolean awaitingReplacement() {
        return retireTurn.get() == AWAITING_REPLACEMENT;
    }

    /**
     * Housekeeping, every {@value Housekeeper#TICK_MILLIS} ms: the slots of threads that ended
     * unreported, a hand-off pool's idle workers to spare ({@link HandOffMode#housekeep}), then
     * {@link WorkerLifetimes#housekeep}.
     */
    boolean housekeep() {
        if (!workerExitsReported) {
            // Threads that ended without telling us (a plain executor's: a keep-alive ran out)
            // give their slots back here too, not only when the next thread registers or an
            // idle queuing worker parks: a hand-off pool's idle workers never reap, and the
            // strategies' view ends past the highest slot still held (slotBound).
            reapDeadWorkers();
        }
        if (capacityMode == Capacity.HAND_OFF) {
            handOffMode.housekeep(ticker.nanoTime());
        }
        return lifetimes.housekeep();
    }

    /**
     * Own queue, then the shared queue, then (when {@code scanOthers}) the busiest other worker:
     * any of them with stealing on, only those whose owner left or died with it off.
     */
    private Runnable findWork(WorkerSlot self, boolean scanOthers) {
        if ((lifetimeLimit > 0 || self.flags != 0) && retireDue(self)) {
            return null; // draining: takes nothing new, waits for its turn to retire
        }
        Runnable r;
        if (replaced != null) {
            // Every REPLACED_LOOK_EVERY-th task first (started is this worker's own count), else
            // only when there is nothing else: scanOthers is false only on the spins between.
            boolean due = (self.started & (REPLACED_LOOK_EVERY - 1)) == REPLACED_LOOK_EVERY - 1;
            if (due && (r = fromReplaced(self)) != null) {
                return r;
            }
            r = findEngineWork(self, scanOthers);
            return r != null || !scanOthers || due ? r : fromReplaced(self);
        }
        return findEngineWork(self, scanOthers);
    }

    /** {@link #findWork} in the engine's own queues. */
    private Runnable findEngineWork(WorkerSlot self, boolean scanOthers) {
        // Without a concurrency limit (the default) this one int read is all the limit costs here.
        int limit = maxConcurrentTasks;
        if (limit > 0) {
            return findWorkWithinLimit(self, scanOthers, limit);
        }
        Runnable r;
        // A new owner first takes what the shared queue held when it attached: a leaving
        // worker's tasks (at its front), or tasks that found no worker, all older than anything
        // pushed to this slot since (a submitter that chose the slot before its owner left may
        // push to it after this owner attached).
        if (self.sharedFirstTakes > 0) {
            if (sharedCount.get() > 0 && (r = claimShared(self)) != null) {
                self.sharedFirstTakes--;
                return takenFromShared(r);
            }
            self.sharedFirstTakes = 0;
        }
        // Then the worker's own queue, then the shared queue. While the shared queue holds
        // tasks, new ones join it rather than a worker's queue (dispatch), so what is on a
        // worker's queue is older than what is in the shared queue: a queue that overflowed
        // into it, tasks that found no worker attached, or a leaving worker's queue moved there
        // (its slot is FREE before the move, and a new worker attaches only after it, under the
        // registration lock, so tasks submitted meanwhile join the shared queue behind them).
        // The shared queue first, as before, ran a single worker's overflow before the older
        // tasks on its own queue, and those waited for as long as submissions kept coming.
        if (!self.queue.isEmpty() && (r = claim(self, self.queue)) != null) {
            return r;
        }
        if (sharedCount.get() > 0 && (r = claimShared(self)) != null) {
            return takenFromShared(r);
        }
        return scanOthers ? stealFromBusiest(self, 0) : null;
    }

    /**
     * {@link #claim} from the shared queue, counting the task there no longer. The shared count
     * lags the take, so {@code size()} counts the task for that instant though a worker holds it
     * (never the other way round); a drain waits such takes out ({@link WaitingTasks#drainTo}):
     * once {@code shutdownNow()}'s drain has returned, {@code isEmpty()} holds, as with a plain
     * queue. Announced before the poll and ended after the count: a drain that reads none under
     * way has seen every taken task's count go.
     */
    Runnable claimShared(WorkerSlot self) {
        // Announced on the claimer's own slot (a drain reads every slot's), not on one counter
        // every claimer shares: all of a burst's overflow passes here. A plain store suffices:
        // the poll's CAS that takes the task is a release of everything before it, and a drain
        // that finds the shared queue without this task has read that CAS (or a later one of
        // the queue's), so it reads this 1, or the 0 that ends this claim. (A volatile store
        // would add a full fence per task taken, on the path this is here to make cheap.)
        self.beginClaimingShared();
        try {
            Runnable r = claim(self, shared);
            if (r != null) {
                sharedCount.decrementAndGet();
            }
            return r;
        } finally {
            // Release: a drain that reads 0 also sees the decrement before it.
            self.endClaimingShared();
        }
    }

    /** Lets another worker come for the rest of the shared queue, after {@link #claimShared} took one. */
    Runnable takenFromShared(Runnable r) {
        if (sharedCount.get() > 0) {
            wakeAnotherIfWorkRemains();
        }
        return r;
    }

    /** The rest of {@link #findWork} after the shared queue: the worker's own queue, then a steal. */
    private Runnable ownQueueThenSteal(WorkerSlot self, boolean scanOthers, int limit) {
        Runnable r;
        if (!self.queue.isEmpty() && (r = claim(self, self.queue)) != null) {
            return r;
        }
        return scanOthers ? stealFromBusiest(self, limit) : null;
    }

    /**
     * {@link #findWork} with {@code max-concurrent-tasks} = {@code limit > 0}: the shared queue,
     * the worker's own queue, the busiest other worker (with a limit, submits do not join the
     * shared queue just because it holds tasks, so the default path's order does not apply;
     * except for a single worker, which keeps its order as without the limit), and a task from
     * outside its own queue is taken only into a place the worker holds on itself
     * ({@link #reserveOwnPlace}): a submitter may have counted it idle a moment ago and be
     * filling its queue to the limit. Refused a place, the worker serves its own queue, which is
     * what holds its places (or is about to).
     *
     * <p>Each pass either returns or ends in a claim that found its queue emptied by another
     * worker, which took the task: each repeat is some other worker's progress, as in
     * {@link #stealFromBusiest}.
     */
    private Runnable findWorkWithinLimit(WorkerSlot self, boolean scanOthers, int limit) {
        for (;;) {
            Runnable r;
            if (sharedCount.get() > 0) {
                // A single worker keeps submission order: submits join the shared queue while it
                // holds tasks (dispatch), so its own queue holds the older ones, served first as
                // without the limit; except a new owner's first takes (sharedFirstTakes: a
                // leaving worker's tasks), as there. Read only while the shared queue is in use.
                if (self.sharedFirstTakes <= 0 && ownerKeepsSingleWorkerOrder()
                        && !self.queue.isEmpty() && (r = claim(self, self.queue)) != null) {
                    return r;
                }
                if (!reserveOwnPlace(self, limit)) {
                    if ((r = claim(self, self.queue)) != null) {
                        return r;
                    }
                    continue; // a thief emptied our queue first: look again
                }
                r = claimShared(self);
                self.endReservation(); // after the claim: see WorkerSlot.endReservation
                if (r != null) {
                    if (self.sharedFirstTakes > 0) {
                        self.sharedFirstTakes--;
                    }
                    return takenFromShared(r);
                }
            }
            self.sharedFirstTakes = 0; // nothing (left) in the shared queue for them
            return ownQueueThenSteal(self, scanOthers, limit);
        }
    }

    /**
     * {@code max-concurrent-tasks} = {@code limit > 0}, on a worker about to take a task from
     * outside its own queue (the shared queue, or another worker's): holds a place on itself,
     * reserved as a submitter reserves one ({@link WorkerSlot#tryReserve}), and returns true; the
     * caller then claims the task, which raises {@code running}, and only then ends the
     * reservation ({@link WorkerSlot#endReservation}), so that no submitter sees a free place in
     * between. Returns false, holding nothing, when refused while its own queue holds a task:
     * the caller serves that instead. A worker whose place is refused takes nothing from
     * elsewhere: submitters are filling its queue, and one more task would put it over.
     *
     * <p>Refused with its own queue empty, it waits here for a place rather than return empty-
     * handed. {@code running} is 0 whenever {@code findWork} runs (the worker is between tasks),
     * so other threads hold at least {@code limit} places on it this instant (or a thief took
     * what the count saw queued, and the next try succeeds). Each of those places resolves
     * within a few of its own instructions: a submitter (or a removal putting tasks back) that
     * got its place pushes and ends it, and the task is then in our queue, which we serve; one
     * that was refused, which counted itself before it compared, gives its increment back and
     * pushes nothing. Returning null instead would be safe for the first kind: its push comes
     * after our refusal and then it calls {@link #signalPushed} (full fence, then our
     * {@code waitState}); a worker that parks writes {@code PARKED} and counts itself parked
     * before its last {@code findWork}, so either that look sees the push or the submitter sees
     * {@code PARKED} and unparks it (the Dekker pair the wait loop describes at its park).
     * It would not be safe for the second kind, which signals nobody: a worker that parked on
     * its account would sleep beside the shared or stolen task whose one wake-up
     * ({@link #toShared}'s or {@link #signalPushed}'s {@code wakeOneParked}) it had already
     * spent. So a refusal never makes {@code findWork} return null, and the park path sees what
     * it saw without the limit. (A submitter preempted while it holds a place costs us yields
     * until it runs again, as a hand-off worker waits for the submitter that reserved it.)
     *
     * <p>Memory ordering: the reservation is {@link WorkerSlot#tryReserve}'s, whose argument
     * covers this reserver too (its volatile increment sees every place held and every push
     * whose reservation ended before it). {@code running} is raised by {@link #claim} with a
     * release store before the volatile decrement that ends the reservation; a submitter whose
     * increment follows that decrement synchronizes-with it and so reads {@code running} as
     * raised (or a later value, once this task has ended); one whose increment precedes it
     * counts our place instead. Either way the task is counted, at worst twice for an instant.
     * A claim that finds nothing lowers {@code running} itself, before the reservation ends: a
     * submitter between the two counts our place, one after it neither; in the other order one
     * could count a task that is not there and be refused for nothing (safe, but needless). The
     * wait loop below reads {@code queue} and {@code reserving} (volatile) only as hints of when
     * to try again: what decides is {@code tryReserve}.
     */
    private static boolean reserveOwnPlace(WorkerSlot self, int limit) {
        int spins = 0;
        while (!self.tryReserve(limit)) {
            if (!self.queue.isEmpty()) {
                return false;
            }
            // Others hold every place and none has pushed yet: wait until one does, or until
            // enough of them give theirs back that trying again can succeed (trying at every spin
            // would hold a place now and then, and refuse submitters needlessly).
            do {
                if (spins++ < SPINS) {
                    Thread.onSpinWait();
                } else {
                    Thread.yield();
                }
            } while (self.queue.isEmpty() && self.reserving >= limit);
        }
        return true;
    }

    /**
     * A task the application put into the queue this one replaced, taken for {@code self} as a
     * stolen one is (with {@code max-concurrent-tasks}, into a place it holds on itself), wrapped
     * so that {@link #start} gives back no place of ours: it never held one. Null when there is
     * none, or no place.
     */
    Runnable fromReplaced(WorkerSlot self) {
        if (!replacedHandsOff && replaced.isEmpty()) {
            // The usual answer, without claim()'s two writes of running, which every submitter
            // reads (a LinkedBlockingQueue answers from one counter, without its lock).
            return null;
        }
        int limit = maxConcurrentTasks;
        Runnable r;
        if (limit <= 0) {
            r = claim(self, replaced);
        } else if (reserveOwnPlace(self, limit)) {
            r = claim(self, replaced);
            self.endReservation(); // after the claim: see WorkerSlot.endReservation
        } else {
            return null; // our own queue holds our places: the caller serves it next time
        }
        if (r == null) {
            return null;
        }
        if (!replacedInUse) {
            replacedInUse = true;
        }
        return new ReplacedQueueTask(r);
    }

    /** A task taken from the replaced queue: {@link #start} unwraps it and gives back no place. */
    private static final class ReplacedQueueTask implements Runnable {
        final Runnable task;

        ReplacedQueueTask(Runnable task) {
            this.task = task;
        }

        @Override
        public void run() {
            task.run(); // never called: start() unwraps it
        }
    }

    /**
     * Takes one task from {@code from} for {@code self}, raising {@code self.running} first and
     * lowering it again only if nothing was there. So {@code queued + running}, what LEAST_USED
     * and the thieves read, never dips while a task moves from a queue to its worker: a
     * submitter never mistakes a worker that just took a task for an idle one, and a thief
     * never mistakes it for an owner about to serve its own queue. (For an instant the task
     * counts twice, which at worst sends the next task elsewhere.)
     */
    private static Runnable claim(WorkerSlot self, java.util.Queue<Runnable> from) {
        self.setRunning(1);
        Runnable r = from.poll();
        if (r == null) {
            self.setRunning(0);
        }
        return r;
    }

    /**
     * Takes one task from the other worker with the most queued (any with stealing on, only
     * orphaned ones with it off). With {@code max-concurrent-tasks} = {@code limit > 0} the
     * thief first holds a place on itself, as for the shared queue ({@link #reserveOwnPlace}),
     * and refused one serves its own queue instead.
     */
    private Runnable stealFromBusiest(WorkerSlot self, int limit) {
        boolean stealing = taskStealing;
        WorkerSlot[] ss = slots;
        // A miss means another worker took that task first; look again rather than park while
        // work is still visible elsewhere. Bounded: each miss is some other worker's success.
        for (int attempt = 0; attempt <= ss.length; attempt++) {
            WorkerSlot victim = null;
            int most = 0;
            for (WorkerSlot o : ss) {
                if (o == self) {
                    continue;
                }
                int q = o.queue.size();
                // Any visible task, whatever its owner is doing: a thief that declined a task it
                // can see (because the owner looked idle, say) would need a third party to wake it
                // again later, and that is a race. Taking one a just-woken owner was about to run
                // costs a moment: the owner, idle now, steals back what then queues behind us.
                if (q > most && (stealing || isOrphaned(o))) {
                    most = q;
                    victim = o;
                }
            }
            if (victim == null) {
                return null;
            }
            Runnable r;
            if (limit <= 0) {
                r = claim(self, victim.queue);
            } else if (reserveOwnPlace(self, limit)) {
                r = claim(self, victim.queue);
                self.endReservation(); // after the claim: see WorkerSlot.endReservation
            } else {
                if ((r = claim(self, self.queue)) != null) {
                    return r; // our own queue holds our places: serve it, not the victim's
                }
                continue; // a thief emptied our queue first: a miss like any other
            }
            if (r != null) {
                if (!victim.queue.isEmpty()) {
                    wakeAnotherIfWorkRemains(); // more stuck there: let the next idle worker come too
                }
                return r;
            }
        }
        return null;
    }

    /**
     * Cascading wake-up: one wake per pushed task is not enough when several tasks pile up
     * behind a busy worker while others sleep (a submitter that saw the owner searching woke
     * nobody). So each worker that takes a task from a queue that still holds more wakes one
     * more parked worker. Callers have already seen the remaining work, and only then read the
     * parked count: a worker that missed that work had counted itself before it looked.
     */
    private void wakeAnotherIfWorkRemains() {
        if (taskStealing && parkedCount.get() > 0) {
            wakeOneParked();
        }
    }

    /** A slot whose tasks nobody will take unless another worker does. */
    private static boolean isOrphaned(WorkerSlot o) {
        if (o.state != WorkerSlot.ATTACHED) {
            return true;
        }
        Thread t = o.thread;
        return t != null && !t.isAlive();
    }

    Runnable start(WorkerSlot s, Runnable element) {
        return start(s, element, 0L);
    }

    /** @param nowNanos a fresh {@code System.nanoTime()}, or 0 to read the clock if needed */
    private Runnable start(WorkerSlot s, Runnable element, long nowNanos) {
        if (element instanceof ReplacedQueueTask) {
            element = ((ReplacedQueueTask) element).task; // held no place of ours
        } else {
            releasePermit();
        }
        long offeredNanos = 0;
        if (element instanceof ClassedTask) {
            ClassedTask ct = (ClassedTask) element;
            // A clock read per classed task (and one as it ends, ClassEndings): the worker time
            // its class used, which shares a split worker between the classes.
            ct.markTaken(ticker.nanoTime());
            s.runningClassTask = ct;
            element = ct.element;
        }
        Runnable task = element;
        if (element instanceof TimedTask) {
            TimedTask t = (TimedTask) element;
            offeredNanos = t.offeredNanos;
            task = t.task;
        }
        statistics.taskStarted(s, offeredNanos, nowNanos);
        s.incrementStarted();
        if (s.running != 1) {
            // claim() has normally raised it already, and storing the same value again would
            // still invalidate the line every submitter reads (WorkerSlotHotFields).
            s.setRunning(1);
        }
        // Tasks pushed while we were idle woke no thief (the submitter saw us waiting); now that
        // we are busy they are stuck behind this one unless an idle worker comes for them.
        // Queue first, then the parked count: a thief that missed a push had counted itself
        // before it looked at our queue, and the push came after that look, so reading the
        // count after seeing the push is certain to see the thief (read in the other order,
        // the count could predate it and the thief would sleep beside the task).
        if (taskStealing && !s.queue.isEmpty() && parkedCount.get() > 0) {
            wakeOneParked();
        }
        return task;
    }

    /** Ends the task the worker was running, if any; returns the clock read it took, or 0. */
    long finishRunning(WorkerSlot s) {
        if (s.running == 0) {
            return 0L;
        }
        long endNanos = statistics.taskFinished(s);
        s.incrementCompleted();
        s.setRunning(0);
        Object ct = s.runningClassTask;
        if (ct != null) {
            classes.finished(s, (ClassedTask) ct);
        }
        return endNanos;
    }

    private WorkerSlot attachCurrent() {
        Thread me = Thread.currentThread();
        WorkerSlot s = currentSlot.get();
        if (s != null && s.thread == me) {
            if (s.state == WorkerSlot.ATTACHED || s.casState(WorkerSlot.DETACHED, WorkerSlot.ATTACHED)) {
                return s;
            }
        }
        return register(me);
    }

    /** A thread without an attached slot takes one: {@link WorkerRegistry#register}. */
    private WorkerSlot register(Thread me) {
        return workerRegistry.register(me);
    }

    /** Frees the slots of workers that died unreported: {@link WorkerRegistry#reapDeadWorkers}. */
    private void reapDeadWorkers() {
        workerRegistry.reapDeadWorkers();
    }

    /**
     * Tells the engine that the calling thread, a new worker of the executor, is about to run
     * {@code firstTask}, the task ThreadPoolExecutor created it with ({@code addWorker} with a
     * first task: below the core size, or growing past it when the queue is full), which never
     * passed through this queue. The thread is attached as a worker running that task, so that
     * it shows in {@link #workers()} and JMX, its heartbeat is watched (a first task that hangs
     * is reported STUCK) and it can be recycled, as for any later task. Without this call the
     * thread joins when it first asks the queue for a task: a pool of long-lived first tasks
     * (consumer loops on {@code newFixedThreadPool(n)}) showed no workers at all. Called by the
     * agent's advice at the start of {@code ThreadPoolExecutor.runWorker}; an executor of your
     * own may call it from {@code beforeExecute} while the thread has no task of the queue's.
     * A no-op for a null task or a thread already attached. On a hand-off queue every new
     * thread of a cached pool starts this way; attached {@code RUNNING}, it is no hand-off
     * target until its wait begins, as for a thread that took its task from the queue.
     */
    public void workerStarting(Runnable firstTask) {
        if (firstTask == null) {
            return;
        }
        Thread me = Thread.currentThread();
        WorkerSlot s = currentSlot.get();
        if (s != null && s.thread == me) {
            return; // already a worker here: its task came through the queue, or it was told already
        }
        s = workerRegistry.register(me, true); // published running, flagged FIRST_TASK
        // As start() does for a task it claimed, without the permit (the task held none) and
        // without an offer time (it was never queued): counted, timed from now.
        statistics.taskStarted(s, 0L, 0L);
        s.incrementStarted();
        if (!s.queue.isEmpty()) {
            // Tasks on the slot it adopted (its last owner died unreported, or a submitter pushed
            // as the slot changed hands): to the other workers, not behind a first task that may
            // never end. As a detaching owner hands on its queue.
            workerRegistry.handOnQueued(s);
        }
    }

    /**
     * Tells the engine that the calling worker thread is leaving the pool for good (its worker
     * loop ended, or its task threw and it is about to die). Its queue is handed to the other
     * workers and its slot freed for the next thread. Called by {@link TurntableExecutor} (from
     * {@code afterExecute} and its thread wrapper) and by the agent's advice; a no-op on a thread
     * that is not (or no longer) a worker of this queue.
     */
    public void workerExiting() {
        workerRegistry.workerExiting();
    }

    // ------------------------------------------------------------------ collection side
    // (the bodies are WaitingTasks')

    /**
     * Takes one waiting task for a caller that is not a worker (ThreadPoolExecutor's
     * {@code DiscardOldestPolicy} calls this): the head of the longest worker queue, or of the
     * shared queue while that one runs first ({@link WaitingTasks#sharedRunsFirst}) or no worker queue holds
     * a task. Per-worker queues keep no global arrival order (that would
     * cost a shared counter or a stamp per task on the submit path), so across workers this is
     * the oldest task of the most backed-up worker, not necessarily the oldest overall; with a
     * single worker it is exact.
     */
    @Override
    public Runnable poll() {
        Runnable r = waitingTasks.poll();
        if (r != null) {
            takenOutUnrun();
        }
        return r;
    }

    @Override
    public Runnable peek() {
        return waitingTasks.peek();
    }

    /**
     * Tasks waiting: in worker queues, the shared queue and (with classes) their jobs, plus
     * restartable tasks that rebalancing stopped whose workers have not yet come back (they wait
     * again in a moment; see {@link #ownerStopping(boolean)}), and the tasks in the queue this one
     * replaced ({@link TurntableQueueBuilder#replacing}). So {@code size()} can be above zero while
     * {@code poll()} finds nothing: a pool that is shutting down keeps a worker for such a task.
     * A task moving between queues is counted, at times twice for an instant, never not at all.
     *
     * <p>A hand-off queue with an owner ({@link #setOwner}) also counts the tasks of submitters
     * waiting in {@code put} or a timed {@code offer} for a worker, where a
     * {@code SynchronousQueue} reads 0: so a pool shut down
     * while one waits keeps a worker until that task is taken (the put then returns and the task
     * runs), where a {@code SynchronousQueue} pool lets its workers go and the put waits for
     * ever. Such a task is not in {@code iterator()}, {@code toArray()} or {@code peek()},
     * nor can {@code remove} take it (its submitter still holds it); {@code poll} and
     * {@code drainTo} take it, as a {@code SynchronousQueue}'s do.
     */
    @Override
    public int size() {
        return waitingTasks.size();
    }

    @Override
    public boolean isEmpty() {
        return size() == 0;
    }

    @Override
    public int drainTo(Collection<? super Runnable> c) {
        return drainTo(c, Integer.MAX_VALUE);
    }

    @Override
    public int drainTo(Collection<? super Runnable> c, int maxElements) {
        int n = waitingTasks.drainTo(c, maxElements);
        if (n > 0) {
            takenOutUnrun();
        }
        return n;
    }

    /**
     * Removes one waiting task equal to {@code o}. A task in a worker's queue is removed by
     * claiming that queue's elements one by one and putting the others back behind any offered
     * meanwhile (removal is rare: {@code ThreadPoolExecutor.remove} and {@code purge}).
     */
    @Override
    public boolean remove(Object o) {
        boolean removed = waitingTasks.remove(o);
        if (removed) {
            takenOutUnrun();
        }
        return removed;
    }

    /**
     * Tasks were taken out unrun (a foreign {@code poll}, {@code drainTo}, {@code remove}): a
     * started class task among them held a place of its class, free now, which a waiting task of
     * a class may take, but nothing else would start one before the next offer, task end or
     * housekeeping tick (up to 100 ms). So a pass runs here ({@link ClassScheduler#schedule}),
     * as after an offer: on the caller's thread, never blocking, with every move of the caller's
     * own ended (a removal's claims are over). Not once {@code shutdownNow()} has begun: its
     * drain runs under the executor's main lock and returns what waits rather than start it.
     */
    private void takenOutUnrun() {
        if (!ownerStopping) {
            scheduleWaitingClassTasks();
        }
    }

    /**
     * Runs a class pass ({@link ClassScheduler#schedule}, never blocking) if tasks wait in their
     * classes: for an idle worker, before it parks, after tasks were taken out unrun, and on the
     * housekeeper's tick. Any thread.
     */
    void scheduleWaitingClassTasks() {
        ClassScheduler cs = classes;
        if (cs != null && cs.hasWaiting()) {
            cs.schedule();
        }
    }

    @Override
    public Object[] toArray() {
        return waitingTasks.snapshot().toArray();
    }

    @Override
    public <T> T[] toArray(T[] a) {
        return waitingTasks.snapshot().toArray(a);
    }

    /**
     * A weakly consistent iterator over a snapshot of the waiting tasks; its {@code remove}
     * removes that task from the queue if it is still waiting.
     */
    @Override
    public Iterator<Runnable> iterator() {
        return waitingTasks.iterator();
    }

    @Override
    public String toString() {
        // The waiting tasks, as every JDK queue (and AbstractCollection) prints itself: an
        // application that logs its pool's backlog sees the same under the agent. Strategy,
        // capacity and workers are the MBean's to show.
        return super.toString();
    }

    /**
     * An AtomicInteger followed by 128 bytes of padding (a pair of lines, as Intel's spatial
     * prefetcher fetches them), so the next allocation cannot share its line.
     */
    @SuppressWarnings("serial")
    private static final class PaddedAtomicInteger extends AtomicInteger {
        long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p0a, p0b, p0c, p0d, p0e, p0f;
    }
}
