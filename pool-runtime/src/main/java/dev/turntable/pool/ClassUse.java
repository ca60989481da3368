package dev.turntable.pool;

import dev.turntable.pool.classes.ClassConfig;
import dev.turntable.pool.classes.LoadSnapshot;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * How much worker time each task class has used since its classes and shares were set: the
 * planner's memory where workers are too few to go round ({@link LoadSnapshot#classUsage}). One
 * per set of classes, made by {@link ClassPass}. Threads: workers (and reapers, terminating
 * threads) charge ended tasks through {@link ClassedTask#chargeUse} ({@link #chargeEnded});
 * everything else runs inside a scheduling pass, one at a time.
 *
 * <p>Time, not starts: counted in starts, a class whose tasks were 10 times longer got 10 times
 * its share of a split worker's time (1 worker at 75:25, 10 ms batch tasks and 1 ms interactive
 * ones: batch about 75% of the time). A task is timed by its worker, from taking it to coming
 * back for the next, with the pool's ticker; not between passes: that, tried first, measured how
 * long the OS left a worker holding a task it had been given (57 of 100 no-op starts at 50:50).
 * A pass plans with the ended tasks' time, the running tasks' time so far (a class holding a
 * worker with a long task is not owed more meanwhile) and 1 per task started, which ranks
 * classes whose tasks have used no measurable time yet (none has ended, or a test's clock
 * stands still) by their starts. Each pass charges the running tasks' time so far into the
 * totals ({@link #addRunning}), and the task's end only the rest: so the halving fades a long
 * task's time with the rest. Added whole on each pass instead, the time of a task running for
 * hours outgrew the halved totals, and its class looked far above its share whatever else it
 * ran (2 workers at 75:25, the 75% class's long task on one: it got none of the other once that
 * task had run about 40 minutes).
 */
final class ClassUse {

    /**
     * Use is halved, all classes together, once a class's passes 2^40 ns (about 18 minutes of
     * worker time): the ratios stand, and what a class is owed from long ago fades.
     */
    private static final long HALVING_AT_NANOS = 1L << 40;

    /** What ended tasks charged since the last pass, by class. */
    private final AtomicLongArray charges;
    /** Tasks' time charged so far (ended, and running up to a pass) plus 1 per start, by class. */
    private final long[] used;

    ClassUse(int classCount) {
        charges = new AtomicLongArray(classCount);
        used = new long[classCount];
    }

    /** A task of class {@code classIndex} started under these classes has ended, having used {@code nanos} more; any thread. */
    void chargeEnded(int classIndex, long nanos) {
        charges.getAndAdd(classIndex, nanos);
    }

    /**
     * Pass only, first: adds in the time of the tasks that ended since the last pass, and halves
     * the totals if one has passed the mark (the last pass's running charges too); then
     * {@link #addRunning} charges the running tasks' time so far, and {@link #evenIdle} evens the
     * idle classes.
     */
    void collect() {
        int n = used.length;
        boolean halve = false;
        for (int i = 0; i < n; i++) {
            long charged = charges.get(i);
            if (charged != 0) {
                charges.getAndAdd(i, -charged); // not set to 0: a task may end meanwhile
                used[i] += charged;
            }
            halve |= used[i] > HALVING_AT_NANOS;
        }
        if (halve) {
            // Halved together, the counts keep their ratios; the planner reads them as ratios.
            for (int i = 0; i < n; i++) {
                used[i] >>= 1;
            }
        }
    }

    /**
     * A class with nothing waiting or running is owed nothing: a use below its percent of all
     * use is raised to it. Otherwise a class away for an hour came back owed its share of
     * everything the others had used meanwhile, and took every worker the shares split until it
     * had caught up, while the others waited. What it owes stays: set even, a class that submits
     * one task at a time came back even after each, fell behind at the next task of another
     * class and won the next worker, every time (a review: 38 to 68 of 200 starts at a 10% share
     * of one worker).
     *
     * <p>Pass only, after {@link #addRunning} for every slot ({@code waiting} and {@code running}
     * by class): evened with what the others used including their running tasks' time so far.
     * Evened with their ended tasks' time only, a class was owed, once back, all the time of a
     * task that had run while it was away, charged as it ended (one worker at 50:50, a's 1 s task
     * running while b was idle: b, back, ran 20 tasks of 10 ms in a row before a ran again).
     */
    void evenIdle(ClassConfig c, int[] waiting, int[] running) {
        int n = used.length;
        long all = 0;
        for (int i = 0; i < n; i++) {
            if (c.normalisedPercent(i) > 0) {
                all += used[i];
            }
        }
        for (int i = 0; i < n; i++) {
            int pct = c.normalisedPercent(i);
            if (pct == 0 || pct >= 100 || waiting[i] != 0 || running[i] != 0) {
                continue;
            }
            // even = pct% of (others + even), so others * pct / (100 - pct); split to stay exact
            long others = all - used[i];
            long even = others / (100 - pct) * pct + others % (100 - pct) * pct / (100 - pct);
            if (used[i] < even) {
                all += even - used[i];
                used[i] = even;
            }
        }
    }

    /**
     * Pass only, after {@link #collect} and before {@link #evenIdle}: charges the time so far of
     * {@code runningClassTask}, a slot's running classed task (or whatever that field holds), if
     * it was started under these classes: the time since it was last charged
     * ({@link ClassedTask#takeUse}), so its end charges only the rest. Read from the slot's
     * volatile field, after which its taken time is seen. Ending meanwhile, it is charged for
     * the next pass.
     */
    void addRunning(Object runningClassTask, long nowNanos) {
        if (runningClassTask instanceof ClassedTask) {
            ClassedTask ct = (ClassedTask) runningClassTask;
            int ci = ct.classIndexIn(this);
            if (ci >= 0) {
                used[ci] += ct.takeUse(nowNanos);
            }
        }
    }

    /** Pass only: what class {@code classIndex} has used, for the planner. */
    long used(int classIndex) {
        return used[classIndex];
    }

    /** Pass only: class {@code classIndex} started {@code tasks} tasks. */
    void started(int classIndex, int tasks) {
        used[classIndex] += tasks;
    }
}
