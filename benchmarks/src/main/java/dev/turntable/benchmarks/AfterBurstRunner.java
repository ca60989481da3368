package dev.turntable.benchmarks;

import dev.turntable.pool.TurntableQueue;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a cached pool ({@code ThreadPoolExecutor(0, MAX, keepAlive, hand-off queue)}) is like after
 * a burst made it grow: on a plain {@code SynchronousQueue} ({@code JDK}) and on Turntable's engine
 * in hand-off mode with a strategy ({@code ENGINE}), the pools interleaved within each round.
 *
 * <p>Two measures, each on a fresh pool per pool and round:
 * <ul>
 *   <li>{@code --mode shrink}: a burst of {@code --peak} blocking tasks, then one tiny task every
 *       5 ms (about 200 a second) for {@code --seconds}; prints the pool size at each second.
 *       A {@code SynchronousQueue} gives each task to the worker that went idle last, so the
 *       others time out after the keep-alive.</li>
 *   <li>{@code --mode calls}: the same burst, then (once every thread is idle, or, with a keep-alive
 *       shorter than a minute, once they have all left) {@code --callers} threads each in a
 *       {@code submit(noop).get()} loop for {@code --seconds}; prints calls per second and the ratio
 *       ENGINE ÷ JDK of each round. What a strategy's choice costs when it reads every idle worker,
 *       or every slot the burst left.</li>
 * </ul>
 *
 * <pre>
 * mvn -B -q -DskipTests package -pl benchmarks -am
 * java -cp benchmarks/target/benchmarks.jar dev.turntable.benchmarks.AfterBurstRunner \
 *     --mode shrink --strategies ROUND_ROBIN,LEAST_CPU --peak 200 --keep-alive-seconds 2 --seconds 8
 * java -cp benchmarks/target/benchmarks.jar dev.turntable.benchmarks.AfterBurstRunner \
 *     --mode calls --strategies FAIR_SHARE --peak 1000 --keep-alive-seconds 1 --callers 4 --seconds 2 --rounds 3
 * </pre>
 *
 * <p>Not a JMH benchmark: it measures thread counts and the call rate of one application shape,
 * with a noisy neighbour hitting both pools of a round alike; compare ratios within a round.
 */
public final class AfterBurstRunner {

    private AfterBurstRunner() {
    }

    public static void main(String[] args) throws Exception {
        String mode = "shrink";
        String[] strategies = {"LEAST_USED", "ROUND_ROBIN"};
        int peak = 200;
        long keepAliveSeconds = 2;
        int callers = 4;
        int seconds = 8;
        int rounds = 1;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--mode": mode = args[++i]; break;
                case "--strategies": strategies = args[++i].split(","); break;
                case "--peak": peak = Integer.parseInt(args[++i]); break;
                case "--keep-alive-seconds": keepAliveSeconds = Long.parseLong(args[++i]); break;
                case "--callers": callers = Integer.parseInt(args[++i]); break;
                case "--seconds": seconds = Integer.parseInt(args[++i]); break;
                case "--rounds": rounds = Integer.parseInt(args[++i]); break;
                default: throw new IllegalArgumentException("unknown option " + args[i]
                        + " (--mode shrink|calls, --strategies, --peak, --keep-alive-seconds, --callers, --seconds, --rounds)");
            }
        }
        if (!mode.equals("shrink") && !mode.equals("calls")) {
            throw new IllegalArgumentException("--mode is " + mode + "; allowed: shrink, calls");
        }
        for (String strategy : strategies) {
            List<Double> ratios = new ArrayList<>();
            for (int r = 0; r < rounds; r++) {
                double jdkRate = 0;
                double engineRate = 0;
                // Alternate which pool goes first, so that a neighbour's spell hits both alike.
                for (String pool : r % 2 == 0 ? new String[] {"JDK", "ENGINE"} : new String[] {"ENGINE", "JDK"}) {
                    ThreadPoolExecutor p = new ThreadPoolExecutor(0, Integer.MAX_VALUE, keepAliveSeconds, TimeUnit.SECONDS,
                            queue(pool, strategy));
                    try {
                        burst(p, peak);
                        if (mode.equals("shrink")) {
                            System.out.printf(Locale.ROOT, "round %d %-6s %-32s pool size per second: %s%n",
                                    r, pool, strategy, shrink(p, seconds));
                        } else {
                            afterBurst(p, keepAliveSeconds);
                            double perSecond = calls(p, callers, seconds);
                            System.out.printf(Locale.ROOT, "round %d %-6s %-32s %,10.0f calls/s%n", r, pool, strategy, perSecond);
                            if (pool.equals("JDK")) {
                                jdkRate = perSecond;
                            } else {
                                engineRate = perSecond;
                            }
                        }
                    } finally {
                        p.shutdownNow();
                        p.awaitTermination(10, TimeUnit.SECONDS);
                    }
                }
                if (mode.equals("calls")) {
                    ratios.add(engineRate / jdkRate);
                }
            }
            if (!ratios.isEmpty()) {
                double[] sorted = ratios.stream().mapToDouble(Double::doubleValue).sorted().toArray();
                System.out.printf(Locale.ROOT, "%s: ENGINE / JDK per round %s, median %.2f%n", strategy,
                        ratios.stream().map(x -> String.format(Locale.ROOT, "%.2f", x)).toList(), sorted[sorted.length / 2]);
            }
        }
    }

    private static BlockingQueue<Runnable> queue(String pool, String strategy) {
        if (pool.equals("JDK")) {
            return new SynchronousQueue<>();
        }
        return TurntableQueue.builder().handOff().strategy(strategy).expectedWorkers(1024).build();
    }

    /** {@code n} tasks that all hold a thread at once, released together once all run. */
    private static void burst(ThreadPoolExecutor p, int n) throws InterruptedException {
        if (p.getQueue() instanceof TurntableQueue) {
            ((TurntableQueue) p.getQueue()).setOwner(p); // as TurntableExecutor and the agent do
        }
        CountDownLatch in = new CountDownLatch(n);
        CountDownLatch go = new CountDownLatch(1);
        for (int i = 0; i < n; i++) {
            p.execute(() -> {
                in.countDown();
                try {
                    go.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        in.await();
        go.countDown();
    }

    /** One tiny task every 5 ms for {@code seconds}; the pool size at each second. */
    private static String shrink(ThreadPoolExecutor p, int seconds) throws InterruptedException {
        StringBuilder sizes = new StringBuilder();
        long start = System.nanoTime();
        for (int s = 0; s <= seconds; s++) {
            long end = start + TimeUnit.SECONDS.toNanos(s);
            while (System.nanoTime() < end) {
                p.execute(() -> { });
                Thread.sleep(5);
            }
            sizes.append(p.getPoolSize()).append(' ');
        }
        return sizes.toString().trim();
    }

    /** Until the burst's tasks are done; with a keep-alive under a minute, until its threads have left too. */
    private static void afterBurst(ThreadPoolExecutor p, long keepAliveSeconds) throws InterruptedException {
        while (p.getActiveCount() > 0) {
            Thread.sleep(10); // a benchmark's pacing, not a test's wait
        }
        if (keepAliveSeconds < 60) {
            while (p.getPoolSize() > 0) {
                Thread.sleep(50);
            }
        }
    }

    /** {@code callers} threads in a {@code submit(noop).get()} loop for {@code seconds}: calls per second. */
    private static double calls(ThreadPoolExecutor p, int callers, int seconds) throws InterruptedException {
        AtomicLong done = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        Thread[] threads = new Thread[callers];
        for (int i = 0; i < callers; i++) {
            threads[i] = new Thread(() -> {
                long n = 0;
                try {
                    while (!stop.get()) {
                        p.submit(() -> { }).get();
                        n++;
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                done.addAndGet(n);
            });
        }
        long start = System.nanoTime();
        for (Thread t : threads) {
            t.start();
        }
        Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));
        stop.set(true);
        for (Thread t : threads) {
            t.join();
        }
        return done.get() * 1e9 / (System.nanoTime() - start);
    }
}
