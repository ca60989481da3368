package dev.turntable.benchmarks;

import dev.turntable.pool.TurntableExecutor;
import dev.turntable.pool.TurntableQueue;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * How many threads a cached pool ({@code Executors.newCachedThreadPool}: core 0, no maximum,
 * 60 s keep-alive, direct hand-off) makes when one thread runs {@code submit(task).get()} in a
 * loop, and how long the loop takes: on a plain {@code SynchronousQueue}, and on Turntable's
 * engine in hand-off mode, both as a plain {@code ThreadPoolExecutor} around a
 * {@code TurntableQueue} (what the agent builds) and as a {@link TurntableExecutor}; pool
 * {@code CACHED} is {@code Executors.newCachedThreadPool()} itself, for a run under the agent
 * ({@code -javaagent:agent/target/turntable-agent.jar}).
 *
 * <p>Every failed hand-off makes {@code ThreadPoolExecutor} start a thread, so the largest pool
 * size counts the hand-offs that found no idle worker. Each run uses a fresh pool; the pools are
 * interleaved within each round so that a busy neighbour on a shared machine hits them alike.
 *
 * <pre>
 * mvn -B -q -o -DskipTests package -pl benchmarks -am
 * java -cp benchmarks/target/benchmarks.jar dev.turntable.benchmarks.HandOffThreadsRunner \
 *     [--calls 50,200,5000] [--rounds 5] [--pools JDK,ENGINE_TPE,ENGINE_EXEC] [--strategy LEAST_USED] \
 *     [--warmup 2000]
 * </pre>
 *
 * <p>{@code --warmup 0 --rounds 1 --pools X} in a fresh JVM per pool measures cold code, as an
 * application's first calls run it (the interpreter makes every path between two tasks longer).
 *
 * <p>Prints one line per pool, call count and round, then per pool and call count the median
 * and the range of the largest pool size and of the elapsed time.
 */
public final class HandOffThreadsRunner {

    private HandOffThreadsRunner() {
    }

    public static void main(String[] args) throws Exception {
        int[] calls = {50, 200, 5000};
        int rounds = 5;
        String[] pools = {"JDK", "ENGINE_TPE", "ENGINE_EXEC"};
        String strategy = null;
        int warmup = 2000;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--calls":
                    String[] c = args[++i].split(",");
                    calls = new int[c.length];
                    for (int j = 0; j < c.length; j++) {
                        calls[j] = Integer.parseInt(c[j].trim());
                    }
                    break;
                case "--rounds":
                    rounds = Integer.parseInt(args[++i]);
                    break;
                case "--pools":
                    pools = args[++i].split(",");
                    break;
                case "--warmup":
                    warmup = Integer.parseInt(args[++i]);
                    break;
                case "--strategy":
                    strategy = args[++i];
                    break;
                default:
                    throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        // Warm-up (JIT), discarded; --warmup 0 measures a cold JVM, as an application's first calls are.
        for (String p : pools) {
            if (warmup > 0) {
                run(p, strategy, warmup);
            }
        }
        long[][][] threads = new long[pools.length][calls.length][rounds];
        long[][][] micros = new long[pools.length][calls.length][rounds];
        for (int r = 0; r < rounds; r++) {
            for (int k = 0; k < calls.length; k++) {
                for (int pi = 0; pi < pools.length; pi++) {
                    int p = (pi + r) % pools.length; // rotate the order each round
                    long[] res = run(pools[p], strategy, calls[k]);
                    threads[p][k][r] = res[0];
                    micros[p][k][r] = res[1];
                    System.out.printf(Locale.ROOT, "round %d %-12s calls %5d: largest pool %3d, %8.1f ms%n",
                            r, pools[p], calls[k], res[0], res[1] / 1000.0);
                }
            }
        }
        System.out.println();
        System.out.println("pool         calls  threads median [min..max]   ms median [min..max]");
        for (int p = 0; p < pools.length; p++) {
            for (int k = 0; k < calls.length; k++) {
                long[] t = threads[p][k].clone();
                long[] m = micros[p][k].clone();
                java.util.Arrays.sort(t);
                java.util.Arrays.sort(m);
                System.out.printf(Locale.ROOT, "%-12s %5d  %4d [%d..%d]            %8.1f [%.1f..%.1f]%n",
                        pools[p], calls[k], t[t.length / 2], t[0], t[t.length - 1],
                        m[m.length / 2] / 1000.0, m[0] / 1000.0, m[m.length - 1] / 1000.0);
            }
        }
    }

    /** One fresh pool, {@code calls} sequential {@code submit().get()}: {largest pool, elapsed µs}. */
    static long[] run(String pool, String strategy, int calls) throws InterruptedException, ExecutionException {
        ThreadPoolExecutor tpe = create(pool, strategy);
        try {
            List<Integer> sink = new ArrayList<>(1);
            long start = System.nanoTime();
            for (int i = 0; i < calls; i++) {
                int n = i;
                sink.add(tpe.submit(() -> n * 31).get());
                sink.clear();
            }
            long elapsed = System.nanoTime() - start;
            return new long[] {tpe.getLargestPoolSize(), elapsed / 1000};
        } finally {
            tpe.shutdownNow();
            tpe.awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    static ThreadPoolExecutor create(String pool, String strategy) {
        switch (pool) {
            case "JDK":
                return new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS, new SynchronousQueue<>());
            case "CACHED":
                // Built outside dev.turntable.*, or the agent would leave it alone as Turntable's own.
                return example.legacy.LegacyPools.newCachedThreadPool();
            case "ENGINE_TPE": {
                dev.turntable.pool.TurntableQueueBuilder b = TurntableQueue.builder().handOff().expectedWorkers(1024);
                if (strategy != null) {
                    b.strategy(strategy);
                }
                return new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS, b.build());
            }
            case "ENGINE_EXEC": {
                TurntableExecutor.Builder b = TurntableExecutor.builder().workers(1)
                        .maximumWorkers(Integer.MAX_VALUE).keepAlive(60, TimeUnit.SECONDS)
                        .allowCoreThreadTimeOut(true).handOff();
                if (strategy != null) {
                    b.strategy(strategy);
                }
                return b.build();
            }
            default:
                throw new IllegalArgumentException("unknown pool " + pool + ": JDK, CACHED, ENGINE_TPE or ENGINE_EXEC");
        }
    }
}
