package dev.turntable.pool;

/**
 * A task the class scheduler has started: on its way to (or in) a worker's queue, counted as
 * running for its job and class until the worker that takes it comes back for the next task.
 * Never escapes the engine (every method that hands a task back unwraps it). Immutable but for
 * {@link #stopRequested}; any thread.
 */
final class ClassedTask implements Runnable {

    /** What was offered: the application's task, or a {@link TimedTask} around it. */
    final Runnable element;
    final ClassJobs.Job job;
    /** Start order within the pool: rebalancing stops the most recently started first. */
    final long startSeq;
    /** Set by the scheduler (before it interrupts the worker) when it asks a restartable task to stop. */
    volatile boolean stopRequested;

    ClassedTask(Runnable element, ClassJobs.Job job, long startSeq) {
        this.element = element;
        this.job = job;
        this.startSeq = startSeq;
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
