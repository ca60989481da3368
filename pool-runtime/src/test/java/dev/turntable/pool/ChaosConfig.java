package dev.turntable.pool;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * One chaos round's pool and plan, drawn from the round's seed: capacity mode, sizes, keep-alive,
 * strategy, statistics settings, weights, lifetimes, concurrency limit, timeouts, task classes and
 * rebalancing, the rejection handler, the listeners, and how the round is driven (submitters,
 * task mix, pacing, the chaos thread's pace, the ending). The draws are made in a fixed order:
 * the same seed and scale give the same configuration, which {@link #toString()} prints for a
 * replay.
 */
final class ChaosConfig {

    static final List<String> STRATEGIES = List.of("ROUND_ROBIN", "LEAST_USED", "LEAST_BUSY", "LEAST_CPU",
            "FAIR_SHARE", "WEIGHTED_ROUND_ROBIN", "INTERLEAVED_WEIGHTED_ROUND_ROBIN", "LIFETIME_FIRST");

    static final String[] PERCENTS = {"a:75;b:25", "a:50;b:50", "a:100;b:0", "a:1;b:99", "a:34;b:33;c:33", "a:70;b:30"};
    static final String[] MAPS = {
        "chaos-sub-[01]:a;chaos-sub-.*:b",
        "chaos-sub-0:b;chaos-w-.*:a",
        "",
        "chaos-.*:a",
    };

    enum Mode { UNBOUNDED, BOUNDED, HAND_OFF }

    enum Handler { ABORT, CALLER_RUNS, DISCARD_OLDEST, DISCARD, BLOCK_PUT, TIMED_OFFER }

    final Mode mode;
    final int capacity;
    final int core;
    final int max;
    final long keepAliveMicros;
    final boolean coreTimeOut;
    final String initialStrategy;
    final boolean stealing;
    final Handler handler;
    final int lifetime;
    final int maxConcurrent;
    final int workerQueueCapacity;
    final long heartbeatMillis;
    final long selectMillis;
    final String measurement;
    final boolean median;
    final boolean histograms;
    final long[] weights;
    final String percents;
    final String requestorMap;
    final int rebalanceThreshold;
    final long rebalanceMillis;
    final int submitters;
    final int perSubmitter;
    final boolean endWithShutdownNow;
    final int endAt; // top-level submissions before the ending; total = after all
    final int chaosPauseMicros;
    final int restartablePercent;
    /** A restartable task runs 5 chunks of this. */
    final int restartableChunkMicros;
    /** Submitter i starts i times this late: one class holds the workers on loan before the next comes (rebalancing). */
    final int staggerMicros;
    /** Two chaos threads race each other (their getter checks are off: each may undo the other). */
    final boolean twoChangers;
    /** After the last submission, and before the ending, every accepted task must run while the pool runs. */
    final boolean quiesce;
    /** Submitters pause between tasks, so workers keep parking and being woken. */
    final int trickleMicros;
    /** The chaos thread interrupts submitters (and, with no restartable tasks, workers) now and then. */
    final boolean interrupts;
    /** A strategy of our own, FLAKY, that throws now and then, is among the strategies. */
    final boolean flaky;
    /** Retirement and rebalance listeners that throw. */
    final boolean throwingListeners;
    /** A thread that keeps taking recent tasks back (remove, poll, drainTo) while workers come and go. */
    final boolean taker;
    /** The ending is issued by a task on a worker thread. */
    final boolean endFromWorker;
    /** ThreadPoolExecutor's purge() (which does not say what it took) instead of our own. */
    final boolean realPurge;
    /**
     * Rebalancing often: two classes, one submitter for one of them, a low threshold, no minimum
     * duration, mostly long restartable tasks, staggered starts and waves of submissions.
     */
    final boolean rebalanceFocus;
    final boolean wide;
    final List<String> strategies;
    /** Top-level submissions in all: submitters x perSubmitter. */
    final int total;

    ChaosConfig(long seed, double scale) {
        Random rnd = new Random(seed);
        mode = Mode.values()[rnd.nextInt(3)];
        capacity = mode == Mode.BOUNDED ? 1 + rnd.nextInt(rnd.nextBoolean() ? 4 : 64) : 0;
        core = 1 + rnd.nextInt(rnd.nextInt(4) == 0 ? 8 : 4);
        // One round in 16 is wide: up to 80 threads (a cached pool under a burst), past the
        // 64 workers that some per-slot bit masks cover.
        wide = mode != Mode.UNBOUNDED && rnd.nextInt(16) == 0;
        max = wide ? 60 + rnd.nextInt(21) : mode == Mode.UNBOUNDED && rnd.nextBoolean() ? core : core + rnd.nextInt(4);
        keepAliveMicros = rnd.nextInt(3) == 0 ? 0 : new long[] {100, 1_000, 5_000, 50_000}[rnd.nextInt(4)];
        coreTimeOut = keepAliveMicros > 0 && rnd.nextInt(3) == 0;
        stealing = rnd.nextInt(4) != 0;
        handler = mode == Mode.HAND_OFF && rnd.nextBoolean() ? (rnd.nextBoolean() ? Handler.BLOCK_PUT : Handler.TIMED_OFFER)
                : Handler.values()[rnd.nextInt(Handler.values().length)];
        lifetime = rnd.nextInt(3) == 0 ? 1 + rnd.nextInt(rnd.nextBoolean() ? 5 : 100) : 0;
        maxConcurrent = rnd.nextInt(4) == 0 ? 1 + rnd.nextInt(4) : 0;
        workerQueueCapacity = rnd.nextInt(4) == 0 ? 2 << rnd.nextInt(3) : 1024;
        heartbeatMillis = rnd.nextInt(5) == 0 ? rnd.nextInt(3) : 60_000;
        selectMillis = new long[] {0, 1, 5, 20}[rnd.nextInt(4)];
        measurement = new String[] {"RUN_TIME", "WAIT_TIME", "CPU_TIME"}[rnd.nextInt(3)];
        median = rnd.nextBoolean();
        histograms = rnd.nextInt(4) == 0;
        if (rnd.nextInt(3) == 0) {
            weights = new long[core + rnd.nextInt(max - core + 1)];
            for (int i = 0; i < weights.length; i++) {
                weights[i] = 1 + rnd.nextInt(20);
            }
        } else {
            weights = null;
        }
        rebalanceFocus = mode != Mode.HAND_OFF && rnd.nextInt(6) == 0;
        boolean classes = rebalanceFocus || (mode != Mode.HAND_OFF && rnd.nextInt(3) == 0);
        percents = rebalanceFocus ? (rnd.nextBoolean() ? "a:50;b:50" : "a:75;b:25")
                : classes ? PERCENTS[rnd.nextInt(PERCENTS.length)] : null;
        requestorMap = rebalanceFocus ? "chaos-sub-0:a;chaos-.*:b" : classes ? MAPS[rnd.nextInt(MAPS.length)] : null;
        rebalanceThreshold = rebalanceFocus ? 1 + rnd.nextInt(10) : classes && rnd.nextBoolean() ? 1 + rnd.nextInt(50) : 0;
        rebalanceMillis = rebalanceFocus ? 0 : rnd.nextInt(3);
        submitters = rebalanceFocus ? 2 + rnd.nextInt(3) : 1 + rnd.nextInt(4);
        perSubmitter = (int) Math.max(20, scale * (100 + rnd.nextInt(rnd.nextInt(4) == 0 ? 4_000 : 1_000)));
        endWithShutdownNow = rnd.nextBoolean();
        total = submitters * perSubmitter;
        // Mostly late: what happens after the ending is mostly rejections.
        int end = rnd.nextInt(3) == 0 ? total : rnd.nextInt(5) == 0 ? rnd.nextInt(total + 1)
                : total / 2 + rnd.nextInt(total / 2 + 1);
        chaosPauseMicros = rebalanceFocus ? 2_000 : new int[] {0, 20, 200, 2_000}[rnd.nextInt(4)];
        interrupts = rnd.nextInt(4) == 0;
        flaky = rnd.nextInt(4) == 0;
        throwingListeners = rnd.nextInt(4) == 0;
        taker = rnd.nextInt(5) == 0;
        endFromWorker = rnd.nextInt(5) == 0;
        realPurge = rnd.nextInt(4) == 0;
        strategies = flaky ? withFlaky() : STRATEGIES;
        restartablePercent = rebalanceFocus ? 60 : interrupts && rnd.nextBoolean() ? 0 : rnd.nextInt(3) == 0 ? 30 : 5;
        restartableChunkMicros = rebalanceFocus ? 50 + rnd.nextInt(300) : rnd.nextBoolean() ? 10 : 20 + rnd.nextInt(200);
        staggerMicros = rebalanceFocus ? 2_000 + rnd.nextInt(10_000)
                : percents != null && rnd.nextBoolean() ? 1_000 + rnd.nextInt(20_000) : 0;
        twoChangers = rnd.nextInt(4) == 0;
        quiesce = rnd.nextInt(3) == 0;
        trickleMicros = rnd.nextInt(5) == 0 ? 1 + rnd.nextInt(100) : 0;
        endAt = quiesce ? total : end;
        initialStrategy = strategies.get(rnd.nextInt(strategies.size()));
    }

    /** The pool as drawn, with the round's thread factory and first rejection handler. */
    TurntableExecutor.Builder builder(ThreadFactory threads, RejectedExecutionHandler rejection) {
        TurntableExecutor.Builder b = TurntableExecutor.builder().workers(core).maximumWorkers(max)
                .registerStrategy("FLAKY", Flaky::new).strategy(initialStrategy).taskStealing(stealing).threadFactory(threads)
                .rejectionHandler(rejection).measurement(measurement).median(median)
                .latencyHistograms(histograms).workerQueueCapacity(workerQueueCapacity)
                .maxConcurrentTasks(maxConcurrent).heartbeatTimeoutMillis(heartbeatMillis)
                .workerSelectTimeoutMillis(selectMillis);
        if (mode == Mode.BOUNDED) {
            b.queueCapacity(capacity);
        } else if (mode == Mode.HAND_OFF) {
            b.handOff();
        }
        if (keepAliveMicros > 0) {
            b.keepAlive(keepAliveMicros, TimeUnit.MICROSECONDS).allowCoreThreadTimeOut(coreTimeOut);
        }
        if (lifetime > 0) {
            b.maxLifetimeTasks(lifetime);
        }
        if (weights != null) {
            b.weightsMillis(weights);
        }
        if (percents != null) {
            b.taskClasses(percents, requestorMap).rebalanceThreshold(rebalanceThreshold)
                    .rebalanceMinimumDurationMillis(rebalanceMillis);
        }
        return b;
    }

    @Override
    public String toString() {
        return String.format("[mode %s cap %d core %d max %d keepAlive %dus coreTimeOut %b strategy %s stealing %b"
                + " handler %s lifetime %d maxConcurrent %d workerQueue %d heartbeat %dms select %dms %s median %b"
                + " histograms %b weights %s classes %s map %s rebalance %d/%dms submitters %d x %d end %s at %d"
                + " chaosPause %dus restartable %d%% x %dus stagger %dus twoChangers %b quiesce %b trickle %dus"
                + " interrupts %b flaky %b throwingListeners %b taker %b endFromWorker %b realPurge %b"
                + " rebalanceFocus %b wide %b]",
                mode, capacity, core, max, keepAliveMicros, coreTimeOut, initialStrategy, stealing, handler, lifetime,
                maxConcurrent, workerQueueCapacity, heartbeatMillis, selectMillis, measurement, median, histograms,
                Arrays.toString(weights), percents, requestorMap, rebalanceThreshold, rebalanceMillis, submitters,
                perSubmitter, endWithShutdownNow ? "shutdownNow" : "shutdown", endAt, chaosPauseMicros,
                restartablePercent, 5 * restartableChunkMicros, staggerMicros, twoChangers, quiesce, trickleMicros,
                interrupts, flaky, throwingListeners, taker, endFromWorker, realPurge, rebalanceFocus, wide);
    }

    static List<String> withFlaky() {
        List<String> l = new ArrayList<>(STRATEGIES);
        l.add("FLAKY");
        return List.copyOf(l);
    }

    /** A strategy of one's own that throws one choice in 8 (the engine must lose no task for it). */
    static final class Flaky implements dev.turntable.pool.strategy.WorkerChoiceStrategy {
        final dev.turntable.pool.strategy.WorkerChoiceStrategy base =
                dev.turntable.pool.strategy.StrategyRegistry.builtIn().create("LEAST_USED");

        @Override
        public String name() {
            return "FLAKY";
        }

        @Override
        public Set<dev.turntable.pool.strategy.Statistic> requiredStatistics() {
            return base.requiredStatistics();
        }

        @Override
        public int choose(dev.turntable.pool.strategy.WorkerView workers, long nowNanos) {
            if ((java.util.concurrent.ThreadLocalRandom.current().nextInt() & 7) == 0) {
                throw new IllegalStateException("FLAKY throws on purpose");
            }
            return base.choose(workers, nowNanos);
        }
    }
}
