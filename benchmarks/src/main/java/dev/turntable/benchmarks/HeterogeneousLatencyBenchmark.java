package dev.turntable.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * <b>Question:</b> when a few long tasks share a pool with many short ones, how long do the
 * short ones wait behind them? Open-loop latency of a heterogeneous mix, per pool and, for
 * Turntable, with task stealing on and off.
 *
 * <p><b>Workload:</b> tasks arrive on a fixed schedule (one every {@link #intervalNanos} ns), so
 * that the offered load is a given fraction of {@value #WORKERS} workers' capacity (25% and 40%
 * in {@code run.sh}); 95% of them burn ~{@value #SHORT_NANOS} ns of CPU and 5% ~{@value #LONG_NANOS}
 * ns (busy loops, {@link Work}, not sleeps), so the mean service time is
 * {@value #MEAN_SERVICE_NANOS} ns. Which task is long is drawn from a seeded random sequence, the
 * same for every pool within a round. Open loop: the generator never waits for a task; it parks
 * until the next arrival is due (it does not spin: a spinning generator would take one of the two
 * CPUs) and, if it woke late, submits everything due at once. How late it submitted is recorded
 * too ("lag"), so a pool whose idle workers starve the generator shows up rather than hides.
 *
 * <p><b>One sample</b> = one task's submit-to-end latency: {@code System.nanoTime()} just before
 * {@code execute} to the end of its run, recorded by the worker thread that ran it into its own
 * HdrHistogram (per-thread recording, merged once the pool has terminated), separately for short
 * tasks and for all tasks. Each segment (one pool, one load) first runs unrecorded warm-up tasks.
 *
 * <p><b>Why not JMH:</b> a JMH trial measures one parameter combination at a time in its own
 * fork, and JMH reports a score, not a latency distribution of tasks it did not time itself.
 * {@link LatencyRunner} (a plain {@code main} that JMH does not drive) instead runs every pool
 * and load in one JVM, interleaved within each round after a discarded JIT warm-up round, over
 * several rounds, so a spell of throttling hits all pools alike; {@code run.sh} reports the
 * median of the rounds.
 */
public final class HeterogeneousLatencyBenchmark {

    public static final int WORKERS = 2;
    public static final long SHORT_NANOS = 10_000;
    public static final long LONG_NANOS = 1_000_000;
    /** One task in 20 is long. */
    public static final double LONG_FRACTION = 0.05;
    public static final long MEAN_SERVICE_NANOS = 59_500; // 0.95 * 10 us + 0.05 * 1 ms
    private static final long HIGHEST_NANOS = TimeUnit.SECONDS.toNanos(60);

    /** One pool setup under test. */
    public static final class Config {
        public final String pool;
        public final boolean stealing;

        Config(String pool, boolean stealing) {
            this.pool = pool;
            this.stealing = stealing;
        }

        public boolean isTurntable() {
            return !pool.equals(Pools.TPE) && !pool.equals(Pools.FJP);
        }

        /** {@code TPE}, {@code FJP}, or {@code STRATEGY+steal} / {@code STRATEGY-steal}. */
        public String label() {
            return isTurntable() ? pool + (stealing ? "+steal" : "-steal") : pool;
        }
    }

    /** TPE, FJP, then every strategy with stealing on and with stealing off. */
    public static List<Config> allConfigs() {
        List<Config> out = new ArrayList<>();
        out.add(new Config(Pools.TPE, false));
        out.add(new Config(Pools.FJP, false));
        for (String s : Pools.STRATEGIES) {
            out.add(new Config(s, true));
            out.add(new Config(s, false));
        }
        return out;
    }

    /** Time between arrivals for an offered load of {@code load} (0..1) of the workers' capacity. */
    public static long intervalNanos(double load) {
        if (!(load > 0 && load < 1)) {
            throw new IllegalArgumentException("load " + load + " must be in (0, 1)");
        }
        return Math.round(MEAN_SERVICE_NANOS / (WORKERS * load));
    }

    /** What one segment measured. */
    public static final class Result {
        public final Histogram shortTasks;
        public final Histogram allTasks;
        public final Histogram lag;
        public final long wallNanos;
        public final int measured;
        /** CPUs used by other processes, and steal, while the recorded tasks ran ({@link CpuSampler}). */
        public final CpuSampler.Usage machine;

        Result(Histogram shortTasks, Histogram allTasks, Histogram lag, long wallNanos, int measured,
                CpuSampler.Usage machine) {
            this.shortTasks = shortTasks;
            this.allTasks = allTasks;
            this.lag = lag;
            this.wallNanos = wallNanos;
            this.measured = measured;
            this.machine = machine;
        }
    }

    /** Per-thread histograms of one segment. */
    private static final class Recorders {
        final Histogram shortTasks = new Histogram(HIGHEST_NANOS, 3);
        final Histogram allTasks = new Histogram(HIGHEST_NANOS, 3);
    }

    private static final class Segment {
        final Queue<Recorders> registered = new ConcurrentLinkedQueue<>();
        final ThreadLocal<Recorders> local = ThreadLocal.withInitial(() -> {
            Recorders r = new Recorders();
            registered.add(r);
            return r;
        });
        final AtomicInteger remaining;
        final Thread waiter = Thread.currentThread();

        Segment(int tasks) {
            remaining = new AtomicInteger(tasks);
        }

        void done() {
            if (remaining.decrementAndGet() == 0) {
                LockSupport.unpark(waiter);
            }
        }
    }

    private static final class Task implements Runnable {
        final Segment segment;
        final boolean isLong;
        final boolean measured;
        final long tokens;
        long submitNanos; // written before execute(), read by the worker after: happens-before

        Task(Segment segment, boolean isLong, boolean measured, long tokens) {
            this.segment = segment;
            this.isLong = isLong;
            this.measured = measured;
            this.tokens = tokens;
        }

        @Override
        public void run() {
            Work.burn(tokens);
            long latency = Math.min(HIGHEST_NANOS, System.nanoTime() - submitNanos);
            if (measured) {
                Recorders r = segment.local.get();
                r.allTasks.recordValue(latency);
                if (!isLong) {
                    r.shortTasks.recordValue(latency);
                }
            }
            segment.done();
        }
    }

    private HeterogeneousLatencyBenchmark() {
    }

    /**
     * Runs one segment: a fresh pool, {@code warmupTasks} unrecorded then {@code measuredTasks}
     * recorded arrivals at {@code load}, waits for all of them, shuts the pool down, merges.
     */
    public static Result run(Config config, double load, int warmupTasks, int measuredTasks, long seed) {
        long interval = intervalNanos(load);
        long shortTokens = Work.tokensFor(SHORT_NANOS);
        long longTokens = Work.tokensFor(LONG_NANOS);
        int total = warmupTasks + measuredTasks;
        Segment segment = new Segment(total);
        SplittableRandom random = new SplittableRandom(seed);
        Task[] tasks = new Task[total];
        for (int i = 0; i < total; i++) {
            boolean isLong = random.nextDouble() < LONG_FRACTION;
            tasks[i] = new Task(segment, isLong, i >= warmupTasks, isLong ? longTokens : shortTokens);
        }
        Histogram lag = new Histogram(HIGHEST_NANOS, 3);
        ExecutorService pool = Pools.create(config.pool, WORKERS, config.stealing, false);
        long measuredStart = 0;
        long end;
        CpuSampler sampler = new CpuSampler();
        CpuSampler.Usage machine;
        try {
            long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1);
            for (int i = 0; i < total; i++) {
                long due = start + i * interval;
                long now;
                while ((now = System.nanoTime()) < due) {
                    LockSupport.parkNanos(due - now);
                }
                if (i == warmupTasks) {
                    measuredStart = now;
                    sampler.start();
                }
                Task t = tasks[i];
                t.submitNanos = System.nanoTime();
                pool.execute(t);
                if (i >= warmupTasks) {
                    lag.recordValue(Math.min(HIGHEST_NANOS, t.submitNanos - due));
                }
            }
            awaitAll(segment, config);
            end = System.nanoTime();
            machine = sampler.stop();
        } finally {
            Pools.shutdown(pool);
        }
        Histogram shortTasks = new Histogram(HIGHEST_NANOS, 3);
        Histogram allTasks = new Histogram(HIGHEST_NANOS, 3);
        for (Recorders r : segment.registered) { // the pool has terminated: all writes are visible
            shortTasks.add(r.shortTasks);
            allTasks.add(r.allTasks);
        }
        if (allTasks.getTotalCount() != measuredTasks) {
            throw new IllegalStateException(config.label() + ": recorded " + allTasks.getTotalCount()
                    + " of " + measuredTasks + " tasks");
        }
        return new Result(shortTasks, allTasks, lag, end - measuredStart, measuredTasks, machine);
    }

    private static void awaitAll(Segment segment, Config config) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (segment.remaining.get() != 0) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(config.label() + ": " + segment.remaining.get()
                        + " tasks never completed");
            }
            LockSupport.parkNanos(segment, TimeUnit.MILLISECONDS.toNanos(100));
        }
    }
}
