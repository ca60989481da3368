package dev.turntable.pool;

/**
 * A task stamped with the time it was offered, used only while wait time is collected (the
 * active strategy measures {@code WAIT_TIME} or latency histograms are on); otherwise tasks are
 * queued as they are, with no wrapper. Never escapes the engine: every method that hands a task
 * back (poll, drainTo, iterator, toArray) unwraps it. Immutable; any thread.
 */
final class TimedTask implements Runnable {

    final Runnable task;
    final long offeredNanos;

    TimedTask(Runnable task, long offeredNanos) {
        this.task = task;
        this.offeredNanos = offeredNanos;
    }

    @Override
    public void run() {
        task.run();
    }

    /** The application's task behind a queued element (a class wrapper, a time stamp, or none). */
    static Runnable unwrap(Runnable element) {
        if (element instanceof ClassedTask) {
            element = ((ClassedTask) element).element;
        }
        return element instanceof TimedTask ? ((TimedTask) element).task : element;
    }

    @Override
    public String toString() {
        return task.toString();
    }
}
