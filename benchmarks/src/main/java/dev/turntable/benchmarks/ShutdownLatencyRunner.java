package dev.turntable.benchmarks;

import dev.turntable.pool.TurntableQueue;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * How long {@code shutdownNow()} takes to terminate a pool whose workers have just gone idle
 * (200 no-op tasks submitted and awaited, then {@code shutdownNow()} and
 * {@code awaitTermination}), and, for a burst into a fresh pool, how often it is rejected: a
 * {@code ThreadPoolExecutor(2, 4)} on a {@code LinkedBlockingQueue}, and the same on Turntable's
 * engine (what the agent builds), interleaved per round in the same JVM.
 *
 * <p>The burst is Spring's {@code ThreadPoolTaskExecutor} shape: core 2, maximum 4, a queue of
 * 100 places, 200 tasks submitted back to back into a pool that has no thread yet; the threads'
 * start races the submitter, so even the plain pool rejects now and then.
 *
 * <pre>
 * mvn -B -q -o -DskipTests package -pl benchmarks -am
 * java -cp benchmarks/target/benchmarks.jar dev.turntable.benchmarks.ShutdownLatencyRunner [--rounds 400]
 * </pre>
 *
 * <p>Prints per pool the p10, p50, p90 and maximum of the time to terminate, in microseconds,
 * and the bursts rejected, each over the last three quarters of the rounds (the first quarter
 * warms the code up).
 */
public final class ShutdownLatencyRunner {

    private ShutdownLatencyRunner() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = 400;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--rounds")) {
                rounds = Integer.parseInt(args[++i]);
            } else {
                throw new IllegalArgumentException("unknown argument " + args[i] + "; allowed: --rounds N");
            }
        }
        String[] pools = {"TPE", "ENGINE_TPE"};
        long[][] terminateMicros = new long[pools.length][rounds];
        int[] rejected = new int[pools.length];
        int from = rounds / 4;
        for (int r = 0; r < rounds; r++) {
            for (int p = 0; p < pools.length; p++) {
                terminateMicros[p][r] = terminate(queue(pools[p], 1000));
                if (burstRejected(queue(pools[p], 100)) && r >= from) {
                    rejected[p]++;
                }
            }
        }
        for (int p = 0; p < pools.length; p++) {
            long[] t = Arrays.copyOfRange(terminateMicros[p], from, rounds);
            Arrays.sort(t);
            System.out.println(String.format(Locale.ROOT,
                    "%-10s shutdownNow to terminated, idle workers: p10 %d us, p50 %d us, p90 %d us, max %d us;"
                            + " bursts rejected %d of %d",
                    pools[p], t[t.length / 10], t[t.length / 2], t[t.length * 9 / 10], t[t.length - 1],
                    rejected[p], rounds - from));
        }
    }

    private static BlockingQueue<Runnable> queue(String pool, int places) {
        return pool.equals("TPE") ? new LinkedBlockingQueue<>(places)
                : TurntableQueue.builder().bounded(places).expectedWorkers(4).build();
    }

    private static long terminate(BlockingQueue<Runnable> q) throws Exception {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(4, 4, 60, TimeUnit.SECONDS, q);
        List<Future<?>> done = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            done.add(pool.submit(() -> { }));
        }
        for (Future<?> f : done) {
            f.get();
        }
        long start = System.nanoTime();
        pool.shutdownNow();
        if (!pool.awaitTermination(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("a pool did not terminate within 10 s");
        }
        return (System.nanoTime() - start) / 1000;
    }

    private static boolean burstRejected(BlockingQueue<Runnable> q) throws Exception {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(2, 4, 60, TimeUnit.SECONDS, q);
        boolean rejected = false;
        try {
            for (int i = 0; i < 200; i++) {
                pool.execute(() -> { });
            }
        } catch (java.util.concurrent.RejectedExecutionException e) {
            rejected = true;
        }
        pool.shutdownNow();
        if (!pool.awaitTermination(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("a pool did not terminate within 10 s");
        }
        return rejected;
    }
}
