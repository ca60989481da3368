package dev.turntable.pool;

import dev.turntable.pool.stats.LatencyRecorder;
import dev.turntable.pool.stats.LatencySnapshot;
import dev.turntable.pool.stats.ResidualTimeTable;
import dev.turntable.pool.stats.TaskTimeWindow;
import dev.turntable.pool.stats.TaskTimeWindows;
import dev.turntable.pool.strategy.Measurement;
import dev.turntable.pool.strategy.Statistic;
import dev.turntable.pool.strategy.WorkerChoiceStrategy;
import dev.turntable.pool.strategy.WorkerView;
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
 *
 * <p>Why one class of ~600 lines, a quarter of them comments: the settings (any thread,
 * synchronized) and the recording (the owning worker, lock-free) are the two ends of that one
 * hand-over; apart, neither end could be checked without reading the other.
 */
final class StatisticsCollector {

    static final int RUN = 1;
    static final int WAIT = 1 << 1;
    static final int CPU = 1 << 2;
    static final int ESTIMATE = 1 << 3;
    static final int HISTOGRAMS = 1 << 4;
    static final int REMAINING = 1 << 5;
    /**
     * Every running task's start must be known: remaining times are collected and task stealing
     * is off. Then FAIR_SHARE's prediction is all that keeps short tasks from queueing behind a
     * long one, and a long task among tiny ones, left untimed by the sample, would read as just
     * started for its whole run: each of a burst's tasks that tied with another worker would
     * queue behind it. With stealing on, an idle worker takes such tasks, so tiny tasks are
     * timed in a sample there too, and submitters date a running task of unknown start that one
     * of their sampled looks sees running for 2 µs or more ({@link #observesStarts}), so that a
     * long one ages from about its start.
     */
    static final int EXACT_STARTS = 1 << 6;

    private static final long HIGHEST_TRACKABLE_NANOS = TimeUnit.HOURS.toNanos(1);
    /**
     * One offer in this many is stamped for wait time: a stamp costs the submitter a clock read
     * and a wrapper object, which on a no-op task more than halves throughput. A uniform random
     * 1-in-8 sample keeps percentiles and moving estimates unbiased; totals are scaled by 8.
     */
    static final int WAIT_SAMPLE_EVERY = 8;
    /**
     * While a worker's recent tasks are shorter than {@link #SAMPLE_BELOW_NANOS}, one task in this
     * many (a uniform random sample) has its run time measured, and stands for this many tasks in
     * the totals (its own time, and the others' at the recent average). A clock read costs
     * 20–40 ns; a no-op task, dispatch included, about 100 ns.
     */
    static final int SAMPLE_RUN_EVERY = 16;
    /**
     * While remaining times are collected ({@link #observesStarts}), one choice in this many
     * notes the running tasks of unknown start ({@code TurntableQueue.observeUnknownStarts}), reading the
     * clock if the choice did not: a long task left untimed by the sample then ages from about
     * its start, instead of reading as just started for its whole run. The same rate as the
     * workers' sample.
     */
    static final int OBSERVE_START_EVERY = 16;
    /**
     * Tasks shorter than this on average (a moving average of the timed ones) are timed only in
     * a sample: timing each one would cost more than 1% of its run time. Above it every task is
     * timed, so a workload with long tasks among short ones (whose mean is above it) loses nothing.
     */
    static final long SAMPLE_BELOW_NANOS = 2_000;
    /**
     * In busy-stretch CPU accounting, the thread CPU clock is read at least every this many tasks
     * while tasks are long: a read costs about 0.75 µs on this project's VM (a system call, where
     * {@code System.nanoTime()} is 30 ns), 2% of 32 tasks of 1 µs.
     */
    static final int CPU_READ_EVERY_TASKS = 32;
    /**
     * With tiny tasks a read every 32 tasks was a sixth of a no-op worker's CPU (async-profiler,
     * LEAST_CPU, one producer): then the stretch is read about every this much of its CPU time
     * instead, so the read costs about 1.5% and the total is never older than ~50 µs of work.
     */
    static final long CPU_READ_TARGET_NANOS = 50_000;
    /** However tiny the tasks, the thread CPU clock is read at least every this many of them. */
    static final int CPU_READ_MAX_TASKS = 1_024;
    /**
     * A worker refreshes the pool-wide mean estimate every this many of its samples. It is only
     * the fallback for workers without an estimate of their own, so it may lag; refreshed every
     * 8 samples, it invalidated the line every submitter reads about once per 4 no-op tasks.
     */
    static final int POOL_ESTIMATE_EVERY = 64;
    /**
     * The thread CPU clock, looked up when a strategy first measures CPU time (LEAST_CPU, or a
     * CPU_TIME measurement): the lookup starts the platform's management classes (about 110
     * classes, 15-19 ms in a fresh JVM on the 2-vCPU test host), which the first pool's
     * construction paid on the thread that built it, LEAST_CPU or not. Enabling thread CPU
     * time is JVM-wide, so it is decided once per JVM.
     */
    private static final class Threads {
        static final ThreadMXBean BEAN = ManagementFactory.getThreadMXBean();
        /** Whether this JVM measures the current thread's CPU time (and it is now enabled). */
        static final boolean CPU_CLOCK = cpuClockAvailable();

        private static boolean cpuClockAvailable() {
            try {
                boolean cpu = BEAN.isCurrentThreadCpuTimeSupported();
                if (cpu && !BEAN.isThreadCpuTimeEnabled()) {
                    BEAN.setThreadCpuTimeEnabled(true);
                }
                return cpu;
            } catch (UnsupportedOperationException | SecurityException e) {
                return false;
            }
        }
    }

    /** What is collected now: a bit set of the constants above. */
    volatile int flags;
    /** The queue's task stealing, as last told (guarded by this object's lock). */
    private boolean taskStealing = true;
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
    /**
     * The latency histograms, made the first time they are switched on (and kept after that):
     * a pool's pair costs about 2.4 MB with four workers, which a pool nobody looks at must not
     * cost its application. Written under this object's lock before {@link #flags} gains
     * {@link #HISTOGRAMS} (a volatile write), so a worker that reads that bit from {@code flags}
     * (a volatile read) then finds them non-null and built; volatile for readers that go by
     * {@link #histograms} instead.
     */
    private volatile LatencyRecorder runTimes;
    private volatile LatencyRecorder waitTimes;
    /** Worker slots the recorders must have when they are made; guarded by this object's lock. */
    private int slotCount = 4;
    private final TurntableQueue owner;

    StatisticsCollector(TurntableQueue owner, Measurement measurement, boolean median, int windowSize, boolean histograms) {
        this.owner = owner;
        this.measurement = measurement;
        this.median = median;
        this.windowSize = windowSize;
        TaskTimeWindows.create(median, windowSize); // validates the size up front
        this.histograms = histograms;
        if (histograms) {
            makeRecorders();
        }
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
        if ((f & REMAINING) != 0 && !taskStealing) {
            f |= EXACT_STARTS;
        }
        int started = f & ~flags & (RUN | WAIT | CPU);
        flags = f;
        if (started != 0) {
            // A time collected again after a spell without it (a switch from LEAST_USED to
            // LEAST_BUSY, say): its totals missed the tasks in between, which the completed
            // count did not, so a total over that count made each task look nearly free. Each
            // worker starts its times afresh at its next task, as after reset() (the
            // histograms are not touched). After the flags: a worker that sees the new epoch
            // collects what they now say.
            epoch++;
        }
    }

    /** Task stealing switched (or set at construction): what to collect may change with it; any thread. */
    synchronized void setTaskStealing(boolean on, WorkerChoiceStrategy active) {
        taskStealing = on;
        configureFor(active);
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
        if (on && runTimes == null) {
            makeRecorders(); // before configureFor publishes the HISTOGRAMS bit
        }
        histograms = on;
        configureFor(active);
    }

    /** Under this object's lock (or in the constructor): the recorders, with a slot for every worker. */
    private void makeRecorders() {
        waitTimes = new LatencyRecorder(slotCount, HIGHEST_TRACKABLE_NANOS);
        runTimes = new LatencyRecorder(slotCount, HIGHEST_TRACKABLE_NANOS);
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
        if ((f & CPU) != 0 && Threads.CPU_CLOCK) {
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

    /**
     * Submitters: whether the strategy ages running tasks (remaining times are collected), so
     * that submitters date the tasks of unknown start they see running
     * ({@code TurntableQueue.choose}). Such tasks arise while tiny tasks are timed in a sample
     * (task stealing on, latency histograms off); switching either of those leaves the task
     * running at the switch untimed, which is why this does not ask for them.
     */
    boolean observesStarts() {
        return (flags & REMAINING) != 0;
    }

    /** Whether each task's CPU time is needed (the estimate measures CPU), not just the worker's total. */
    private boolean perTaskCpu(int f) {
        return (f & ESTIMATE) != 0 && measurement == Measurement.CPU_TIME;
    }

    /**
     * Worker thread, when it finds no work and is about to spin or park: closes its busy stretch
     * of CPU accounting, makes its buffered histogram samples visible and forgets its last task's start.
     */
    void workerIdle(WorkerSlot s) {
        if ((flags & REMAINING) != 0 && s.runningSinceNanos != WorkerView.START_UNKNOWN) {
            // The last task's start must not outlive it: waking, this worker claims its next task
            // (running reads 1) a moment before it publishes that task's start, and FAIR_SHARE
            // would meanwhile read the old start, long ago after an idle spell, as one task running
            // all that time, and queue work behind the worker that is still running one.
            s.setRunningSince(WorkerView.START_UNKNOWN);
        }
        if (s.cpuStretchStartNanos >= 0) {
            s.addCpuTime(Math.max(0, Threads.BEAN.getCurrentThreadCpuTime() - s.cpuStretchStartNanos));
            s.cpuStretchStartNanos = -1;
        }
        if ((flags & HISTOGRAMS) != 0) {
            runTimes.flush(s.index);
            waitTimes.flush(s.index);
        }
    }

    /**
     * A worker's slot is being freed (its thread exits, retires, or died and is being reaped):
     * publishes the histogram samples it buffered. Workers publish them when they go idle, and
     * one that leaves straight after a task (the task threw, or its lifetime ran out) never does;
     * after shutdown no other thread would take the slot and publish them either, and a batch
     * that ended in failures showed none of its run times. Called under the registration lock,
     * by the leaving owner, or for a dead one by the thread that saw it dead (its death
     * happens-before that look, {@code Thread.isAlive}); the next owner registers under the same
     * lock, so the buffer keeps one writer at a time. Cold: once per worker exit.
     */
    void workerLeaving(WorkerSlot s) {
        LatencyRecorder r = runTimes;
        if (r != null && s.index < r.slotCount()) {
            r.flush(s.index);
        }
        LatencyRecorder w = waitTimes;
        if (w != null && s.index < w.slotCount()) {
            w.flush(s.index);
        }
    }

    /** Discards every worker's times, windows and histograms; any thread. */
    synchronized void reset() {
        epoch++;
        if (runTimes != null) {
            runTimes.reset();
            waitTimes.reset();
        }
        poolEstimate.nanos = 0;
    }

    /**
     * Called (under the queue's registration lock) before a worker with a new slot starts. This
     * object's lock is a leaf: none of its holders takes another lock.
     */
    synchronized void ensureSlots(int count) {
        slotCount = Math.max(slotCount, count);
        if (runTimes != null) {
            runTimes.ensureSlots(count);
            waitTimes.ensureSlots(count);
        }
    }

    LatencySnapshot runTimeSnapshot() {
        LatencyRecorder r = runTimes;
        return r == null ? LatencySnapshot.EMPTY : r.intervalSnapshot();
    }

    LatencySnapshot waitTimeSnapshot() {
        LatencyRecorder r = waitTimes;
        return r == null ? LatencySnapshot.EMPTY : r.intervalSnapshot();
    }

    /**
     * Whether {@code s}'s time statistics belong to the current epoch: after
     * {@link #reset()}, a slot whose owner has not run a task since reads as zeros.
     */
    boolean isCurrent(WorkerSlot s) {
        return s.statsEpochSeen == epoch;
    }

    /**
     * Whether {@code s}'s values of the statistic {@code bit} (one of the constants above) are
     * collected now and belong to the current epoch: what a strategy may read
     * ({@link SlotView}). A statistic no longer collected keeps its last values in the slot (a
     * switch from FAIR_SHARE to LEAST_USED clears nothing); this keeps them from a strategy that
     * did not declare it. Two reads of rarely written volatile fields.
     */
    boolean isCurrent(WorkerSlot s, int bit) {
        return (flags & bit) != 0 && s.statsEpochSeen == epoch;
    }

    /** {@link PoolEstimate#nanos} while estimates are collected, else 0. */
    long poolEstimateNanos() {
        return (flags & ESTIMATE) != 0 ? poolEstimate.nanos : 0L;
    }

    /** A new owner starts from the current epoch and builds its window on first use. */
    void adopt(WorkerSlot s) {
        s.resetForNewOwner();
        s.statsEpochSeen = epoch;
    }

    /**
     * Worker thread, as it takes a task offered at {@code offeredNanos} (0 when not stamped);
     * {@code nowNanos} is a clock read the caller already has, or 0.
     *
     * <p>Run time: while the worker's recent tasks are long enough ({@link #SAMPLE_BELOW_NANOS}),
     * or latency histograms are on, every task is timed, and back to back one clock read both ends
     * a task and starts the next. While they are shorter, a task is timed with probability
     * 1/{@link #SAMPLE_RUN_EVERY}: the choice is made before the task runs, so the window gets
     * an unbiased sample whatever the tasks' lengths. In the totals a timed task stands for
     * {@code SAMPLE_RUN_EVERY} tasks: its own run time plus the others' at the recent average.
     * An untimed task reads no clock unless it is stamped (wait time). Every task is timed while
     * latency histograms are on (they count every task), and while remaining times are collected
     * with task stealing off ({@link #EXACT_STARTS}). With remaining times collected and stealing
     * on ({@code FAIR_SHARE} ages each running task), an untimed task publishes its start as
     * {@link dev.turntable.pool.strategy.WorkerView#START_UNKNOWN} (or as the clock read the
     * caller already has): an older task's start would make it look long-running. Submitters
     * then date it when they see it running ({@link #observesStarts}). Profiled on
     * FAIR_SHARE's no-op dispatch before this sampling applied to it, the clock was a fifth of all
     * CPU and the remaining-time table's upkeep another 5%.
     */
    void taskStarted(WorkerSlot s, long offeredNanos, long nowNanos) {
        int f = flags;
        int e = epoch;
        if (s.statsEpochSeen != e) {
            s.clearTimes();
            s.statsEpochSeen = e; // after clearing: a reader that sees the new epoch sees zeros
        }
        s.flagsAtStart = f;
        s.timedTaskWeight = 0;
        boolean run = (f & RUN) != 0;
        boolean stamped = (f & WAIT) != 0 && offeredNanos != 0;
        if (run || stamped) {
            int weight = 0;
            if (run) {
                // Histograms count every task; FAIR_SHARE without stealing needs every start.
                weight = !sampling(s) || (f & (HISTOGRAMS | EXACT_STARTS)) != 0 ? 1
                        : sampleThisTask(s) ? SAMPLE_RUN_EVERY : 0;
                if (weight == 0 && !stamped && (f & REMAINING) != 0) { // (stamped: set from the clock below)
                    long since = nowNanos != 0 ? nowNanos : WorkerView.START_UNKNOWN;
                    if (s.runningSinceNanos != since) {
                        s.setRunningSince(since); // unchanged, not stored: the line submitters read
                    }
                }
            }
            if (weight != 0 || stamped) {
                long now = nowNanos != 0 ? nowNanos : System.nanoTime();
                s.timedTaskWeight = weight;
                if (run) {
                    s.setRunningSince(now);
                }
                if (stamped) {
                    long waitNanos = Math.max(0, now - offeredNanos);
                    s.addWaitTime(waitNanos * WAIT_SAMPLE_EVERY); // one sample stands for eight tasks
                    if ((f & HISTOGRAMS) != 0) {
                        waitTimes.record(s.index, waitNanos);
                    }
                    sample(s, f, Measurement.WAIT_TIME, waitNanos);
                }
            }
        }
        if ((f & CPU) != 0 && Threads.CPU_CLOCK) {
            if (perTaskCpu(f)) {
                s.taskStartCpuNanos = Threads.BEAN.getCurrentThreadCpuTime();
            } else if (s.cpuStretchStartNanos < 0) {
                // Busy-stretch accounting: ~1 µs clock reads at the start and end of each stretch
                // of back-to-back tasks and every 32 tasks or ~50 µs of CPU within it (the more
                // tasks of the two), never while spinning idle.
                s.cpuStretchStartNanos = Threads.BEAN.getCurrentThreadCpuTime();
                s.cpuTasksInStretch = 0;
            }
        }
    }

    /** Owner: whether to time the next task while sampling (probability 1/{@link #SAMPLE_RUN_EVERY}). */
    static boolean sampleThisTask(WorkerSlot s) {
        int x = s.sampleSeed; // xorshift32: owner-private, a few cycles, never 0 from a non-zero seed
        x ^= x << 13;
        x ^= x >>> 17;
        x ^= x << 5;
        s.sampleSeed = x;
        return (x >>> 28) == 0; // top 4 bits: 1 in 16
    }

    /**
     * Owner: folds a timed task's run time into the recent average, which decides whether the
     * next tasks are timed in a sample ({@link #sampling}). The average moves 1/8 of the way, so
     * one long task among short ones (say 1 ms among 100 ns) turns sampling off at once, and it
     * takes about 30 short tasks, all timed, before sampling resumes.
     */
    static void recordRecent(WorkerSlot s, long runNanos) {
        long r = s.recentRunNanos;
        s.recentRunNanos = r < 0 ? runNanos : r + ((runNanos - r) >> 3);
    }

    /** Owner: whether the worker's recent timed tasks are short enough to time only a sample. */
    static boolean sampling(WorkerSlot s) {
        long r = s.recentRunNanos;
        return r >= 0 && r < SAMPLE_BELOW_NANOS;
    }

    /**
     * Worker thread, once the task it took has ended (at its next poll, or as it exits).
     *
     * @return the clock read taken to end it, or 0 if its run time was not measured
     */
    long taskFinished(WorkerSlot s) {
        // Only what was measured at the start and is still wanted now: a switch in between
        // simply drops that one sample rather than recording a half-measured one.
        int f = s.flagsAtStart & flags;
        long endNanos = 0L;
        int weight = s.timedTaskWeight;
        if ((f & RUN) != 0 && weight != 0) {
            endNanos = System.nanoTime();
            long runNanos = Math.max(0, endNanos - s.runningSinceNanos);
            // A sampled task counts its own time once and the others it stands for at the recent
            // average: scaled up instead, one preempted no-op (a millisecond) would charge its
            // worker 16 ms at once and LEAST_BUSY would starve it of tasks for that long.
            // (Weight above 1 only while sampling, and so with a recent average of at least 0.)
            long standInNanos = weight == 1 ? 0L : (weight - 1) * s.recentRunNanos;
            s.addRunTime(runNanos + standInNanos, weight);
            if ((f & HISTOGRAMS) != 0) {
                runTimes.record(s.index, runNanos);
            }
            sample(s, f, Measurement.RUN_TIME, runNanos);
            recordRecent(s, runNanos);
        }
        if ((f & CPU) != 0 && Threads.CPU_CLOCK) {
            if (perTaskCpu(f)) {
                long cpuNanos = Math.max(0, Threads.BEAN.getCurrentThreadCpuTime() - s.taskStartCpuNanos);
                s.addCpuTime(cpuNanos);
                sample(s, f, Measurement.CPU_TIME, cpuNanos);
            } else if (s.cpuStretchStartNanos >= 0 && ++s.cpuTasksInStretch >= s.cpuReadEveryTasks) {
                long now = Threads.BEAN.getCurrentThreadCpuTime();
                long cpuNanos = Math.max(0, now - s.cpuStretchStartNanos);
                s.addCpuTime(cpuNanos);
                s.cpuReadEveryTasks = cpuReadEveryTasks(s.cpuTasksInStretch, cpuNanos);
                s.cpuStretchStartNanos = now;
                s.cpuTasksInStretch = 0;
            }
        }
        return endNanos;
    }

    /**
     * Tasks until the next read of the thread CPU clock within a busy stretch, from the last
     * interval ({@code tasks} tasks took {@code cpuNanos}): about {@link #CPU_READ_TARGET_NANOS}
     * of CPU time, but never fewer than {@link #CPU_READ_EVERY_TASKS} tasks (long tasks keep the
     * old freshness) nor more than {@link #CPU_READ_MAX_TASKS}.
     */
    static int cpuReadEveryTasks(int tasks, long cpuNanos) {
        if (cpuNanos <= 0) {
            return CPU_READ_MAX_TASKS; // too fast for the clock's resolution
        }
        long every = tasks * CPU_READ_TARGET_NANOS / cpuNanos; // tasks <= 1024: no overflow
        return (int) Math.max(CPU_READ_EVERY_TASKS, Math.min(CPU_READ_MAX_TASKS, every));
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
