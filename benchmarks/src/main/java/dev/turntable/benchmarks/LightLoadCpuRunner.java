package dev.turntable.benchmarks;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * What a pool costs in CPU when it is mostly idle: one thread submits tiny tasks at a fixed rate
 * (a tick every millisecond, {@code rate / 1000} tasks per tick), far below what the pool could
 * run, and the process's CPU time over the measured seconds is compared between pools. This is
 * the cost an application pays for its pools between bursts: a worker that spins or yields
 * before it parks burns CPU each time it runs out of work, where a {@code ThreadPoolExecutor}'s
 * worker parks at once.
 *
 * <pre>
 * mvn -B -q -o -DskipTests package -pl benchmarks -am
 * java -cp benchmarks/target/benchmarks.jar dev.turntable.benchmarks.LightLoadCpuRunner \
 *     [--rates 1000,10000,50000] [--seconds 3] [--rounds 3] [--warmup 3] [--workers 4] [--pools TPE,LEAST_USED]
 * </pre>
 *
 * <p>Pools are interleaved within each round, each fresh and warmed up at the same rate first
 * ({@code --warmup} seconds: at light load the JIT takes seconds to finish the engine's code). Prints one line per round, rate and pool (process CPU ms, of which the submitting
 * thread's, and tasks run), then per rate and pool the median process CPU and its ratio to the
 * first pool's median. Process CPU includes the JIT and the GC, which run alike for every pool
 * once warm; the submitting thread's share includes the wake-ups it does for the pool.
 */
public final class LightLoadCpuRunner {

    private LightLoadCpuRunner() {
    }

    public static void main(String[] args) throws Exception {
        int[] rates = {1_000, 10_000, 50_000};
        int seconds = 3;
        int rounds = 3;
        int workers = 4;
        int warmupSeconds = 3;
        String[] pools = {Pools.TPE, "LEAST_USED"};
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rates":
                    rates = Arrays.stream(args[++i].split(",")).mapToInt(LightLoadCpuRunner::rate).toArray();
                    break;
                case "--seconds":
                    seconds = positive("--seconds", args[++i]);
                    break;
                case "--rounds":
                    rounds = positive("--rounds", args[++i]);
                    break;
                case "--warmup":
                    warmupSeconds = positive("--warmup", args[++i]);
                    break;
                case "--workers":
                    workers = positive("--workers", args[++i]);
                    break;
                case "--pools":
                    pools = args[++i].split(",");
                    break;
                default:
                    throw new IllegalArgumentException("unknown option " + args[i]
                            + "; known: --rates --seconds --rounds --warmup --workers --pools");
            }
        }
        Map<String, List<Long>> cpuMillis = new LinkedHashMap<>();
        for (int round = 1; round <= rounds; round++) {
            for (int rate : rates) {
                for (int k = 0; k < pools.length; k++) {
                    String pool = pools[(k + round - 1) % pools.length]; // rotate who goes first
                    long[] m = measure(pool, workers, rate, warmupSeconds, seconds);
                    cpuMillis.computeIfAbsent(rate + " " + pool, x -> new ArrayList<>()).add(m[0]);
                    System.out.printf(Locale.ROOT, "r%d rate %d/s %s: process CPU %d ms (submitter %d ms), tasks %d%n",
                            round, rate, pool, m[0], m[1], m[2]);
                }
            }
        }
        System.out.printf(Locale.ROOT, "%nprocess CPU over %d s, %d workers, median of %d rounds (min-max), and × %s%n",
                seconds, workers, rounds, pools[0]);
        for (int rate : rates) {
            long base = median(cpuMillis.get(rate + " " + pools[0]));
            for (String pool : pools) {
                List<Long> v = cpuMillis.get(rate + " " + pool);
                long med = median(v);
                System.out.printf(Locale.ROOT, "rate %6d/s %-12s %5d ms (%d-%d)  %.2f×%n", rate, pool, med,
                        v.stream().mapToLong(Long::longValue).min().orElse(0),
                        v.stream().mapToLong(Long::longValue).max().orElse(0), base == 0 ? 0.0 : (double) med / base);
            }
        }
    }

    /** {process CPU ms, submitter CPU ms, tasks run} over {@code seconds} at {@code rate} tasks/s. */
    private static long[] measure(String pool, int workers, int rate, int warmupSeconds, int seconds) throws InterruptedException {
        ExecutorService executor = Pools.create(pool, workers, true, false);
        AtomicLong ran = new AtomicLong();
        Runnable task = ran::incrementAndGet;
        try {
            submitAt(executor, task, rate, warmupSeconds); // the JIT settles, every worker has run
            com.sun.management.OperatingSystemMXBean os =
                    (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
            java.lang.management.ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            long ranBefore = ran.get();
            long processBefore = os.getProcessCpuTime();
            long submitterBefore = threads.getCurrentThreadCpuTime();
            submitAt(executor, task, rate, seconds);
            long processNanos = os.getProcessCpuTime() - processBefore;
            long submitterNanos = threads.getCurrentThreadCpuTime() - submitterBefore;
            return new long[] {processNanos / 1_000_000, submitterNanos / 1_000_000, ran.get() - ranBefore};
        } finally {
            executor.shutdown();
            if (!executor.awaitTermination(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException(pool + " did not terminate");
            }
        }
    }

    /** Submits {@code rate / 1000} tasks every millisecond (by the clock, not drifting) for {@code seconds}. */
    private static void submitAt(ExecutorService executor, Runnable task, int rate, int seconds) {
        long tickNanos = 1_000_000;
        long ticks = seconds * 1000L;
        long perTick = rate / 1000; // rate(): a multiple of 1000
        long start = System.nanoTime();
        for (long t = 0; t < ticks; t++) {
            long due = start + t * tickNanos;
            long left;
            while ((left = due - System.nanoTime()) > 0) {
                LockSupport.parkNanos(left);
            }
            for (long j = 0; j < perTick; j++) {
                executor.execute(task);
            }
        }
    }

    private static long median(List<Long> values) {
        long[] v = values.stream().mapToLong(Long::longValue).sorted().toArray();
        return v.length == 0 ? 0 : v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    /** A rate the one-millisecond tick can pace exactly: a positive multiple of 1000 tasks/s. */
    private static int rate(String value) {
        int r = positive("--rates", value);
        if (r % 1000 != 0) {
            throw new IllegalArgumentException("--rates takes multiples of 1000 tasks/s (a tick per ms), not '"
                    + value.trim() + "'");
        }
        return r;
    }

    private static int positive(String option, String value) {
        try {
            int n = Integer.parseInt(value.trim());
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // fall through to the message below
        }
        throw new IllegalArgumentException(option + " takes positive integers, not '" + value + "'");
    }
}
