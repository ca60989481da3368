package dev.turntable.benchmarks;

import dev.turntable.pool.TurntableExecutor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Threads;

/**
 * <b>Question:</b> what does a hand-off pool at its maximum cost a submitter whose rejection
 * handler blocks it until a worker is free ({@code executor.getQueue().put(task)}, a common way
 * to get back-pressure from a {@code SynchronousQueue} pool)?
 *
 * <p><b>One op</b> = one no-op task submitted and completed, in batches of {@value #BATCH} from
 * one producer ({@link Batch}). <b>Pools</b> ({@code pool}): {@code TPE_SYNC}, a
 * {@code ThreadPoolExecutor} of {@value #WORKERS} threads on a {@code SynchronousQueue}, and
 * {@code TURNTABLE}, a {@link TurntableExecutor} of as many with {@code handOff()}; both with
 * that handler. Every task past the first few goes through the handler's {@code put}.
 */
public class BlockingHandOffBenchmark extends PoolBenchmark {

    /** Tasks per invocation. */
    public static final int BATCH = 1000;
    /** Worker threads of both pools. */
    public static final int WORKERS = 1;

    /** Blocks the submitter until a worker takes the task, as applications write it. */
    static final RejectedExecutionHandler BLOCK = (r, executor) -> {
        try {
            executor.getQueue().put(r);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RejectedExecutionException(e);
        }
    };

    @Param({"TPE_SYNC", "TURNTABLE"})
    public String pool;

    @Override
    protected ExecutorService createPool() {
        ThreadPoolExecutor created;
        switch (pool) {
            case "TPE_SYNC":
                created = new ThreadPoolExecutor(WORKERS, WORKERS, 60, TimeUnit.SECONDS, new SynchronousQueue<>(), BLOCK);
                break;
            case "TURNTABLE":
                created = TurntableExecutor.builder().workers(WORKERS).handOff().rejectionHandler(BLOCK).build();
                break;
            default:
                throw new IllegalArgumentException("unknown pool " + pool);
        }
        created.prestartAllCoreThreads();
        return created;
    }

    @Benchmark
    @Threads(1)
    @OperationsPerInvocation(BATCH)
    public void blockedProducer(Producer p) {
        p.batch.submitAndAwait(executor, BATCH, 0);
    }
}
