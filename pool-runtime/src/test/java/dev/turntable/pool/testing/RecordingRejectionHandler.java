package dev.turntable.pool.testing;

import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ThreadPoolExecutor;

/** A rejection handler that records what it was handed and drops the task. */
public final class RecordingRejectionHandler implements RejectedExecutionHandler {

    private final Queue<Runnable> rejected = new ConcurrentLinkedQueue<>();
    private final Queue<ThreadPoolExecutor> executors = new ConcurrentLinkedQueue<>();

    @Override
    public void rejectedExecution(Runnable r, ThreadPoolExecutor executor) {
        rejected.add(r);
        executors.add(executor);
    }

    public List<Runnable> rejected() {
        return List.copyOf(rejected);
    }

    public List<ThreadPoolExecutor> executors() {
        return List.copyOf(executors);
    }
}
