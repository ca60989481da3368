package example.legacy;

import java.util.Arrays;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * An application that builds a pool per request: {@code Executors.newFixedThreadPool(2)}, one
 * task submitted and awaited, {@code shutdown()} and {@code awaitTermination}, over and over, on
 * the main thread. Prints two lines: {@code cold}, the wall time of the first {@code --cold}
 * pools of a fresh JVM (default 6,000), and {@code warm}, microseconds per pool (mean, then
 * median) of each phase over the next {@code --warm} pools (default 5,000) after
 * {@code --settle} more (default 20,000) have let the JIT finish. Run it in a fresh JVM per
 * measurement, with and without the agent: {@code benchmarks/pool-churn.sh} alternates them.
 * Outside {@code dev.turntable.*} on purpose, like {@link FirstBurst}. Main thread only.
 */
public final class PoolPerRequest {

    private PoolPerRequest() {
    }

    public static void main(String[] args) throws Exception {
        int cold = 6_000;
        int settle = 20_000;
        int warm = 5_000;
        for (int i = 0; i < args.length; i++) {
            String value = i + 1 < args.length ? args[i + 1] : null;
            switch (args[i]) {
                case "--cold" -> cold = count(args[i], value, 0);
                case "--settle" -> settle = count(args[i], value, 0);
                case "--warm" -> warm = count(args[i], value, 1);
                default -> throw new IllegalArgumentException(
                        "unknown argument " + args[i] + "; allowed: --cold N, --settle N, --warm N");
            }
            i++;
        }
        long start = System.nanoTime();
        for (int i = 0; i < cold; i++) {
            onePool(null, 0);
        }
        long coldMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        for (int i = 0; i < settle; i++) {
            onePool(null, 0);
        }
        long[][] phases = new long[3][warm]; // build, first task (submit and get), shutdown and await
        for (int i = 0; i < warm; i++) {
            onePool(phases, i);
        }
        System.out.printf("cold %d pools: %d ms%n", cold, coldMillis);
        System.out.printf("warm %d pools, us per pool (mean/median): build %s, first task %s, shutdown+await %s, all %s%n",
                warm, summary(phases[0]), summary(phases[1]), summary(phases[2]),
                summary(sum(phases)));
    }

    private static void onePool(long[][] phases, int i) throws Exception {
        long t0 = System.nanoTime();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        long t1 = System.nanoTime();
        Future<Integer> f = pool.submit(() -> 1);
        f.get();
        long t2 = System.nanoTime();
        pool.shutdown();
        if (!pool.awaitTermination(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("a pool did not terminate within 10 s");
        }
        long t3 = System.nanoTime();
        if (phases != null) {
            phases[0][i] = t1 - t0;
            phases[1][i] = t2 - t1;
            phases[2][i] = t3 - t2;
        }
    }

    private static long[] sum(long[][] phases) {
        long[] all = new long[phases[0].length];
        for (long[] p : phases) {
            for (int i = 0; i < all.length; i++) {
                all[i] += p[i];
            }
        }
        return all;
    }

    private static String summary(long[] nanos) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        double mean = Arrays.stream(sorted).average().orElse(0) / 1000;
        return String.format("%.1f/%.1f", mean, sorted[sorted.length / 2] / 1000.0);
    }

    private static int count(String option, String value, int min) {
        int n;
        try {
            n = Integer.parseInt(value);
        } catch (NumberFormatException | NullPointerException e) {
            throw new IllegalArgumentException(option + " needs a whole number, not " + value);
        }
        if (n < min) {
            throw new IllegalArgumentException(option + " must be at least " + min + ", not " + n);
        }
        return n;
    }
}
