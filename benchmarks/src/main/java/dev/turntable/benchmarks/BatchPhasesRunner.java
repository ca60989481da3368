package dev.turntable.benchmarks;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Where a batch of {@code DispatchBenchmark.producers1} spends its time: the same rhythm (one
 * producer submits {@value #BATCH} no-op tasks, then parks until the last one has run and
 * unparks it), cut into three phases per batch:
 * <ul>
 *   <li><b>submit</b>: the producer's {@code execute} loop, first call to last return;</li>
 *   <li><b>drain</b>: from the last {@code execute}'s return to the end of the last task (what the
 *       workers still had to run once the producer stopped, plus any worker they had to wake);</li>
 *   <li><b>wake</b>: from the end of the last task (its {@code unpark}) to the producer running
 *       again: how long the producer waits for a CPU.</li>
 * </ul>
 * The JMH score is the batch size over the sum of the three; this runner says which of them a
 * pool's score comes from. It is a diagnostic, not a throughput claim: the clock reads it adds
 * (three per batch on the producer, one in the last task) are the same for every pool. Unlike
 * JMH, which forks a JVM per trial, every pool runs in this one JVM, so call sites they share
 * ({@code execute}) see all of them; the rotation of the order by round spreads that.
 *
 * <pre>
 * mvn -B -q -o -DskipTests package -pl benchmarks -am
 * java -Xms1g -Xmx1g -cp benchmarks/target/benchmarks.jar dev.turntable.benchmarks.BatchPhasesRunner \
 *     [--pools TPE,FJP,ROUND_ROBIN,LEAST_USED] [--seconds 4] [--rounds 2] [--workers 2]
 * </pre>
 *
 * <p>Pools are interleaved within each round, each fresh, its first second discarded (warm-up).
 * Prints per round and pool the throughput and the phases' p50 and p90 in µs. Threads: main only.
 */
public final class BatchPhasesRunner {

    /** Tasks per batch, as in {@link DispatchBenchmark#BATCH}. */
    static final int BATCH = DispatchBenchmark.BATCH;
    private static final long WARMUP_NANOS = 1_000_000_000L;

    private BatchPhasesRunner() {
    }

    public static void main(String[] args) throws Exception {
        String[] pools = {Pools.TPE, Pools.FJP, "ROUND_ROBIN", "LEAST_USED"};
        int seconds = 4;
        int rounds = 2;
        int workers = DispatchBenchmark.WORKERS;
        for (int i = 0; i < args.length; i++) {
            String value = i + 1 < args.length ? args[i + 1] : null;
            switch (args[i]) {
                case "--pools":
                    pools = required("--pools", value).split(",");
                    break;
                case "--seconds":
                    seconds = positive("--seconds", value);
                    break;
                case "--rounds":
                    rounds = positive("--rounds", value);
                    break;
                case "--workers":
                    workers = positive("--workers", value);
                    break;
                default:
                    throw new IllegalArgumentException("unknown option " + args[i]
                            + "; known: --pools --seconds --rounds --workers");
            }
            i++;
        }
        Map<String, List<Double>> rates = new LinkedHashMap<>();
        for (int round = 1; round <= rounds; round++) {
            for (int k = 0; k < pools.length; k++) {
                String pool = pools[(k + round - 1) % pools.length]; // rotate who goes first
                Phases p = measure(pool, workers, seconds);
                rates.computeIfAbsent(pool, x -> new ArrayList<>()).add(p.opsPerSecond);
                System.out.printf(Locale.ROOT,
                        "r%d %-34s %5.2f M ops/s  batches %6d  submit p50 %4d p90 %4d us  drain p50 %4d p90 %4d us"
                                + "  wake p50 %3d p90 %3d us%n",
                        round, pool, p.opsPerSecond / 1e6, p.batches, p.submit.p50(), p.submit.p90(),
                        p.drain.p50(), p.drain.p90(), p.wake.p50(), p.wake.p90());
            }
        }
        for (Map.Entry<String, List<Double>> e : rates.entrySet()) {
            double[] v = e.getValue().stream().mapToDouble(Double::doubleValue).sorted().toArray();
            double median = v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
            System.out.printf(Locale.ROOT, "median %-34s %5.2f M ops/s%n", e.getKey(), median / 1e6);
        }
    }

    private static Phases measure(String pool, int workers, int seconds) {
        ExecutorService executor = Pools.create(pool, workers, true, false);
        try {
            Timed batch = new Timed(Thread.currentThread());
            int capacity = seconds * 200_000; // > batches per second at 200 M ops/s
            Samples submit = new Samples(capacity);
            Samples drain = new Samples(capacity);
            Samples wake = new Samples(capacity);
            long start = System.nanoTime();
            long measureFrom = start + WARMUP_NANOS;
            long end = measureFrom + seconds * 1_000_000_000L;
            long measuredStart = 0;
            long tasks = 0;
            long now = start;
            while (now < end && submit.size < capacity) {
                batch.lastTaskEndNanos = 0; // before the first task can run: set by this batch's last
                batch.remaining.set(BATCH);
                long t0 = System.nanoTime();
                for (int i = 0; i < BATCH; i++) {
                    executor.execute(batch);
                }
                long t1 = System.nanoTime();
                batch.awaitAll(executor);
                now = System.nanoTime();
                if (t0 >= measureFrom) {
                    if (measuredStart == 0) {
                        measuredStart = t0;
                    }
                    long done = batch.lastTaskEndNanos;
                    submit.add(t1 - t0);
                    drain.add(Math.max(0, done - t1)); // 0: the workers had finished before the loop returned
                    wake.add(now - Math.max(done, t1));
                    tasks += BATCH;
                }
            }
            double opsPerSecond = tasks * 1e9 / Math.max(1, now - measuredStart);
            return new Phases(opsPerSecond, submit.size, submit, drain, wake);
        } finally {
            Pools.shutdown(executor);
        }
    }

    /** The batch's one task object: counts down, and the last one stamps the clock and unparks the producer. */
    private static final class Timed implements Runnable {
        final AtomicInteger remaining = new AtomicInteger();
        final Thread producer;
        /**
         * 0 while the batch runs; its last task's end, written by that task before its unpark. The
         * producer waits for this, not for {@code remaining}, which reaches 0 before the stamp.
         */
        volatile long lastTaskEndNanos;

        Timed(Thread producer) {
            this.producer = producer;
        }

        @Override
        public void run() {
            if (remaining.decrementAndGet() == 0) {
                long now = System.nanoTime();
                lastTaskEndNanos = now == 0 ? 1 : now;
                LockSupport.unpark(producer);
            }
        }

        void awaitAll(ExecutorService executor) {
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (lastTaskEndNanos == 0) {
                LockSupport.parkNanos(this, 100_000_000L);
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(remaining.get() + " tasks never completed in " + executor);
                }
            }
        }
    }

    /** One phase's durations, in ns. */
    private static final class Samples {
        final long[] nanos;
        int size;

        Samples(int capacity) {
            nanos = new long[capacity];
        }

        void add(long v) {
            nanos[size++] = v;
        }

        long p50() {
            return percentileMicros(50);
        }

        long p90() {
            return percentileMicros(90);
        }

        private long percentileMicros(int pct) {
            if (size == 0) {
                return -1;
            }
            long[] sorted = Arrays.copyOf(nanos, size);
            Arrays.sort(sorted);
            return sorted[(int) ((long) (size - 1) * pct / 100)] / 1000;
        }
    }

    private static final class Phases {
        final double opsPerSecond;
        final int batches;
        final Samples submit;
        final Samples drain;
        final Samples wake;

        Phases(double opsPerSecond, int batches, Samples submit, Samples drain, Samples wake) {
            this.opsPerSecond = opsPerSecond;
            this.batches = batches;
            this.submit = submit;
            this.drain = drain;
            this.wake = wake;
        }
    }

    private static String required(String option, String value) {
        if (value == null) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return value;
    }

    private static int positive(String option, String value) {
        try {
            int v = Integer.parseInt(required(option, value));
            if (v > 0) {
                return v;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(option + " '" + value + "' is not valid: expected a positive whole number");
    }
}
