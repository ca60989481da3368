package dev.turntable.benchmarks;

import java.util.concurrent.ExecutorService;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Threads;

/**
 * <b>Question:</b> how many tasks per second does each pool get from submit to completion, for
 * tasks that do nothing (pure dispatch overhead) and for ~10 µs CPU tasks (dispatch plus how
 * well the strategy keeps both workers busy), with one and with two submitting threads?
 *
 * <p><b>One op</b> = one task submitted <em>and</em> completed. Each invocation submits a batch
 * of {@value #BATCH} tasks from the calling producer thread and waits (parked) until all of them
 * have run ({@link Batch}); the score is ops/s. Queueing alone cannot inflate the number, since a
 * task counts only once it has run.
 *
 * <p><b>Producers</b> are JMH threads: {@link #producers1} runs on one thread, {@link #producers2}
 * on two, each with its own batch against the one shared pool, and JMH sums their throughput.
 * That is the honest way round: JMH starts and stops both producers' iterations together and
 * counts only completed batches, where producer threads of our own inside one invocation would
 * add a start barrier and wait for the slower one each batch.
 *
 * <p><b>Pools</b> ({@code pool}): {@code TPE} (ThreadPoolExecutor + LinkedBlockingQueue, core
 * threads prestarted), {@code FJP} (ForkJoinPool, {@code execute}), {@code TPE_SPIN} (the same
 * ThreadPoolExecutor on {@link SpinParkQueue}: the ceiling of any work queue under it, which is
 * what the engine is) and every Turntable strategy
 * with task stealing on and statistics off, all with {@value #WORKERS} workers (the machine has
 * two vCPUs). Created once per trial, shut down after it.
 *
 * <p><b>Tasks</b> ({@code task}): {@code NOOP}, or {@code WORK_10US}, a busy loop of
 * {@link org.openjdk.jmh.infra.Blackhole#consumeCPU} tokens calibrated to ~10 µs ({@link Work}).
 */
public class DispatchBenchmark extends PoolBenchmark {

    /** Tasks per producer per invocation. */
    public static final int BATCH = 1000;
    /** Worker threads of every pool. */
    public static final int WORKERS = 2;

    @Param({"TPE", "FJP", "TPE_SPIN", "ROUND_ROBIN", "LEAST_USED", "LEAST_BUSY", "LEAST_CPU", "FAIR_SHARE",
            "WEIGHTED_ROUND_ROBIN", "INTERLEAVED_WEIGHTED_ROUND_ROBIN", "LIFETIME_FIRST"})
    public String pool;

    @Param({"NOOP", "WORK_10US"})
    public String task;

    private long tokens;

    @Override
    protected ExecutorService createPool() {
        switch (task) {
            case "NOOP": tokens = 0; break;
            case "WORK_10US": tokens = Work.tokensFor(10_000); break;
            default: throw new IllegalArgumentException("unknown task " + task);
        }
        return Pools.create(pool, WORKERS, true, false);
    }

    @Benchmark
    @Threads(1)
    @OperationsPerInvocation(BATCH)
    public void producers1(Producer p) {
        p.batch.submitAndAwait(executor, BATCH, tokens);
    }

    @Benchmark
    @Threads(2)
    @OperationsPerInvocation(BATCH)
    public void producers2(Producer p) {
        p.batch.submitAndAwait(executor, BATCH, tokens);
    }
}
