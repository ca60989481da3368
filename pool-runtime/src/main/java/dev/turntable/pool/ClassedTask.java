package dev.turntable.pool;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A task the class scheduler has started: on its way to (or in) a worker's queue, counted as
 * running for its job and class until the worker that takes it comes back for the next task.
 * Never escapes the engine (every method that hands a task back unwraps it). Immutable but for
 * {@link #stopRequested} and the time up to which its worker time is charged
 * ({@link #markTaken}, {@link #takeUse}); any thread.
 */
final class ClassedTask implements Runnable {

    private static final VarHandle CHARGED_TO;

    static {
        try {
            CHARGED_TO = MethodHandles.lookup().findVarHandle(ClassedTask.class, "chargedToNanos", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** What was offered: the application's task, or a {@link TimedTask} around it. */
    final Runnable element;
    final ClassJobs.Job job;
    /** Start order within the pool: rebalancing stops the most recently started first. */
    final long startSeq;
    /** Set by the scheduler (before it interrupts the worker) when it asks a restartable task to stop. */
    volatile boolean stopRequested;
    /**
     * Where the worker time this task used is charged ({@link #chargeUse}, and a pass while it
     * runs): the counts of the classes it was started under, at {@link #classIndex}. A change of
     * classes gives the pass new counts, and the old ones, charged by tasks started before it,
     * are dropped with it.
     */
    private final ClassUse use;
    private final int classIndex;
    /**
     * The pool's ticker up to which this task's worker time has been charged: when the worker
     * took it ({@link #markTaken}), then moved on by each charge ({@link #takeUse}: a pass while
     * it runs, then its end). Written plainly by the worker before its volatile write of
     * {@code WorkerSlot.runningClassTask}, and read after a read of that field by whoever charges
     * it (a pass, the worker itself, or a thread that claimed it from the slot), so the reader
     * sees the write; after that, moved by CAS only.
     */
    private long chargedToNanos;

    ClassedTask(Runnable element, ClassJobs.Job job, long startSeq, ClassUse use, int classIndex) {
        this.element = element;
        this.job = job;
        this.startSeq = startSeq;
        this.use = use;
        this.classIndex = classIndex;
    }

    /** The taking worker, before it publishes this task as running on its slot. */
    void markTaken(long nowNanos) {
        chargedToNanos = nowNanos;
    }

    /**
     * The worker time this task has used by {@code nowNanos} and not yet charged, once a worker
     * took it; whoever gets it charges it (each stretch goes to one caller only). Any thread.
     */
    long takeUse(long nowNanos) {
        for (;;) {
            long from = (long) CHARGED_TO.getVolatile(this);
            if (nowNanos - from <= 0) {
                return 0L;
            }
            if (CHARGED_TO.compareAndSet(this, from, nowNanos)) {
                return nowNanos - from;
            }
        }
    }

    /** Charges what is left of {@link #takeUse} to the class this task was started in: it has ended, or was stopped. */
    void chargeUse(long nowNanos) {
        use.chargeEnded(classIndex, takeUse(nowNanos));
    }

    /** The class this task was started in, if it was started under the classes {@code counts} is for; else -1. */
    int classIndexIn(ClassUse counts) {
        return use == counts ? classIndex : -1;
    }

    /** The application's task. */
    Runnable task() {
        return TimedTask.unwrap(element);
    }

    @Override
    public void run() {
        element.run();
    }

    @Override
    public String toString() {
        return task().toString();
    }
}
