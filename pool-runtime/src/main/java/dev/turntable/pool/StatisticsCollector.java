package dev.turntable.pool;

import dev.turntable.pool.stats.LatencyRecorder;
import dev.turntable.pool.stats.LatencySnapshot;
import dev.turntable.pool.stats.ResidualTimeTable;
import dev.turntable.pool.stats.TaskTimeWindow;
import dev.turntable.pool.stats.TaskTimeWindows;
import dev.turntable.pool.strategy.Measurement;
import dev.turntable.pool.strategy.Statistic;
import dev.turntable.pool.strategy.WorkerChoiceStrategy;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Collects the per-worker task statistics of one {@link TurntableQueue}: only those that the
 * active strategy (and the latency histograms, when switched on) need, nothing else.
 *
 * <p>Threads: {@link #taskStarted} and {@link #taskFinished} run on the worker that owns the
 * slot (single writer of that slot's statistics); {@link #stampThisOffer()} on submitters;
 * the setters on any thread (configuration changes, typically JMX). A setting change is
 * published as one volatile write of {@link #flags} or a version number, and each worker
 * applies it to its own slot at its next task, so no statistic is ever written by two threads.
 */
final class StatisticsCollector {

    static final int RUN = 1;
    static final int WAIT = 1 << 1;
    static final int CPU = 1 << 2;
    static final int ESTIMATE = 1 << 3;
    static final int HISTOGRAMS = 1 << 4;
    static final int REMAINING = 1 << 5;

    private static final long HIGHEST_TRACKABLE_NANOS = TimeUnit.HOURS.toNanos(1);
    /**
     * One offer in this many is stamped for wait time: a stamp costs the submitter a clock read
     * and a wrapper object, which on a no-op task more than halves throughput. A uniform random
     * 1-in-8 sample keeps percentiles and moving estimates unbiased; totals are scaled by 8.
     */
    static final int WAIT_SAMPLE_EVERY = 8;
    /** In busy-stretch CPU accounting, the thread CPU clock is read at least every this many tasks. */
    static final int CPU_READ_EVERY_TASKS = 32;
    /**
     * A worker refreshes the pool-wide mean estimate every this many of its samples. It is only
     * the fallback for workers without an estimate of their own, so it may lag; refreshed every
     * 8 samples, it invalidated the line every submitter reads about once per 4 no-op tasks.
     */
    static final int POOL_ESTIMATE_EVERY = 64;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /** What is collected now: a bit set of the constants above. */
    volatile int flags;
    /** Mean of the workers' non-zero estimates (see {@link PoolEstimate}). */
    final PoolEstimate poolEstimate = new PoolEstimate();

    private volatile Measurement measurement;
    private volatile boolean median;
    private final int windowSize;
    private volatile boolean histograms;
    /** Bumped when the window kind or measurement changes; a worker rebuilds its window on sight. */
    private volatile int windowConfig;
    /** Bumped by {@link #reset()}; a worker clears its own statistics on sight. */
    private volatile int epoch;
    private final LatencyRecorder runTimes;
    private final LatencyRecorder waitTimes;
    private final boolean cpuClock;
    private final TurntableQueue owner;

    StatisticsCollector(TurntableQueue owner, Measurement measurement, boolean median, int windowSize, boolean histograms) {
        this.owner = owner;
        this.measurement = measurement;
        this.median = median;
        this.windowSize = windowSize;
        TaskTimeWindows.create(median, windowSize); // validates the size up front
        this.histograms = histograms;
        this.runTimes = new LatencyRecorder(4, HIGHEST_TRACKABLE_NANOS);
        this.waitTimes = new LatencyRecorder(4, HIGHEST_TRACKABLE_NANOS);
        boolean cpu;
        try {
            cpu = THREADS.isCurrentThreadCpuTimeSupported();
            if (cpu && !THREADS.isThreadCpuTimeEnabled()) {
                THREADS.setThreadCpuTimeEnabled(true);
            }
        } catch (UnsupportedOperationException | SecurityException e) {
            cpu = false;
        }
        this.cpuClock = cpu;
    }

    /** Recomputes what to collect for a newly active strategy; any thread. */
    synchronized void configureFor(WorkerChoiceStrategy strategy) {
        int f = 0;
        for (Statistic s : strategy.requiredStatistics()) {
            f |= bit(s);
            if (s == Statistic.TASK_TIME_ESTIMATE || s == Statistic.REMAINING_TIME) {
                f |= bit(measurement.statistic());
            }
        }
        if (histograms) {
            f |= RUN | WAIT | HISTOGRAMS;
        }
        flags = f;
    }

    private static int bit(Statistic s) {
        switch (s) {
            case RUN_TIME: return RUN;
            case WAIT_TIME: return WAIT;
            case CPU_TIME: return CPU;
            case TASK_TIME_ESTIMATE: return ESTIMATE;
            case REMAINING_TIME: return REMAINING | ESTIMATE;
            default: throw new AssertionError(s);
        }
    }

    Measurement measurement() {
        return measurement;
    }

    boolean median() {
        return median;
    }

    boolean histograms() {
        return histograms;
    }

    synchronized void setMeasurement(Measurement m, WorkerChoiceStrategy active) {
        measurement = m;
        windowConfig++;
        configureFor(active);
    }

    synchronized void setMedian(boolean on) {
        median = on;
        windowConfig++;
    }

    synchronized void setHistograms(boolean on, WorkerChoiceStrategy active) {
        histograms = on;
        configureFor(active);
    }

    /** What is being collected now, as the strategy-facing names; any thread. */
    java.util.Set<Statistic> collected() {
        int f = flags;
        java.util.Set<Statistic> out = java.util.EnumSet.noneOf(Statistic.class);
        if ((f & RUN) != 0) {
            out.add(Statistic.RUN_TIME);
        }
        if ((f & WAIT) != 0) {
            out.add(Statistic.WAIT_TIME);
        }
        if ((f & CPU) != 0 && cpuClock) {
            out.add(Statistic.CPU_TIME);
        }
        if ((f & ESTIMATE) != 0) {
            out.add(Statistic.TASK_TIME_ESTIMATE);
        }
        if ((f & REMAINING) != 0) {
            out.add(Statistic.REMAINING_TIME);
        }
        return java.util.Collections.unmodifiableSet(out);
    }

    /** Submitter, per offer: whether to stamp this task with its offer time (a 1-in-8 sample). */
    boolean stampThisOffer() {
        return (flags & WAIT) != 0
                && (ThreadLocalRandom.current().nextInt() & (WAIT_SAMPLE_EVERY - 1)) == 0;
    }

    /** Whether each task's CPU time is needed (the estimate measures CPU), not just the worker's total. */
    private boolean perTaskCpu(int f) {
        return (f & ESTIMATE) != 0 && measurement == Measurement.CPU_TIME;
    }

    /**
     * Worker thread, when it finds no work and is about to spin or park: closes its busy stretch
     * of CPU accounting and makes its buffered histogram samples visible.
     */
    void workerIdle(WorkerSlot s) {
        if (s.cpuStretchStartNanos >= 0) {
            s.addCpuTime(Math.max(0, THREADS.getCurrentThreadCpuTime() - s.cpuStretchStartNanos));
            s.cpuStretchStartNanos = -1;
        }
        if ((flags & HISTOGRAMS) != 0) {
            runTimes.flush(s.index);
            waitTimes.flush(s.index);
        }
    }

    /** Discards every worker's times, windows and histograms; any thread. */
    synchronized void reset() {
        epoch++;
        runTimes.reset();
        waitTimes.reset();
        poolEstimate.nanos = 0;
    }

    void ensureSlots(int count) {
        runTimes.ensureSlots(count);
        waitTimes.ensureSlots(count);
    }

    LatencySnapshot runTimeSnapshot() {
        return runTimes.intervalSnapshot();
    }

    LatencySnapshot waitTimeSnapshot() {
        return waitTimes.intervalSnapshot();
    }

    /**
     * Whether {@code s}'s time statistics belong to the current epoch: after
     * {@link #reset()}, a slot whose owner has not run a task since reads as zeros.
     */
    boolean isCurrent(WorkerSlot s) {
        return s.statsEpochSeen == epoch;
    }

    /** A new owner starts from the current epoch and builds its window on first use. */
    void adopt(WorkerSlot s) {
        s.resetForNewOwner();
        s.statsEpochSeen = epoch;
    }

    /**
     * Worker thread, as it takes a task offered at {@code offeredNanos} (0 when not stamped);
     * {@code nowNanos} is a clock read the caller already has, or 0.
     */
    void taskStarted(WorkerSlot s, long offeredNanos, long nowNanos) {
        int f = flags;
        int e = epoch;
        if (s.statsEpochSeen != e) {
            s.clearTimes();
            s.statsEpochSeen = e; // after clearing: a reader that sees the new epoch sees zeros
        }
        s.flagsAtStart = f;
        if ((f & (RUN | WAIT)) != 0) {
            long now = nowNanos != 0 ? nowNanos : System.nanoTime();
            s.setRunningSince(now);
            if ((f & WAIT) != 0 && offeredNanos != 0) {
                long waitNanos = Math.max(0, now - offeredNanos);
                s.addWaitTime(waitNanos * WAIT_SAMPLE_EVERY); // one sample stands for eight tasks
                if ((f & HISTOGRAMS) != 0) {
                    waitTimes.record(s.index, waitNanos);
                }
                sample(s, f, Measurement.WAIT_TIME, waitNanos);
            }
        }
        if ((f & CPU) != 0 && cpuClock) {
            if (perTaskCpu(f)) {
                s.taskStartCpuNanos = THREADS.getCurrentThreadCpuTime();
            } else if (s.cpuStretchStartNanos < 0) {
                // Busy-stretch accounting: ~1 µs clock reads at the start and end of each stretch
                // of back-to-back tasks and every 32 tasks within it, never while spinning idle.
                s.cpuStretchStartNanos = THREADS.getCurrentThreadCpuTime();
                s.cpuTasksInStretch = 0;
            }
        }
    }

    /**
     * Worker thread, once the task it took has ended (at its next poll, or as it exits).
     *
     * @return the clock read taken to end it, or 0 if run time was not measured
     */
    long taskFinished(WorkerSlot s) {
        // Only what was measured at the start and is still wanted now: a switch in between
        // simply drops that one sample rather than recording a half-measured one.
        int f = s.flagsAtStart & flags;
        long endNanos = 0L;
        if ((f & RUN) != 0) {
            endNanos = System.nanoTime();
            long runNanos = Math.max(0, endNanos - s.runningSinceNanos);
            s.addRunTime(runNanos);
            if ((f & HISTOGRAMS) != 0) {
                runTimes.record(s.index, runNanos);
            }
            sample(s, f, Measurement.RUN_TIME, runNanos);
        }
        if ((f & CPU) != 0 && cpuClock) {
            if (perTaskCpu(f)) {
                long cpuNanos = Math.max(0, THREADS.getCurrentThreadCpuTime() - s.taskStartCpuNanos);
                s.addCpuTime(cpuNanos);
                sample(s, f, Measurement.CPU_TIME, cpuNanos);
            } else if (s.cpuStretchStartNanos >= 0 && ++s.cpuTasksInStretch >= CPU_READ_EVERY_TASKS) {
                long now = THREADS.getCurrentThreadCpuTime();
                s.addCpuTime(Math.max(0, now - s.cpuStretchStartNanos));
                s.cpuStretchStartNanos = now;
                s.cpuTasksInStretch = 0;
            }
        }
        return endNanos;
    }

    private void sample(WorkerSlot s, int f, Measurement kind, long nanos) {
        if ((f & ESTIMATE) == 0 || kind != measurement) {
            return;
        }
        TaskTimeWindow w = s.window;
        int config = windowConfig;
        if (w == null || s.windowConfigSeen != config) {
            w = TaskTimeWindows.create(median, windowSize); // only on first use or a settings change
            s.windowConfigSeen = config;
            s.window = w;
            ResidualTimeTable old = s.residuals;
            if (old != null) {
                old.clear(); // its samples belong to the window just replaced
            }
        }
        w.add(nanos);
        if ((f & REMAINING) != 0) {
            ResidualTimeTable t = s.residuals;
            if (t == null) {
                // Once per slot: windowSize is fixed for the pool, so every later window fits.
                s.residuals = t = new ResidualTimeTable(w.capacity());
            }
            t.sampleAdded(w);
        }
        s.publishEstimate(w.estimateNanos()); // on the line the strategies read anyway (WorkerSlotHotFields)
        if (++s.samplesSincePoolEstimate >= POOL_ESTIMATE_EVERY || poolEstimate.nanos == 0) {
            s.samplesSincePoolEstimate = 0;
            refreshPoolEstimate();
        }
    }

    private void refreshPoolEstimate() {
        // Called from one worker every POOL_ESTIMATE_EVERY of its samples: O(workers), off the
        // submit path. Reads the estimates the workers published (a stale one only delays its
        // share of the mean) and stores only a changed value, so the line every choice reads is
        // not invalidated for nothing.
        WorkerSlot[] slots = owner.slots;
        long sum = 0;
        int n = 0;
        for (WorkerSlot o : slots) {
            long e = isCurrent(o) ? o.estimateNanos : 0;
            if (e > 0) {
                sum += e;
                n++;
            }
        }
        long mean = n == 0 ? 0 : sum / n;
        if (poolEstimate.nanos != mean) {
            poolEstimate.nanos = mean;
        }
    }

    /**
     * The pool-wide mean estimate on a cache line of its own: every choice of FAIR_SHARE and the
     * weighted strategies reads it, and the collector's other fields ({@link #flags}, which every
     * offer reads) must not share a line with a value workers write. Any worker may write it (last
     * one wins: each write is a complete, recent mean), any thread reads it.
     */
    static final class PoolEstimate extends PoolEstimatePad {
        volatile long nanos;
        long q0, q1, q2, q3, q4, q5, q6, q7;
    }

    abstract static class PoolEstimatePad {
        long p0, p1, p2, p3, p4, p5, p6, p7;
    }
}
