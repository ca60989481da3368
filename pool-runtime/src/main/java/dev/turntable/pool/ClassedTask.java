package dev.turntable.pool;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A task the class scheduler has started: on its way to (or in) a worker's queue, counted as
 * running for its job and class until the worker that takes it comes back for the next task.
 * Never escapes the engine (every method that hands a task back unwraps it). Immutable but for
 * {@link #stopRequested} and the time its worker took it ({@link #markTaken}); any thread.
 */
final class ClassedTask implements Runnable {

    /** What was offered: the application's task, or a {@link TimedTask} around it. */
    final Runnable element;
    final ClassJobs.Job job;
    /** Start order within the pool: rebalancing stops the most recently started first. */
    final long startSeq;
    /** Set by the scheduler (before it interrupts the worker) when it asks a restartable task to stop. */
    volatile boolean stopRequested;
    /**
     * Where the worker time this task used is charged as it ends ({@link #chargeUse}): the
     * pass's counts for the classes it was started under ({@link ClassUse#charges()}), at
     * {@link #classIndex}. A change of
     * classes gives the pass new counts, and the old ones, charged by tasks started before it,
     * are dropped with it.
     */
    private final AtomicLongArray useCharges;
    private final int classIndex;
    /**
     * The pool's ticker when the worker took this task ({@link #markTaken}). A plain field:
     * written by the worker before its volatile write of {@code WorkerSlot.runningClassTask},
     * and read after a read of that field by whoever ends the task (the worker itself, or a
     * thread that claimed it from the slot), so the reader sees the write.
     */
    private long takenNanos;

    ClassedTask(Runnable element, ClassJobs.Job job, long startSeq, AtomicLongArray useCharges, int classIndex) {
        this.element = element;
        this.job = job;
        this.startSeq = startSeq;
        this.useCharges = useCharges;
        this.classIndex = classIndex;
    }

    /** The taking worker, before it publishes this task as running on its slot. */
    void markTaken(long nowNanos) {
        takenNanos = nowNanos;
    }

    /** The worker time this task has used by {@code nowNanos}, once a worker took it. */
    long useNanos(long nowNanos) {
        long used = nowNanos - takenNanos;
        return used > 0 ? used : 0L;
    }

    /** Charges {@link #useNanos} to the class this task was started in: it has ended, or was stopped. */
    void chargeUse(long nowNanos) {
        useCharges.getAndAdd(classIndex, useNanos(nowNanos));
    }

    /** The class this task was started in, if it was started under the classes that {@code charges} counts for; else -1. */
    int classIndexIn(AtomicLongArray charges) {
        return useCharges == charges ? classIndex : -1;
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
