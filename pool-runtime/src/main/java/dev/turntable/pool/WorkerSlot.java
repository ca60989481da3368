package dev.turntable.pool;

import dev.turntable.pool.stats.ResidualTimeTable;
import dev.turntable.pool.stats.TaskTimeWindow;
import dev.turntable.pool.strategy.WorkerView;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import org.jctools.queues.atomic.MpmcAtomicArrayQueue;

/**
 * One worker position of a {@link TurntableQueue}: the worker's own task queue, the thread that
 * currently owns it, its wait state and its statistics.
 *
 * <p>The queue is JCTools' {@code MpmcAtomicArrayQueue}, the variant built on atomic field
 * updaters: the {@code Unsafe}-based one makes JDK 24+ print a deprecation warning inside the
 * host application as soon as a pool starts, which an agent must never do.
 *
 * <p>Threads: the owner thread is the single writer of every counter and statistic below (it
 * publishes them with release stores); submitting threads read them with plain volatile or
 * acquire loads while choosing a worker, and push tasks into {@link #queue}; idle workers of the
 * same pool poll {@link #queue} too (task stealing), which is why it is multi-consumer.
 * Slots are never removed from a pool: a slot whose thread left is {@link #FREE} and is reused
 * by the next thread, so worker indices stay small and stable.
 *
 * <p>Why this file is long (over 600 lines, most of them comments): the slot is one object laid
 * out as a chain of superclasses, one per group of fields that one kind of thread writes, with
 * padding between them (see the layout notes below the class). The groups, their padding and the
 * rules for who may write what belong together, and are read together.
 */
final class WorkerSlot extends WorkerSlotPad6 {

    /** No thread owns this slot. */
    static final int FREE = 0;
    /** A live worker thread owns this slot and takes tasks from it. */
    static final int ATTACHED = 1;
    /**
     * The owner thread went out of the queue without a task (its timed poll expired, or it was
     * interrupted) and may be about to exit; it re-attaches if it polls again. Not chosen.
     */
    static final int DETACHED = 2;

    /** Wait states: the owner is running a task or otherwise outside the wait loop. */
    static final int RUNNING = 0;
    /** The owner is spinning in the wait loop and will see new work without a wake-up. */
    static final int SEARCHING = 1;
    /** The owner is parked (or about to be) and must be unparked to see new work. */
    static final int PARKED = 2;
    /** Hand-off mode: a submitter has reserved this idle owner for the task it is placing. */
    static final int RESERVED = 3;
    /**
     * Queuing mode: a parked owner that a submitter or worker has unparked ({@code PARKED} to
     * {@code WOKEN} by CAS) and that has not yet looked for work since. Only the owner leaves it
     * (to {@code RUNNING}, by CAS, then it looks at every queue): while any worker is
     * {@code WOKEN}, submitters leave other parked workers asleep, and the woken one passes the
     * wake on if work remains (TurntableQueue's wake-in-flight rule).
     */
    static final int WOKEN = 4;

    /** Flag: inside one task longer than the heartbeat timeout (set by the housekeeper). */
    static final int STUCK = 1;
    /** Flag: an operator asked this worker to retire at its next task boundary. */
    static final int RECYCLE = 2;
    /**
     * Flag: running the task ThreadPoolExecutor created its thread with, which never passed
     * through the queue ({@code TurntableQueue.workerStarting}). Listed, counted and watched by
     * the heartbeat, but chosen by no strategy and counted by no plan until its thread first asks
     * the queue for work (often never: a consumer loop), where the flag is cleared
     * ({@code WorkerLifetimes.betweenTasks}). Set by the new owner before it publishes the slot.
     */
    static final int FIRST_TASK = 4;
    /**
     * Flag, hand-off mode: the pool had this idle worker to spare for a whole keep-alive, so it
     * leaves as if its timed wait had expired ({@code HandOffMode.housekeep}). Chosen by no
     * strategy; set by the housekeeper, cleared by the owner as it leaves its wait.
     */
    static final int SURPLUS = 8;

    /** Stop states (task classes): no stop in progress / a scheduling pass is interrupting the owner. */
    static final int NOT_STOPPING = 0;
    static final int STOPPING = 1;

    private static final VarHandle STATE;
    private static final VarHandle FLAGS;
    private static final VarHandle STOP_STATE;
    private static final VarHandle WAIT_STATE;
    private static final VarHandle RUNNING_TASKS;
    private static final VarHandle STARTED;
    private static final VarHandle COMPLETED;
    private static final VarHandle RUN_TIME_TOTAL;
    private static final VarHandle WAIT_TIME_TOTAL;
    private static final VarHandle CPU_TIME;
    private static final VarHandle RUNNING_SINCE;
    private static final VarHandle RUN_SAMPLES;
    private static final VarHandle WAIT_SAMPLES;
    private static final VarHandle ESTIMATE;
    private static final VarHandle RESERVING;
    private static final VarHandle OBSERVED_STARTED;
    private static final VarHandle OBSERVED_SINCE;
    private static final VarHandle RUNNING_CLASS_TASK;
    private static final VarHandle CLAIMING_SHARED;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            STATE = l.findVarHandle(WorkerSlotSharedFields.class, "state", int.class);
            WAIT_STATE = l.findVarHandle(WorkerSlotWaitFields.class, "waitState", int.class);
            FLAGS = l.findVarHandle(WorkerSlotSharedFields.class, "flags", int.class);
            STOP_STATE = l.findVarHandle(WorkerSlot.class, "stopState", int.class);
            RUNNING_TASKS = l.findVarHandle(WorkerSlotHotFields.class, "running", int.class);
            STARTED = l.findVarHandle(WorkerSlotHotFields.class, "started", long.class);
            COMPLETED = l.findVarHandle(WorkerSlotHotFields.class, "completed", long.class);
            RUN_TIME_TOTAL = l.findVarHandle(WorkerSlotHotFields.class, "runTimeTotalNanos", long.class);
            WAIT_TIME_TOTAL = l.findVarHandle(WorkerSlotHotFields.class, "waitTimeTotalNanos", long.class);
            CPU_TIME = l.findVarHandle(WorkerSlotHotFields.class, "cpuTimeNanos", long.class);
            RUNNING_SINCE = l.findVarHandle(WorkerSlotHotFields.class, "runningSinceNanos", long.class);
            RUN_SAMPLES = l.findVarHandle(WorkerSlotOwnerFields.class, "runTimeSamples", long.class);
            WAIT_SAMPLES = l.findVarHandle(WorkerSlotOwnerFields.class, "waitTimeSamples", long.class);
            ESTIMATE = l.findVarHandle(WorkerSlotHotFields.class, "estimateNanos", long.class);
            RESERVING = l.findVarHandle(WorkerSlotReservingFields.class, "reserving", int.class);
            OBSERVED_STARTED = l.findVarHandle(WorkerSlotObservedFields.class, "observedStarted", long.class);
            OBSERVED_SINCE = l.findVarHandle(WorkerSlotObservedFields.class, "observedSinceNanos", long.class);
            RUNNING_CLASS_TASK = l.findVarHandle(WorkerSlotOwnerFields.class, "runningClassTask", Object.class);
            CLAIMING_SHARED = l.findVarHandle(WorkerSlotOwnerFields.class, "claimingShared", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    // ---- written rarely: task-class stop requests and the housekeeper's heartbeats ----
    // (index, queue and the shared fields are in WorkerSlotSharedFields; the owner's per-task
    // writes in WorkerSlotOwnerFields: see the layout notes on WorkerSlotPad0, below.)
    /** {@link #NOT_STOPPING} or {@link #STOPPING}; see {@code ClassStops.requestStop}. */
    volatile int stopState;

    // ---- written by the housekeeper only (heartbeats) ----
    /** {@link #thread} and {@link #started} when the housekeeper last looked. */
    Thread heartbeatSeenThread;
    long heartbeatSeenStarted = -1;
    /** Ticker reading when the housekeeper last saw this worker idle or in a new task; 0 = never. */
    volatile long lastHeartbeatNanos;

    // ---- written by the owner when it changes, read by the housekeeper (hand-off keep-alive) ----
    /**
     * Hand-off mode: the keep-alive of the owner's current wait, the {@code poll} timeout its
     * executor passed, or 0 in an untimed wait ({@code take}: a core thread). Written only when
     * it changes (normally once per thread), so the wait path pays a read of its own slot.
     */
    volatile long keepAliveNanos;

    WorkerSlot(int index, int queueCapacity) {
        super(index, queueCapacity);
    }

    void setRunning(int tasks) {
        RUNNING_TASKS.setRelease(this, tasks);
    }

    /** Owner only: starts {@link #claimingShared} with a plain store (see {@code TurntableQueue.claimShared}). */
    void beginClaimingShared() {
        CLAIMING_SHARED.set(this, 1);
    }

    /** Owner only: ends {@link #claimingShared} with a release store (see {@code TurntableQueue.claimShared}). */
    void endClaimingShared() {
        CLAIMING_SHARED.setRelease(this, 0);
    }

    void incrementStarted() {
        STARTED.setRelease(this, started + 1);
    }

    void incrementCompleted() {
        COMPLETED.setRelease(this, completed + 1);
    }

    /** Owner only: adds {@code nanos} of run time standing for {@code tasks} tasks. */
    void addRunTime(long nanos, int tasks) {
        RUN_TIME_TOTAL.setRelease(this, runTimeTotalNanos + nanos);
        RUN_SAMPLES.setRelease(this, runTimeSamples + tasks);
    }

    void addWaitTime(long scaledNanos) {
        WAIT_TIME_TOTAL.setRelease(this, waitTimeTotalNanos + scaledNanos);
        WAIT_SAMPLES.setRelease(this, waitTimeSamples + 1);
    }

    void addCpuTime(long nanos) {
        CPU_TIME.setRelease(this, cpuTimeNanos + nanos);
    }

    void setRunningSince(long nanos) {
        RUNNING_SINCE.setRelease(this, nanos);
    }

    /** Owner only: publishes the task time estimate of its window for the strategies. */
    void publishEstimate(long nanos) {
        ESTIMATE.setRelease(this, nanos);
    }

    /** Owner only: publishes {@link #SEARCHING} (hand-off mode), a state that needs no fence of its own. */
    void setWaitState(int ws) {
        WAIT_STATE.setRelease(this, ws);
    }

    /** Sets flag bits atomically (several writers: the housekeeper, operators, the owner). */
    void setFlag(int flag) {
        FLAGS.getAndBitwiseOr(this, flag);
    }

    void clearFlag(int flag) {
        FLAGS.getAndBitwiseAnd(this, ~flag);
    }

    boolean casStopState(int expect, int update) {
        return STOP_STATE.compareAndSet(this, expect, update);
    }

    boolean casState(int expect, int update) {
        return STATE.compareAndSet(this, expect, update);
    }

    boolean casWaitState(int expect, int update) {
        return WAIT_STATE.compareAndSet(this, expect, update);
    }

    /**
     * Ends {@link #runningClassTask} {@code task} for whoever calls first: its owner back from it,
     * a thread reaping a dead owner, or the pool's termination ({@code TurntableQueue.ownerTerminated}).
     * Only the caller that gets true ends the task in its class. A full fence, as a volatile write.
     */
    boolean claimRunningClassTask(Object task) {
        return RUNNING_CLASS_TASK.compareAndSet(this, task, null);
    }

    /** {@link #runningClassTask}, taken: null if none runs or another thread claimed it first. */
    Object takeRunningClassTask() {
        return RUNNING_CLASS_TASK.getAndSet(this, null);
    }

    /**
     * Resets the per-thread counters for a new owner. Called by the new owner thread before it
     * publishes {@link #ATTACHED}, so readers that see it attached see the reset values
     * (volatile write of state after these volatile writes: happens-before for any reader of state).
     */
    void resetForNewOwner() {
        flags = 0;
        running = 0;
        started = 0;
        completed = 0;
        clearTimes();
        window = null;
        windowConfigSeen = -1;
        cpuStretchStartNanos = -1;
        recentRunNanos = -1;
        sampleSeed = java.util.concurrent.ThreadLocalRandom.current().nextInt() | 1;
        parkStreak = 0;
        // The last owner's task counts mean nothing to this one, but a first look at its last
        // task may still be writing its date: keep its BEING_DATED mark, so that no look dates a
        // task of ours until that one has ended (see beginFirstLook). By CAS, as that look
        // clears the mark by an atomic AND: neither can erase the other's write.
        for (;;) {
            long v = observedStarted;
            if (OBSERVED_STARTED.compareAndSet(this, v, NOT_SEEN | (v & BEING_DATED))) {
                return;
            }
        }
    }

    /**
     * Marks {@link #observedStarted} once a second look, at least
     * {@link StatisticsCollector#SAMPLE_BELOW_NANOS} after the first, found the same task running.
     * Task counts never come near this bit.
     */
    static final long SEEN_AGAIN = 1L << 62;
    /**
     * Marks {@link #observedStarted} while one submitter writes a first look's date (between
     * {@link #beginFirstLook} and {@link #endFirstLook}); no other look writes meanwhile.
     */
    static final long BEING_DATED = 1L << 61;

    /**
     * Submitters: what submitters saw of the running task while its start was unknown
     * ({@code WorkerView.START_UNKNOWN}, an untimed task of the sampled run time): the clock reading
     * of the first look that saw it running, once a later look (at least
     * {@link StatisticsCollector#SAMPLE_BELOW_NANOS} after) found it still running, if
     * {@code started} (the owner's task count, read by the caller) is still that task and it has
     * not completed; else {@code START_UNKNOWN}. The first look read the clock after it read the
     * count, so the date is a little late: the task's age reads a little short, never long (a
     * look delayed across the owner's exit included: see {@link #beginFirstLook}). A task shorter than the threshold, which the sample is for, so never shows a start, and costs
     * no choice a clock read.
     *
     * <p>Why "not completed": a worker that wakes from idle raises {@code running} as it claims
     * its next task a moment before it counts that task started, and meanwhile {@code started}
     * is still the task that ended before the idle spell; its date would make the worker look as
     * if it had been running all that time.
     */
    long observedStartNanos(long started) {
        // The count before the time: the date is written before the count is released, so a
        // reader that sees the count sees that date.
        if (observedStarted != (started | SEEN_AGAIN)) {
            return WorkerView.START_UNKNOWN;
        }
        long sinceNanos = observedSinceNanos;
        // Read only for a dated task (rare).
        return completed < started ? sinceNanos : WorkerView.START_UNKNOWN;
    }

    /**
     * Submitters, a look at task number {@code started} running with an unknown start: whether
     * this look is its first, and this caller now holds the right to date it
     * ({@link #endFirstLook}, which it must call). False if the task was seen before, another
     * look is dating one, or the owner has moved on from task {@code started}. Takes the right by
     * CAS from the value it read ({@link #takeFirstLook}), so a look delayed past the owner's next
     * task (whose first look has changed the value meanwhile) writes nothing and erases no newer
     * note.
     *
     * <p>A look delayed across the owner's exit: the next owner's reset ({@link #resetForNewOwner})
     * keeps the {@link #BEING_DATED} mark, so no look dates a task of the new owner until the
     * delayed one has ended; its date then lands on {@link #NOT_SEEN}, which no reader takes for
     * a date, and the new owner's task gets a first look of its own. (A delayed look that reads
     * the new owner's {@link #NOT_SEEN} and a count the new owner has reached dates that task
     * with a reading taken after it began: late, as every first look is.)
     */
    boolean beginFirstLook(long started) {
        long seen = observedStarted;
        if (seen == started || seen == (started | SEEN_AGAIN) || (seen & BEING_DATED) != 0
                || this.started != started) {
            return false;
        }
        return takeFirstLook(seen, started);
    }

    /** The CAS of {@link #beginFirstLook}: from {@code seen}, the value this look read, to task {@code started} being dated. */
    boolean takeFirstLook(long seen, long started) {
        return OBSERVED_STARTED.compareAndSet(this, seen, started | BEING_DATED);
    }

    /**
     * Submitters: ends a first look {@link #beginFirstLook} granted, dating the task with
     * {@code dateNanos}, a clock reading taken after that call (so after the count was read: the
     * task had begun). Only the holder writes: the count is marked {@link #BEING_DATED} until the
     * release below, and every other look leaves such a slot alone.
     */
    void endFirstLook(long dateNanos) {
        OBSERVED_SINCE.setOpaque(this, dateNanos);
        // Release: the date before the count, for readers that read the count first. An atomic
        // AND, not a read and a store: a new owner's reset may replace the count in between
        // (resetForNewOwner), and a store would put the old owner's count back over it.
        OBSERVED_STARTED.getAndBitwiseAndRelease(this, ~BEING_DATED);
    }

    /**
     * Submitters, a later look at task number {@code started}, with a clock reading
     * {@code lookNanos} taken before the look: confirms the first look's date if at least
     * {@link StatisticsCollector#SAMPLE_BELOW_NANOS} separate them and the owner is still on that
     * task. A stale reading only delays the confirmation. By CAS, so a look delayed past the
     * owner's next task confirms nothing of it.
     */
    void confirmLook(long started, long lookNanos) {
        if (observedStarted == started && lookNanos - observedSinceNanos >= StatisticsCollector.SAMPLE_BELOW_NANOS
                && this.started == started) {
            OBSERVED_STARTED.compareAndSet(this, started, started | SEEN_AGAIN);
        }
    }

    /** Zeroes the time statistics, which from now on cover the tasks completed after this; owner thread only. */
    void clearTimes() {
        statsCompletedBase = completed;
        runTimeTotalNanos = 0;
        runTimeSamples = 0;
        waitTimeTotalNanos = 0;
        waitTimeSamples = 0;
        cpuTimeNanos = 0;
        runningSinceNanos = 0;
        estimateNanos = 0;
        TaskTimeWindow w = window;
        if (w != null) {
            w.clear();
        }
        ResidualTimeTable t = residuals;
        if (t != null) {
            t.clear();
        }
    }

    /**
     * Whether the owner is held back by an opt-in limit: asked to recycle, at its lifetime limit
     * (draining), or at the per-worker concurrency limit ({@code 0} = no such limit). Being stuck
     * is not a limit: heartbeats are on by default and must never turn into rejections.
     *
     * <p>A hint for choosing, not a promise: two submitters can both read a worker one below the
     * concurrency limit. What keeps the limit is {@link #tryReserve}, taken before each push.
     * The queue is read before {@code running}, as in {@link #tryReserve} (see there why).
     */
    boolean atALimit(int lifetimeLimit, int maxConcurrentTasks) {
        return drainingToRetire(lifetimeLimit) || atConcurrencyLimit(maxConcurrentTasks);
    }

    /** Whether the owner holds {@code maxConcurrentTasks} tasks, queued or running ({@code 0} = no limit): the queue read first, as in {@link #tryReserve}. */
    boolean atConcurrencyLimit(int maxConcurrentTasks) {
        return maxConcurrentTasks > 0 && queue.size() + running >= maxConcurrentTasks;
    }

    /** Whether this worker takes no new task because it is on its way to retirement: recycled, or its lifetime reached by what it holds. */
    boolean drainingToRetire(int lifetimeLimit) {
        return (flags & RECYCLE) != 0 || (lifetimeLimit > 0 && lifetimeTasks() >= lifetimeLimit);
    }

    /** Tasks completed since the time statistics last started from zero (see {@link #statsCompletedBase}). */
    long completedSinceStatsStart() {
        long n = completed - statsCompletedBase;
        return n > 0 ? n : 0;
    }

    /** {@link #lifetimeTasks()}, or 0 for a free slot, which has no current thread (the figure monitoring shows). */
    long currentThreadLifetimeTasks() {
        return state == FREE ? 0 : lifetimeTasks();
    }

    /** Tasks dispatched to this slot's current thread: started plus still waiting in its queue. */
    long lifetimeTasks() {
        return started + queue.size();
    }

    /**
     * With {@code max-concurrent-tasks} = {@code limit > 0}: reserves a place for one task on this
     * worker, counting the tasks queued and running here and every place other threads hold at
     * this moment. Called by submitting threads, and by the owner itself before it takes a task
     * from outside its own queue ({@code TurntableQueue.reserveOwnPlace}). On {@code true} a
     * submitter pushes its task with {@link #offerReserved}, which ends the reservation, and the
     * owner raises {@code running} by claiming its task and then calls {@link #endReservation};
     * on {@code false} (no place) the caller holds nothing.
     *
     * <p>Why no worker gets more than {@code limit} from racing submitters: take the submitter
     * whose increment came last among those whose tasks are here at some moment. Each earlier
     * one either still held its place at that increment (so the value the increment returns
     * counts it) or had ended its reservation, after its push, before it (so its task is in the
     * queue size read afterwards, or, if the owner has taken it, in {@code running}). So that
     * last submitter counted every one of them, and itself, and found at most {@code limit}.
     * The owner taking a task from elsewhere is one more such reserver, whose "push" is its raise
     * of {@code running}: it ends its reservation after that raise, so an increment after the end
     * finds its task in {@code running} (the end's decrement publishes the raise as a submitter's
     * publishes its push, below), an increment before it finds its place in the count; and if its
     * own increment is the last, it counted every place and queued task with {@code running} at
     * 0 (it reserves only between tasks), and found room for one more.
     *
     * <p>Memory ordering, each choice and why it is enough:
     * <ul>
     *   <li>The increment is a volatile read-modify-write. Its atomicity alone makes two racing
     *       submitters see each other: the later one's increment returns a count that includes the
     *       earlier one. Its volatile read half is what makes an earlier submitter's push visible:
     *       that submitter's decrement (a volatile write, after its push) synchronizes-with every
     *       later volatile access of this field, even one that reads a third submitter's value.
     *       (An acquire increment and a release decrement would do under C++11-style release
     *       sequences, which the JLS does not spell out for VarHandle modes; its rule above is
     *       stated for volatile, and on x86 every mode is the same {@code lock xadd}.)</li>
     *   <li>The queue size is read before {@code running}. The owner takes a task by raising
     *       {@code running} (a release store) and then CASing the queue's consumer index. A reader
     *       that sees the task gone from the queue has read that CAS (volatile), so its later read
     *       of {@code running} sees the raise (or a later value, meaning the task has ended).
     *       Read the other way round, a task moving from the queue to its worker could be missed
     *       by both reads.</li>
     *   <li>The returned count is used, not a second read of the field: a re-read could be lower
     *       (a submitter that ended its reservation meanwhile) while the queue was already read
     *       without its push.</li>
     *   <li>Giving back a refused place needs atomicity only (nothing was pushed to publish);
     *       it is volatile like the rest because that costs nothing more.</li>
     * </ul>
     * A worker held at its limit by reservations of submitters that then find no place is
     * refused by those that come in that instant; they choose again (see
     * {@code TurntableQueue.dispatchWithinLimit}). Counting conservatively is safe; counting low
     * is not, and nothing here can.
     */
    boolean tryReserve(int limit) {
        int reserved = (int) RESERVING.getAndAdd(this, 1) + 1;
        if (queue.size() + running + reserved <= limit) {
            return true;
        }
        endReservation();
        return false;
    }

    /**
     * Pushes {@code element} onto {@link #queue} in the place {@link #tryReserve} granted, then
     * ends the reservation whatever the push did (also if it throws). The end comes after the
     * push so that a submitter whose increment follows this decrement sees the task in the queue:
     * a volatile decrement for the reason given in {@link #tryReserve}; the push's CAS before it
     * is what that submitter must see. Returns whether the queue had room.
     */
    boolean offerReserved(Runnable element) {
        try {
            return queue.offer(element);
        } finally {
            endReservation();
        }
    }

    /**
     * Ends a place {@link #tryReserve} granted. The owner calls it after the claim that raised
     * {@code running} for the task it took from outside its queue (and lowered it again if the
     * claim found nothing): volatile for the reason given in {@link #tryReserve}, so that a
     * submitter whose increment follows it sees {@code running} as raised. Ended before the
     * raise, the place would be free for an instant in which the task is counted nowhere.
     */
    void endReservation() {
        RESERVING.getAndAdd(this, -1);
    }
}

/**
 * The slot's layout: each group of fields on cache lines of its own, so that a thread's writes
 * never invalidate a line that another thread reads on every task. The groups are 128 bytes
 * apart, a pair of 64-byte lines, as Intel's spatial prefetcher fetches them in 128-byte-aligned
 * pairs (so do the JDK's {@code @Contended} and JCTools). Superclass fields come first,
 * as JCTools lays out its queues, but padding alone is not enough: since JDK 15 HotSpot fills
 * alignment gaps of a superclass with fields of its subclasses (an int of the owner's per-task
 * fields once landed beside {@code state}, and {@code state} in the object header's gap), so
 * the padding is ints, which leave no gap wherever they start (the header is 8, 12 or 16 bytes:
 * compact headers, compressed class pointers, or neither; long padding once left the 12-byte
 * header's 4 spare bytes to {@code state}, and an int after it, with the other two headers,
 * to the owner's {@code running}, on the submitters' line), and each group's fields add up to a
 * multiple of 8 bytes. {@code WorkerSlotLayoutTest} checks the offsets on the JVM that runs the
 * tests; run it with {@code -XX:-UseCompressedOops}, {@code -XX:-UseCompressedClassPointers} and,
 * on JDK 25, {@code -XX:+UseCompactObjectHeaders} after changing a field here.
 *
 * <ol>
 *   <li>{@link WorkerSlotSharedFields}: what every submitter reads on every push (index, queue,
 *       owner, state, flags); written only when the worker attaches or leaves, and on a
 *       heartbeat's verdict or an operator's request.</li>
 *   <li>{@link WorkerSlotHotFields}: what the strategies read, written by the owner per task.</li>
 *   <li>{@link WorkerSlotOwnerFields}: the owner's other per-task writes (monitoring counters,
 *       private bookkeeping), which no submitter reads.</li>
 *   <li>{@link WorkerSlotReservingFields}: places submitters hold while they push, with
 *       {@code max-concurrent-tasks} set (written by submitters, twice per task, and by the owner
 *       twice per task it takes from outside its own queue).</li>
 *   <li>{@link WorkerSlotObservedFields}: what submitters saw of a running task of unknown start
 *       (written by submitters, rarely).</li>
 *   <li>{@link WorkerSlotWaitFields}: the owner's wait state (written when it goes idle and
 *       when it finds work; read by each submitter once, after its push).</li>
 *   <li>{@link WorkerSlot}: rare writes (stop requests, heartbeats), then the end of the object,
 *       after which the heap holds the slot's queue, whose header every submitter reads.</li>
 * </ol>
 */
abstract class WorkerSlotPad0 {
    int p000, p001, p002, p003, p004, p005, p006, p007, p008, p009, p00a, p00b, p00c, p00d, p00e, p00f,
            p010, p011, p012, p013, p014, p015, p016, p017, p018, p019, p01a, p01b, p01c, p01d, p01e, p01f;
}

/** Read by every submitter on every push; written rarely (see the layout above). 32 bytes with compressed oops, 40 without: no gap. */
abstract class WorkerSlotSharedFields extends WorkerSlotPad0 {
    /** Position in the pool's slot array; never changes. */
    final int index;
    /** The worker's own tasks: multi-producer (submitters), multi-consumer (the owner and thieves). */
    final MpmcAtomicArrayQueue<Runnable> queue;
    /** Owner thread, or null when {@code FREE}. Written under the pool's registration lock. */
    volatile Thread thread;
    /** {@code FREE}, {@code ATTACHED} or {@code DETACHED}; transitions by CAS or by the owner. */
    volatile int state;
    /** Fills the group to a multiple of 8 bytes (the wait state moved to a line of its own). */
    int sharedFill;
    /**
     * {@code STUCK} and {@code RECYCLE} bits: read by every submitter that considers this worker,
     * written rarely (a heartbeat verdict, an operator's request), so they share this line.
     */
    volatile int flags;
    /**
     * {@code completed} when the owner's time statistics last started from zero (a new owner, a
     * reset, a switch that started collecting run, wait or CPU time): the totals cover the tasks
     * completed since, which LEAST_BUSY and LEAST_CPU divide them by. Written by the owner only
     * then (rarely), read with the availability fields by those strategies' choices.
     */
    volatile long statsCompletedBase;

    WorkerSlotSharedFields(int index, int queueCapacity) {
        this.index = index;
        this.queue = new MpmcAtomicArrayQueue<>(queueCapacity);
    }
}

abstract class WorkerSlotPad1 extends WorkerSlotSharedFields {
    int p100, p101, p102, p103, p104, p105, p106, p107, p108, p109, p10a, p10b, p10c, p10d, p10e, p10f,
            p110, p111, p112, p113, p114, p115, p116, p117, p118, p119, p11a, p11b, p11c, p11d, p11e, p11f;

    WorkerSlotPad1(int index, int queueCapacity) {
        super(index, queueCapacity);
    }
}

/**
 * What the strategies read on every choice, on one line of its own: the owner writes these at
 * each task's start and end, so a submitter that weighs this worker takes one cache miss for all
 * of them (plus its queue's consumer index) rather than one per line they used to be spread
 * over, and the owner's other bookkeeping (monitoring counters, heartbeats, private state) no
 * longer invalidates the line a submitter reads. 64 bytes: no gap.
 *
 * <p>Single writer (the owner thread), release stores, volatile reads. Declared volatile so that
 * a reader never sees a torn or stale-forever long. The owner is the only writer, so it updates
 * each with a plain read and a release store (the setters on {@link WorkerSlot}): no update can
 * be lost, and a release store costs nothing on x86 where a volatile store would be a full fence
 * on every task. A reader needs each value untorn and soon, never ordered against the others (a
 * strategy tolerates a mix of one task's start and the previous task's end; a tie-break or one
 * placement is all that can differ).
 */
abstract class WorkerSlotHotFields extends WorkerSlotPad1 {
    /** 1 while the owner runs a task taken from the pool, else 0. */
    volatile int running;
    /**
     * The statistics epoch this slot's times belong to; volatile so that readers can mask
     * values from before a reset the owner has not applied yet (it applies it at its next task).
     */
    volatile int statsEpochSeen;
    /** Tasks the current owner thread has taken (started). */
    volatile long started;
    /** {@code System.nanoTime()} when the current task started, when run time is collected. */
    volatile long runningSinceNanos;
    /** The owner's window estimate as of its last sample (0 = none); what strategies read. */
    volatile long estimateNanos;
    volatile long runTimeTotalNanos;
    /** Estimated total: each sampled wait counts for {@code StatisticsCollector.WAIT_SAMPLE_EVERY} tasks. */
    volatile long waitTimeTotalNanos;
    volatile long cpuTimeNanos;
    /** Tasks the current owner thread has completed: LEAST_BUSY and LEAST_CPU divide their history by it. */
    volatile long completed;

    WorkerSlotHotFields(int index, int queueCapacity) {
        super(index, queueCapacity);
    }
}

abstract class WorkerSlotPad2 extends WorkerSlotHotFields {
    int p200, p201, p202, p203, p204, p205, p206, p207, p208, p209, p20a, p20b, p20c, p20d, p20e, p20f,
            p210, p211, p212, p213, p214, p215, p216, p217, p218, p219, p21a, p21b, p21c, p21d, p21e, p21f;

    WorkerSlotPad2(int index, int queueCapacity) {
        super(index, queueCapacity);
    }
}

/**
 * The owner's other per-task writes: monitoring counters (read by JMX and {@code workers()}, not
 * by strategies) and private bookkeeping. Same publication rules as the hot fields (single
 * writer, release stores, volatile reads); the private ones are never read by other threads.
 */
abstract class WorkerSlotOwnerFields extends WorkerSlotPad2 {
    /**
     * Tasks whose run time is in {@link #runTimeTotalNanos}: a task timed while run time is sampled
     * counts for the tasks it stands for ({@code StatisticsCollector.SAMPLE_RUN_EVERY}).
     */
    volatile long runTimeSamples;
    /** Sampled tasks whose wait is behind {@link #waitTimeTotalNanos}. */
    volatile long waitTimeSamples;
    /** Moving window of the configured measurement, created by the owner when first needed. */
    volatile TaskTimeWindow window;
    /**
     * The window's samples sorted for remaining-time predictions ({@code REMAINING_TIME}), created
     * by the owner when first needed; the table itself guards concurrent reads (see its javadoc).
     */
    volatile ResidualTimeTable residuals;
    /**
     * Task classes only: the started task the owner runs now (a {@code ClassedTask}), read by
     * rebalancing passes to find the most recently started tasks of a class; null otherwise.
     * Set by the owner as it starts one; cleared only through {@link WorkerSlot#claimRunningClassTask}
     * or {@link WorkerSlot#takeRunningClassTask}, so that exactly one thread ends it.
     */
    volatile Object runningClassTask;
    /** Task classes only: 1 while the owner ends the class task it claimed ({@code ClassEndings.finished}), else 0. */
    volatile int endingClassTask;
    /**
     * 1 while the owner takes a task from the shared queue and has not yet counted it gone
     * ({@code TurntableQueue.claimShared}), else 0: a drain waits for it to read 0
     * ({@code WaitingTasks.drainTo}). On the owner's own line, where a counter all claimers
     * shared cost two contended atomics per task taken from the shared queue.
     */
    volatile int claimingShared;
    /** Keeps the group a multiple of 8 bytes (see the note at its end). */
    int claimingSharedFill;

    // ---- owner-thread-private bookkeeping (never read by other threads but where said) ----
    /**
     * Tasks the owner takes from the shared queue before its own (what that queue held when it
     * attached: {@code TurntableQueue.findEngineWork}); read racily by foreign polls and peeks
     * for their order only.
     */
    int sharedFirstTakes;
    long taskStartCpuNanos;
    /** Thread CPU clock at the start of the current busy stretch, or -1 outside one. */
    long cpuStretchStartNanos = -1;
    int cpuTasksInStretch;
    /** Tasks between thread CPU clock reads within a stretch, adapted to the tasks' length. */
    int cpuReadEveryTasks = StatisticsCollector.CPU_READ_EVERY_TASKS;
    int flagsAtStart;
    int windowConfigSeen = -1;
    int samplesSincePoolEstimate;
    // Sampled run-time measurement (StatisticsCollector.taskStarted): while recent tasks are
    // shorter than StatisticsCollector.SAMPLE_BELOW_NANOS, one task in SAMPLE_RUN_EVERY is timed.
    /**
     * Moving average of the timed tasks' run times (weight 1/8), or -1 before the first; under
     * {@code StatisticsCollector.SAMPLE_BELOW_NANOS}, only a sample of tasks is timed.
     */
    long recentRunNanos = -1;
    /** Xorshift state choosing which tasks are timed; never 0. */
    int sampleSeed = 1;
    /** How many tasks the current task's run time stands for (1, or the sampling rate), or 0 if untimed. */
    int timedTaskWeight;
    /** Waits in a row that ended in a park (see {@code TurntableQueue.yieldsBeforePark}). */
    int parkStreak;
    /** Counts the waits that skip their yields, so that one in several yields anyway. */
    int skippedYieldWaits;
    // The group is a multiple of 8 bytes with compressed oops (5 longs, 13 ints, 3 refs: 104), so
    // no field of a subclass lands in a gap beside the owner's per-task writes: add an int fill
    // when adding or removing an int here (WorkerSlotLayoutTest catches a gap; sharedFirstTakes
    // took the place of the last fill).

    WorkerSlotOwnerFields(int index, int queueCapacity) {
        super(index, queueCapacity);
    }
}

abstract class WorkerSlotPad3 extends WorkerSlotOwnerFields {
    int p300, p301, p302, p303, p304, p305, p306, p307, p308, p309, p30a, p30b, p30c, p30d, p30e, p30f,
            p310, p311, p312, p313, p314, p315, p316, p317, p318, p319, p31a, p31b, p31c, p31d, p31e, p31f;

    WorkerSlotPad3(int index, int queueCapacity) {
        super(index, queueCapacity);
    }
}

/**
 * Places submitters hold on this worker while they push ({@code WorkerSlot.tryReserve}), and the
 * owner while it takes a task from outside its own queue; used only when
 * {@code max-concurrent-tasks} is set. On a line of its own: every submitter that places a
 * task here writes it twice, and on the strategies' line ({@link WorkerSlotHotFields}) those
 * writes would cost every other submitter a miss; next to the owner's per-task writes
 * ({@link WorkerSlotOwnerFields}) each task would cost the submitters one. 8 bytes: no gap.
 */
abstract class WorkerSlotReservingFields extends WorkerSlotPad3 {
    /** Places held: submitters between their reservation and the end of their push, the owner between its reservation and its claim; any thread, atomically. */
    volatile int reserving;
    /** Fills the group to 8 bytes, so that no field of a subclass lands beside {@link #reserving}. */
    int reservingFill;

    WorkerSlotReservingFields(int index, int queueCapacity) {
        super(index, queueCapacity);
    }
}

abstract class WorkerSlotPad4 extends WorkerSlotReservingFields {
    int p400, p401, p402, p403, p404, p405, p406, p407, p408, p409, p40a, p40b, p40c, p40d, p40e, p40f,
            p410, p411, p412, p413, p414, p415, p416, p417, p418, p419, p41a, p41b, p41c, p41d, p41e, p41f;

    WorkerSlotPad4(int index, int queueCapacity) {
        super(index, queueCapacity);
    }
}

/**
 * What submitters saw of the running task when its start was unknown ({@code FAIR_SHARE} with
 * task stealing on, tiny tasks timed in a sample): see {@code WorkerSlot.beginFirstLook}. Written by
 * submitters, rarely (a sampled clock read that finds a new task of unknown start), read by
 * {@code FAIR_SHARE}'s choices; on a line of its own, so that those writes cost neither the owner
 * nor the submitters' every-push reads a miss. 16 bytes: no gap.
 */
abstract class WorkerSlotObservedFields extends WorkerSlotPad4 {
    /** {@link #observedStarted} when no task has been seen since the owner attached: no count, no mark bit. */
    static final long NOT_SEEN = Long.MIN_VALUE;

    /**
     * The owner's {@code started} count of the task seen, with {@code WorkerSlot.SEEN_AGAIN} once
     * confirmed or {@code WorkerSlot.BEING_DATED} while a first look writes its date; or
     * {@link #NOT_SEEN}.
     */
    volatile long observedStarted = NOT_SEEN;
    /** {@code System.nanoTime()} of the first submitter that saw task {@link #observedStarted} running. */
    volatile long observedSinceNanos;

    WorkerSlotObservedFields(int index, int queueCapacity) {
        super(index, queueCapacity);
    }
}

abstract class WorkerSlotPad5 extends WorkerSlotObservedFields {
    int p500, p501, p502, p503, p504, p505, p506, p507, p508, p509, p50a, p50b, p50c, p50d, p50e, p50f,
            p510, p511, p512, p513, p514, p515, p516, p517, p518, p519, p51a, p51b, p51c, p51d, p51e, p51f;

    WorkerSlotPad5(int index, int queueCapacity) {
        super(index, queueCapacity);
    }
}

/**
 * The owner's wait state, on a line of its own: the owner writes it each time it goes idle and
 * each time it finds work, which in a pool whose workers keep up with their submitters is twice
 * per task. A submitter reads it once per push, after the push ({@code TurntableQueue.signalPushed});
 * on {@link WorkerSlotSharedFields}' line those writes also invalidated what every submitter
 * reads before its push and what a strategy reads of every worker it weighs (the queue, the
 * state and flags). Moved here: ROUND_ROBIN's one-producer no-op dispatch 1.00 → 1.31 and 1.07
 * → 1.33 times a ThreadPoolExecutor's in two interleaved runs of 6 and 8 rounds (medians;
 * faster in 11 of the 14 rounds), the other strategies within the runs' spread
 * (benchmarks/RESULTS.md, 2026-11-29, evening).
 */
abstract class WorkerSlotWaitFields extends WorkerSlotPad5 {
    /** {@code RUNNING}, {@code SEARCHING}, {@code PARKED}, {@code WOKEN} or {@code RESERVED}. */
    volatile int waitState;
    /** Fills the group to 8 bytes. */
    int waitStateFill;

    WorkerSlotWaitFields(int index, int queueCapacity) {
        super(index, queueCapacity);
    }
}

abstract class WorkerSlotPad6 extends WorkerSlotWaitFields {
    int p600, p601, p602, p603, p604, p605, p606, p607, p608, p609, p60a, p60b, p60c, p60d, p60e, p60f,
            p610, p611, p612, p613, p614, p615, p616, p617, p618, p619, p61a, p61b, p61c, p61d, p61e, p61f;

    WorkerSlotPad6(int index, int queueCapacity) {
        super(index, queueCapacity);
    }
}
