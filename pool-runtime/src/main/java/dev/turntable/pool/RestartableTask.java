package dev.turntable.pool;

/**
 * A task that may be stopped part-way and run again later, which lets a pool with task classes
 * rebalance at once instead of waiting for over-entitled classes' tasks to end. Implemented by
 * application tasks given to {@code execute} (a task wrapped by {@code submit} is a
 * {@code FutureTask} and is never stopped). Called on the worker thread that runs it.
 *
 * <p>The protocol: to stop it, the pool interrupts the worker thread while the task runs. The
 * task notices (for example {@code Thread.currentThread().isInterrupted()} between units of
 * work, or an {@code InterruptedException}) and returns from {@link #run()}. When it returns,
 * the pool calls {@link #isComplete()}: {@code false} puts the task back at the head of its job,
 * to run again later; {@code true} means its work is done and it is not run again. So the task
 * runs to completion exactly once. The pool clears the interrupt before the worker takes its next
 * task. ThreadPoolExecutor counts each run in {@code getCompletedTaskCount()} and calls
 * {@code beforeExecute}/{@code afterExecute} around each.
 */
public interface RestartableTask extends Runnable {

    /** Whether the last {@link #run()} finished the task's work; asked after a stop request only. */
    boolean isComplete();
}
