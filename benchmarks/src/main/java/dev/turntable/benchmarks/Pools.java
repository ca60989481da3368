package dev.turntable.benchmarks;

import dev.turntable.pool.TurntableExecutor;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The pools under comparison, by the names the benchmarks take as parameters: {@value #TPE}, a
 * {@code ThreadPoolExecutor} on a {@code LinkedBlockingQueue} with its core threads prestarted
 * (what {@code Executors.newFixedThreadPool} builds); {@value #FJP}, a {@code ForkJoinPool} of
 * the same parallelism used through {@code execute}; or any Turntable strategy name, a
 * {@link TurntableExecutor} with that strategy.
 */
public final class Pools {

    public static final String TPE = "TPE";
    public static final String FJP = "FJP";
    /**
     * The ceiling of any work queue under a ThreadPoolExecutor: a {@code ThreadPoolExecutor} on
     * {@link SpinParkQueue}, the cheapest blocking queue we could write (see its javadoc).
     */
    public static final String TPE_SPIN = "TPE_SPIN";
    /** A {@code ThreadPoolExecutor} on the JDK's lock-free {@code LinkedTransferQueue}. */
    public static final String TPE_LTQ = "TPE_LTQ";
    /** {@code Executors.newCachedThreadPool()}: a {@code SynchronousQueue}, no core threads. */
    public static final String CACHED = "CACHED";
    /** The same shape on the engine: {@code handOff()}, one core thread that times out too, 60 s keep-alive. */
    public static final String CACHED_TURNTABLE = "CACHED_TURNTABLE";
    /** {@code workers} fixed threads on a {@code SynchronousQueue}, the caller running what finds none idle. */
    public static final String SYNC_FIXED = "SYNC_FIXED";
    /** The same shape on the engine: {@code handOff()}, {@code workers} fixed threads, caller runs. */
    public static final String SYNC_FIXED_TURNTABLE = "SYNC_FIXED_TURNTABLE";
    /** {@link #TPE_SPIN} on JCTools' field-updater queue, the variant Turntable's workers use. */
    public static final String TPE_SPIN_ATOMIC = "TPE_SPIN_ATOMIC";
    /**
     * {@code LEAST_USED} with task classes on ({@code work:75;other:25}, every submitter in
     * {@code work}): what a pool pays for classes (a wrapper and a scheduling pass per offer and
     * per completed task, two clock reads per task). Not in the benchmarks' default parameters;
     * run it with {@code ab.sh} or {@code -p pool=CLASSES}.
     */
    public static final String CLASSES = "CLASSES";

    /** The built-in strategies, as {@code getAvailableStrategies()} lists them. */
    public static final List<String> STRATEGIES = List.of("ROUND_ROBIN", "LEAST_USED", "LEAST_BUSY",
            "LEAST_CPU", "FAIR_SHARE", "WEIGHTED_ROUND_ROBIN", "INTERLEAVED_WEIGHTED_ROUND_ROBIN",
            "LIFETIME_FIRST");

    private Pools() {
    }

    /**
     * {@code -Dturntable.bench.workerQueueCapacity=N}: the strategy pools' per-worker queue
     * capacity, for A/B runs of one jar against itself ({@code ab.sh LABEL=JAR:-D...}); unset or
     * 0, the engine's default (1,024).
     */
    static final int WORKER_QUEUE_CAPACITY = Integer.getInteger("turntable.bench.workerQueueCapacity", 0);

    /**
     * A pool of {@code workers} threads.
     *
     * @param stealing   Turntable only: task stealing on or off
     * @param histograms Turntable only: latency histograms (statistics) on or off
     */

    public static ExecutorService create(String name, int workers, boolean stealing, boolean histograms) {
        switch (name) {
            case TPE:
                return prestartedTpe(workers, new LinkedBlockingQueue<>());
            case FJP:
                return new ForkJoinPool(workers);
            case TPE_SPIN:
                return prestartedTpe(workers, new SpinParkQueue(false));
            case TPE_SPIN_ATOMIC:
                return prestartedTpe(workers, new SpinParkQueue(true));
            case CACHED:
                return java.util.concurrent.Executors.newCachedThreadPool();
            case CACHED_TURNTABLE:
                return TurntableExecutor.builder().workers(1).allowCoreThreadTimeOut(true).maximumWorkers(Integer.MAX_VALUE)
                        .keepAlive(60, TimeUnit.SECONDS).handOff().build();
            case SYNC_FIXED: {
                ThreadPoolExecutor tpe = new ThreadPoolExecutor(workers, workers, 0L, TimeUnit.MILLISECONDS,
                        new java.util.concurrent.SynchronousQueue<>(), new ThreadPoolExecutor.CallerRunsPolicy());
                tpe.prestartAllCoreThreads();
                return tpe;
            }
            case SYNC_FIXED_TURNTABLE:
                return TurntableExecutor.builder().workers(workers).handOff()
                        .rejectionHandler(new ThreadPoolExecutor.CallerRunsPolicy()).build();
            case TPE_LTQ:
                return prestartedTpe(workers, new LinkedTransferQueue<>());
            case CLASSES: {
                TurntableExecutor p = TurntableExecutor.builder().workers(workers).strategy("LEAST_USED")
                        .taskStealing(stealing).latencyHistograms(histograms).build();
                p.getTurntableQueue().setTaskClasses("work:75;other:25", ".*:work");
                return p;
            }
            default: {
                TurntableExecutor.Builder b = TurntableExecutor.builder()
                        .workers(workers)
                        .strategy(name)
                        .taskStealing(stealing)
                        .latencyHistograms(false);
                if (WORKER_QUEUE_CAPACITY > 0) {
                    b.workerQueueCapacity(WORKER_QUEUE_CAPACITY);
                }
                TurntableExecutor p = b.build();
                if (!p.getAvailableStrategies().containsAll(STRATEGIES)) {
                    throw new IllegalStateException("strategies changed: " + p.getAvailableStrategies());
                }
                p.getTurntableQueue().setLatencyHistograms(histograms);
                return p;
            }
        }
    }

    /**
     * {@code workers} fixed threads, all started, on {@code queue}: what
     * {@code Executors.newFixedThreadPool} builds, with the queue the only difference between the
     * ThreadPoolExecutor pools compared.
     */
    private static ThreadPoolExecutor prestartedTpe(int workers, BlockingQueue<Runnable> queue) {
        ThreadPoolExecutor tpe = new ThreadPoolExecutor(workers, workers, 0L, TimeUnit.MILLISECONDS, queue);
        tpe.prestartAllCoreThreads();
        return tpe;
    }

    /** Shuts {@code pool} down and waits for its threads; fails loudly if it does not stop. */
    public static void shutdown(ExecutorService pool) {
        if (pool == null) {
            return;
        }
        pool.shutdown();
        try {
            if (!pool.awaitTermination(30, TimeUnit.SECONDS)) {
                // Say where the pool's threads were before shutdownNow ends them: a pool that
                // does not terminate after shutdown() is a bug worth a stack trace.
                StringBuilder dump = new StringBuilder();
                String queued = pool instanceof ThreadPoolExecutor
                        ? " size()=" + ((ThreadPoolExecutor) pool).getQueue().size() : "";
                Thread.getAllStackTraces().forEach((t, frames) -> {
                    if (t.getName().startsWith("pool-")) {
                        dump.append('\n').append(t.getName()).append(' ').append(t.getState());
                        for (int i = 0; i < Math.min(12, frames.length); i++) {
                            dump.append("\n    at ").append(frames[i]);
                        }
                    }
                });
                String before = pool + queued;
                pool.shutdownNow();
                throw new IllegalStateException("pool did not terminate in 30 s: " + before + dump);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            pool.shutdownNow();
        }
    }
}
