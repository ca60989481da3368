package dev.turntable.pool;

import dev.turntable.pool.stats.TaskTimeWindow;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import org.jctools.queues.MpmcArrayQueue;

/**
 * One worker position of a {@link TurntableQueue}: the worker's own task queue, the thread that
 * currently owns it, its wait state and its statistics.
 *
 * <p>Threads: the owner thread is the single writer of every counter and statistic below (it
 * publishes them with release stores); submitting threads read them with plain volatile or
 * acquire loads while choosing a worker, and push tasks into {@link #queue}; idle workers of the
 * same pool poll {@link #queue} too (task stealing), which is why it is multi-consumer.
 * Slots are never removed from a pool: a slot whose thread left is {@link #FREE} and is reused
 * by the next thread, so worker indices stay small and stable.
 */
final class WorkerSlot {

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

    private static final VarHandle STATE;
    private static final VarHandle WAIT_STATE;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            STATE = l.findVarHandle(WorkerSlot.class, "state", int.class);
            WAIT_STATE = l.findVarHandle(WorkerSlot.class, "waitState", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final int index;
    final MpmcArrayQueue<Runnable> queue;

    /** Owner thread, or null when {@link #FREE}. Written under the pool's registration lock. */
    volatile Thread thread;
    /** {@link #FREE}, {@link #ATTACHED} or {@link #DETACHED}; transitions by CAS or by the owner. */
    volatile int state;
    /** {@link #RUNNING}, {@link #SEARCHING}, {@link #PARKED} or {@link #RESERVED}. */
    volatile int waitState;

    // ---- written only by the owner thread, read by submitters and monitoring ----
    // Each is a volatile field so readers on other threads never see a torn long; the owner
    // updates them with plain read + volatile write, which is safe because it is the only writer.
    /** 1 while the owner runs a task taken from the pool, else 0. */
    volatile int running;
    /** Tasks the current owner thread has taken (started). */
    volatile long started;
    /** Tasks the current owner thread has completed. */
    volatile long completed;
    volatile long runTimeTotalNanos;
    volatile long waitTimeTotalNanos;
    volatile long cpuTimeNanos;
    /** {@code System.nanoTime()} when the current task started, when run time is collected. */
    volatile long runningSinceNanos;
    /** Moving window of the configured measurement, created by the owner when first needed. */
    volatile TaskTimeWindow window;

    // ---- owner-thread-private bookkeeping (never read by other threads) ----
    long taskStartCpuNanos;
    int flagsAtStart;
    int windowConfigSeen = -1;
    int statsEpochSeen;
    int samplesSincePoolEstimate;

    WorkerSlot(int index, int queueCapacity) {
        this.index = index;
        this.queue = new MpmcArrayQueue<>(queueCapacity);
    }

    boolean casState(int expect, int update) {
        return STATE.compareAndSet(this, expect, update);
    }

    boolean casWaitState(int expect, int update) {
        return WAIT_STATE.compareAndSet(this, expect, update);
    }

    /**
     * Resets the per-thread counters for a new owner. Called by the new owner thread before it
     * publishes {@link #ATTACHED}, so readers that see it attached see the reset values
     * (volatile write of state after these volatile writes: happens-before for any reader of state).
     */
    void resetForNewOwner() {
        running = 0;
        started = 0;
        completed = 0;
        clearTimes();
        window = null;
        windowConfigSeen = -1;
    }

    /** Zeroes the time statistics; owner thread only. */
    void clearTimes() {
        runTimeTotalNanos = 0;
        waitTimeTotalNanos = 0;
        cpuTimeNanos = 0;
        runningSinceNanos = 0;
        TaskTimeWindow w = window;
        if (w != null) {
            w.clear();
        }
    }

    /** Tasks dispatched to this slot's current thread: started plus still waiting in its queue. */
    long lifetimeTasks() {
        return started + queue.size();
    }
}
