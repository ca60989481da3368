package dev.turntable.benchmarks.sim;

import dev.turntable.benchmarks.HeterogeneousLatencyBenchmark;
import dev.turntable.pool.stats.ResidualTimeTable;
import dev.turntable.pool.stats.TaskTimeWindow;
import dev.turntable.pool.stats.TaskTimeWindows;
import dev.turntable.pool.strategy.StrategyRegistry;
import dev.turntable.pool.strategy.WorkerChoiceStrategy;
import dev.turntable.pool.strategy.WorkerView;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.HdrHistogram.Histogram;

/**
 * A discrete-event simulator of the heterogeneous-latency benchmark's workload, for judging a
 * worker choice strategy's <em>placement</em> without the machine's noise: the real strategy
 * classes choose on a simulated {@link WorkerView}, in simulated time, with no dispatch cost, no
 * scheduler and no other processes. Single-threaded; one instance per run.
 *
 * <p>The workload is {@link HeterogeneousLatencyBenchmark}'s: {@value #WORKERS} workers, tasks
 * arriving at even intervals for the offered load, 95% lasting 10 µs and 5% lasting 1 ms, long
 * or short drawn from a seeded random sequence (the same sequence for every policy of a seed),
 * each length spread by a uniform factor of {@code 1 ± jitter} (default 10%: measured task times
 * are never exact, and a model without any spread flatters predictions).
 * A worker runs its own queue in FIFO order; with stealing on, a worker that goes idle takes the
 * oldest task of the longest other queue (an idealised thief, which never misses). The
 * reference, {@code TPE}, is one shared FIFO queue served by whichever worker is free: a
 * ThreadPoolExecutor on a LinkedBlockingQueue without its costs. A second reference,
 * {@value IdealFairShare#NAME}, is fair share with a perfect remaining-time prediction: the bound
 * on what any placement by predicted end can reach.
 *
 * <p>Each worker's estimate is a {@link TaskTimeWindows} window over its completed tasks' run
 * times ({@code median} picks the moving median), updated when a task ends, with a
 * {@link ResidualTimeTable} over it rebuilt on the engine's schedule; the pool estimate is
 * the mean of the workers' non-zero estimates, as the engine publishes it. What is left out:
 * dispatch and wake-up costs (the engine's ~20-30 µs at p50 on this machine), the 1-in-8 wait
 * sampling and CPU time (LEAST_CPU sees run time as CPU time).
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.turntable.benchmarks.sim.StrategySimulator \
 *     [--seeds 20] [--tasks 12000] [--loads 0.25,0.40] [--median] [--jitter 0.1] [--strategies FAIR_SHARE,...]
 * </pre>
 */
public final class StrategySimulator {

    static final int WORKERS = HeterogeneousLatencyBenchmark.WORKERS;
    static final long SHORT_NANOS = HeterogeneousLatencyBenchmark.SHORT_NANOS;
    static final long LONG_NANOS = HeterogeneousLatencyBenchmark.LONG_NANOS;
    static final double LONG_FRACTION = HeterogeneousLatencyBenchmark.LONG_FRACTION;
    static final long MEAN_NANOS = HeterogeneousLatencyBenchmark.MEAN_SERVICE_NANOS;

    /** The shared-queue reference policy's name. */
    public static final String TPE = "TPE";

    /** Short-task latency percentiles of one simulated segment, in microseconds. */
    public static final class Outcome {
        public final double p50Micros;
        public final double p99Micros;
        public final double p999Micros;

        Outcome(Histogram h) {
            this.p50Micros = h.getValueAtPercentile(50) / 1000.0;
            this.p99Micros = h.getValueAtPercentile(99) / 1000.0;
            this.p999Micros = h.getValueAtPercentile(99.9) / 1000.0;
        }
    }

    private static final class Task {
        final long arrivalNanos;
        final long durationNanos;
        final boolean recorded;
        final boolean isShort;

        Task(long arrivalNanos, long durationNanos, boolean recorded, boolean isShort) {
            this.arrivalNanos = arrivalNanos;
            this.durationNanos = durationNanos;
            this.recorded = recorded;
            this.isShort = isShort;
        }
    }

    /** One simulated worker: its FIFO queue, the task it runs and its estimate window. */
    private static final class Worker {
        final ArrayDeque<Task> queue = new ArrayDeque<>();
        final TaskTimeWindow window;
        final ResidualTimeTable residuals;
        Task running;
        long runningSinceNanos;
        long endNanos = Long.MAX_VALUE;
        long completed;
        long runTimeTotalNanos;
        long waitTimeTotalNanos;

        Worker(boolean median, int windowSize) {
            window = TaskTimeWindows.create(median, windowSize);
            residuals = new ResidualTimeTable(windowSize);
        }
    }

    /** The strategies' view of the simulated workers: every worker exists and is available. */
    private static final class View implements WorkerView {
        private final Worker[] workers;

        View(Worker[] workers) {
            this.workers = workers;
        }

        @Override public int count() { return workers.length; }
        @Override public boolean isAvailable(int worker) { return true; }
        @Override public int queued(int worker) { return workers[worker].queue.size(); }
        @Override public int running(int worker) { return workers[worker].running == null ? 0 : 1; }
        @Override public long completed(int worker) { return workers[worker].completed; }
        @Override public long lifetimeTasks(int worker) {
            Worker w = workers[worker];
            return w.completed + running(worker) + w.queue.size();
        }
        @Override public long runTimeTotalNanos(int worker) { return workers[worker].runTimeTotalNanos; }
        @Override public long waitTimeTotalNanos(int worker) { return workers[worker].waitTimeTotalNanos; }
        @Override public long cpuTimeNanos(int worker) { return workers[worker].runTimeTotalNanos; }
        @Override public long runningSinceNanos(int worker) { return workers[worker].runningSinceNanos; }
        @Override public long taskTimeEstimateNanos(int worker) { return workers[worker].window.estimateNanos(); }
        @Override public long remainingTimeNanos(int worker, long elapsedNanos) {
            return workers[worker].residuals.remainingNanos(elapsedNanos);
        }
        @Override public long poolTaskTimeEstimateNanos() {
            long sum = 0;
            int n = 0;
            for (Worker w : workers) {
                long e = w.window.estimateNanos();
                if (e > 0) {
                    sum += e;
                    n++;
                }
            }
            return n == 0 ? 0 : sum / n;
        }
        @Override public long weightNanos(int worker) { return 10_000_000L; }
    }

    private StrategySimulator() {
    }

    /**
     * Simulates one segment: {@code warmup + tasks} arrivals at {@code load}, the first
     * {@code warmup} not recorded, and returns the short tasks' submit-to-end percentiles.
     *
     * @param policy   {@value #TPE}, {@value IdealFairShare#NAME} or a built-in strategy name
     * @param stealing whether an idle worker takes from the longest other queue (ignored for TPE)
     * @param jitter   each task lasts its nominal time times a uniform factor in {@code 1 ± jitter}
     */
    public static Outcome run(String policy, boolean stealing, boolean median, double jitter, double load,
                              int warmup, int tasks, long seed) {
        long interval = HeterogeneousLatencyBenchmark.intervalNanos(load);
        SplittableRandom random = new SplittableRandom(seed);
        Histogram shortLatency = new Histogram(3_600_000_000_000L, 3);
        Worker[] workers = new Worker[WORKERS];
        for (int i = 0; i < WORKERS; i++) {
            workers[i] = new Worker(median, TaskTimeWindows.DEFAULT_WINDOW);
        }
        boolean shared = TPE.equals(policy);
        WorkerChoiceStrategy strategy = shared ? null
                : IdealFairShare.NAME.equals(policy) ? new IdealFairShare(MEAN_NANOS)
                : StrategyRegistry.builtIn().create(policy);
        View view = new View(workers);
        ArrayDeque<Task> sharedQueue = new ArrayDeque<>();
        int total = warmup + tasks;
        int arrived = 0;
        long nextArrival = 0;
        while (true) {
            int ending = -1;
            long endNanos = Long.MAX_VALUE;
            for (int i = 0; i < WORKERS; i++) {
                if (workers[i].endNanos < endNanos) {
                    endNanos = workers[i].endNanos;
                    ending = i;
                }
            }
            if (arrived < total && nextArrival <= endNanos) {
                long now = nextArrival;
                boolean isLong = random.nextDouble() < LONG_FRACTION;
                long base = isLong ? LONG_NANOS : SHORT_NANOS;
                long dur = jitter == 0 ? base : Math.round(base * (1 + jitter * (2 * random.nextDouble() - 1)));
                Task t = new Task(now, dur, arrived >= warmup, !isLong);
                arrived++;
                nextArrival = arrived * interval;
                if (shared) {
                    sharedQueue.add(t);
                } else {
                    int i = strategy.choose(view, now);
                    workers[i < 0 ? 0 : i].queue.add(t);
                }
                startIdle(workers, sharedQueue, shared, stealing, now);
                continue;
            }
            if (ending < 0) {
                break; // nothing running and nothing left to arrive
            }
            Worker w = workers[ending];
            Task done = w.running;
            w.window.add(done.durationNanos);
            w.residuals.sampleAdded(w.window); // the engine's schedule (StatisticsCollector)
            w.runTimeTotalNanos += done.durationNanos;
            w.completed++;
            w.running = null;
            w.endNanos = Long.MAX_VALUE;
            if (done.recorded && done.isShort) {
                shortLatency.recordValue(endNanos - done.arrivalNanos);
            }
            startIdle(workers, sharedQueue, shared, stealing, endNanos);
        }
        return new Outcome(shortLatency);
    }

    /** Every idle worker takes its next task: shared queue, own queue, then (stealing) the longest other. */
    private static void startIdle(Worker[] workers, ArrayDeque<Task> sharedQueue, boolean shared,
                                  boolean stealing, long now) {
        for (Worker w : workers) {
            if (w.running != null) {
                continue;
            }
            Task t = shared ? sharedQueue.poll() : w.queue.poll();
            if (t == null && !shared && stealing) {
                Worker victim = null;
                for (Worker o : workers) {
                    if (o != w && !o.queue.isEmpty() && (victim == null || o.queue.size() > victim.queue.size())) {
                        victim = o;
                    }
                }
                t = victim == null ? null : victim.queue.poll();
            }
            if (t != null) {
                w.running = t;
                w.runningSinceNanos = now;
                w.endNanos = now + t.durationNanos;
                w.waitTimeTotalNanos += now - t.arrivalNanos;
            }
        }
    }

    public static void main(String[] args) {
        int seeds = 20;
        int tasks = 12_000;
        int warmup = 1_500;
        double[] loads = {0.25, 0.40};
        boolean median = false;
        double jitter = 0.1;
        List<String> strategies = new ArrayList<>(StrategyRegistry.builtIn().names());
        strategies.add(IdealFairShare.NAME);
        for (int i = 0; i < args.length; i++) {
            String v = i + 1 < args.length ? args[i + 1] : null;
            switch (args[i]) {
                case "--seeds": seeds = Integer.parseInt(v); i++; break;
                case "--tasks": tasks = Integer.parseInt(v); i++; break;
                case "--loads": {
                    String[] parts = v.split(",");
                    loads = new double[parts.length];
                    for (int k = 0; k < parts.length; k++) {
                        loads[k] = Double.parseDouble(parts[k]);
                    }
                    i++;
                    break;
                }
                case "--median": median = true; break;
                case "--jitter": jitter = Double.parseDouble(v); i++; break;
                case "--strategies": strategies = List.of(v.split(",")); i++; break;
                default:
                    System.err.println("unknown option " + args[i]
                            + " (--seeds N | --tasks N | --loads a,b | --median | --jitter x | --strategies A,B)");
                    System.exit(2);
            }
        }
        System.out.printf(Locale.ROOT, "simulated: %d seeds x %d tasks (+%d warm-up), %d workers, %s estimate,"
                + " task times ±%.0f%%%n", seeds, tasks, warmup, WORKERS, median ? "median" : "average", jitter * 100);
        System.out.println("| load | policy | short p50 µs | short p99 µs | short p99.9 µs | p99 × TPE, median (min–max) over seeds |");
        System.out.println("|---|---|---|---|---|---|");
        for (double load : loads) {
            double[] tpe = new double[seeds];
            Outcome[] ref = new Outcome[seeds];
            for (int s = 0; s < seeds; s++) {
                ref[s] = run(TPE, false, median, jitter, load, warmup, tasks, s + 1);
                tpe[s] = ref[s].p99Micros;
            }
            print(load, TPE, ref, tpe);
            for (String name : strategies) {
                for (boolean stealing : new boolean[] {true, false}) {
                    Outcome[] o = new Outcome[seeds];
                    for (int s = 0; s < seeds; s++) {
                        o[s] = run(name, stealing, median, jitter, load, warmup, tasks, s + 1);
                    }
                    print(load, name + (stealing ? "+steal" : "-steal"), o, tpe);
                }
            }
        }
    }

    private static void print(double load, String label, Outcome[] o, double[] tpeP99) {
        int n = o.length;
        double[] p50 = new double[n];
        double[] p99 = new double[n];
        double[] p999 = new double[n];
        double[] ratio = new double[n];
        for (int s = 0; s < n; s++) {
            p50[s] = o[s].p50Micros;
            p99[s] = o[s].p99Micros;
            p999[s] = o[s].p999Micros;
            ratio[s] = o[s].p99Micros / tpeP99[s];
        }
        System.out.printf(Locale.ROOT, "| %.0f%% | %s | %.0f | %.0f | %.0f | %.2f× (%.2f–%.2f) |%n", load * 100, label,
                median(p50), median(p99), median(p999), median(ratio), min(ratio), max(ratio));
    }

    private static double median(double[] v) {
        double[] c = v.clone();
        java.util.Arrays.sort(c);
        int m = c.length / 2;
        return c.length % 2 == 1 ? c[m] : (c[m - 1] + c[m]) / 2;
    }

    private static double min(double[] v) {
        double m = Double.MAX_VALUE;
        for (double x : v) {
            m = Math.min(m, x);
        }
        return m;
    }

    private static double max(double[] v) {
        double m = -Double.MAX_VALUE;
        for (double x : v) {
            m = Math.max(m, x);
        }
        return m;
    }
}
