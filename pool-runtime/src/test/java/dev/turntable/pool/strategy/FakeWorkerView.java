package dev.turntable.pool.strategy;

import java.util.Arrays;

/**
 * A hand-built, array-backed {@link WorkerView} for tests: no threads, no clock. Every value is set
 * explicitly (setters return {@code this} for chaining), and {@link #dispatch}, {@link #start} and
 * {@link #complete} move tasks through a worker's life the way the engine would, so a test can
 * simulate a pool step by step. New workers are available, idle, without history, and weigh
 * {@link #DEFAULT_WEIGHT_NANOS}. Not thread-safe; one test thread.
 */
final class FakeWorkerView implements WorkerView {

    /** Weight of a worker nobody set one for: 1 ms. */
    static final long DEFAULT_WEIGHT_NANOS = 1_000_000L;

    private int count;
    private boolean[] available = new boolean[0];
    private boolean[] exists = new boolean[0];
    private long maxLifetimeTasks;
    private int[] queued = new int[0];
    private int[] running = new int[0];
    private long[] completed = new long[0];
    /** Tasks the time totals cover, per worker; -1: as many as completed (the default). */
    private long[] historyTasks = new long[0];
    private long[] lifetimeTasks = new long[0];
    private long[] runTimeTotalNanos = new long[0];
    private long[] waitTimeTotalNanos = new long[0];
    private long[] cpuTimeNanos = new long[0];
    private long[] runningSinceNanos = new long[0];
    private long[] taskTimeEstimateNanos = new long[0];
    private long[] weightNanos = new long[0];
    private long poolTaskTimeEstimateNanos;
    /** Per worker, the recent task times remainingTimeNanos answers from; empty = not collected. */
    private long[][] recentTaskTimesNanos = new long[0][];

    FakeWorkerView(int count) {
        setCount(count);
    }

    /**
     * Grows or shrinks the pool. Growing adds fresh workers (available, idle, no history, default
     * weight); shrinking forgets the removed workers, and growing again later gives fresh ones.
     */
    FakeWorkerView setCount(int newCount) {
        if (newCount < 0) {
            throw new IllegalArgumentException("count " + newCount);
        }
        int old = count;
        available = Arrays.copyOf(available, newCount);
        exists = Arrays.copyOf(exists, newCount);
        queued = Arrays.copyOf(queued, newCount);
        running = Arrays.copyOf(running, newCount);
        completed = Arrays.copyOf(completed, newCount);
        historyTasks = Arrays.copyOf(historyTasks, newCount);
        lifetimeTasks = Arrays.copyOf(lifetimeTasks, newCount);
        runTimeTotalNanos = Arrays.copyOf(runTimeTotalNanos, newCount);
        waitTimeTotalNanos = Arrays.copyOf(waitTimeTotalNanos, newCount);
        cpuTimeNanos = Arrays.copyOf(cpuTimeNanos, newCount);
        runningSinceNanos = Arrays.copyOf(runningSinceNanos, newCount);
        taskTimeEstimateNanos = Arrays.copyOf(taskTimeEstimateNanos, newCount);
        weightNanos = Arrays.copyOf(weightNanos, newCount);
        recentTaskTimesNanos = Arrays.copyOf(recentTaskTimesNanos, newCount);
        for (int i = old; i < newCount; i++) {
            recentTaskTimesNanos[i] = new long[0];
            historyTasks[i] = -1;
            available[i] = true;
            exists[i] = true;
            weightNanos[i] = DEFAULT_WEIGHT_NANOS;
        }
        count = newCount;
        return this;
    }

    // ---- the pool's life -------------------------------------------------------------------

    /** A task was placed on worker {@code i}'s queue: queued and lifetime count grow. */
    FakeWorkerView dispatch(int i) {
        queued[i]++;
        lifetimeTasks[i]++;
        return this;
    }

    /** Worker {@code i} took a task from its queue and started it at {@code nowNanos}. */
    FakeWorkerView start(int i, long nowNanos) {
        if (queued[i] > 0) {
            queued[i]--;
        }
        running[i]++;
        runningSinceNanos[i] = nowNanos;
        return this;
    }

    /**
     * A task finished on worker {@code i}: it leaves running (or, if none is running, the queue),
     * the completed count grows, and the measured times are added to the totals.
     */
    FakeWorkerView complete(int i, long runNanos, long waitNanos, long cpuNanos) {
        if (running[i] > 0) {
            running[i]--;
        } else if (queued[i] > 0) {
            queued[i]--;
        }
        completed[i]++;
        runTimeTotalNanos[i] += runNanos;
        waitTimeTotalNanos[i] += waitNanos;
        cpuTimeNanos[i] += cpuNanos;
        return this;
    }

    /** {@link #complete(int, long, long, long)} with no wait and CPU time equal to run time. */
    FakeWorkerView complete(int i, long runNanos) {
        return complete(i, runNanos, 0L, runNanos);
    }

    // ---- setters ---------------------------------------------------------------------------

    FakeWorkerView setAvailable(int i, boolean value) {
        available[i] = value;
        return this;
    }

    /** Makes every worker available or unavailable. */
    FakeWorkerView setAllAvailable(boolean value) {
        Arrays.fill(available, value);
        return this;
    }

    /** Whether a thread owns worker {@code i} (a free slot: false); available workers should exist. */
    FakeWorkerView setExists(int i, boolean value) {
        exists[i] = value;
        return this;
    }

    FakeWorkerView setMaxLifetimeTasks(long value) {
        maxLifetimeTasks = value;
        return this;
    }

    /** Sets the lifetimes of workers {@code 0, 1, ...} in order. */
    FakeWorkerView setLifetimes(long... values) {
        for (int i = 0; i < values.length; i++) {
            lifetimeTasks[i] = values[i];
        }
        return this;
    }

    FakeWorkerView setQueued(int i, int value) {
        queued[i] = value;
        return this;
    }

    FakeWorkerView setRunning(int i, int value) {
        running[i] = value;
        return this;
    }

    FakeWorkerView setCompleted(int i, long value) {
        completed[i] = value;
        return this;
    }

    /** Tasks worker {@code i}'s time totals cover (fewer than it completed after a reset); unset: all it completed. */
    FakeWorkerView setHistoryTasks(int i, long value) {
        historyTasks[i] = value;
        return this;
    }

    FakeWorkerView setLifetimeTasks(int i, long value) {
        lifetimeTasks[i] = value;
        return this;
    }

    FakeWorkerView setRunTimeTotalNanos(int i, long value) {
        runTimeTotalNanos[i] = value;
        return this;
    }

    FakeWorkerView setWaitTimeTotalNanos(int i, long value) {
        waitTimeTotalNanos[i] = value;
        return this;
    }

    FakeWorkerView setCpuTimeNanos(int i, long value) {
        cpuTimeNanos[i] = value;
        return this;
    }

    FakeWorkerView setRunningSinceNanos(int i, long value) {
        runningSinceNanos[i] = value;
        return this;
    }

    FakeWorkerView setTaskTimeEstimateNanos(int i, long value) {
        taskTimeEstimateNanos[i] = value;
        return this;
    }

    /** Sets every worker's estimate. */
    FakeWorkerView setAllTaskTimeEstimateNanos(long value) {
        Arrays.fill(taskTimeEstimateNanos, value);
        return this;
    }

    FakeWorkerView setWeightNanos(int i, long value) {
        weightNanos[i] = value;
        return this;
    }

    /** Worker {@code i}'s recent task times, which {@link #remainingTimeNanos} answers from. */
    FakeWorkerView setRecentTaskTimesNanos(int i, long... samplesNanos) {
        recentTaskTimesNanos[i] = samplesNanos.clone();
        return this;
    }

    /** Sets every worker's recent task times. */
    FakeWorkerView setAllRecentTaskTimesNanos(long... samplesNanos) {
        for (int i = 0; i < count; i++) {
            setRecentTaskTimesNanos(i, samplesNanos);
        }
        return this;
    }

    FakeWorkerView setPoolTaskTimeEstimateNanos(long value) {
        poolTaskTimeEstimateNanos = value;
        return this;
    }

    // ---- WorkerView ------------------------------------------------------------------------

    @Override
    public int count() {
        return count;
    }

    @Override
    public boolean isAvailable(int worker) {
        return available[check(worker)];
    }

    @Override
    public boolean exists(int worker) {
        return exists[check(worker)];
    }

    @Override
    public long maxLifetimeTasks() {
        return maxLifetimeTasks;
    }

    @Override
    public int queued(int worker) {
        return queued[check(worker)];
    }

    @Override
    public int running(int worker) {
        return running[check(worker)];
    }

    @Override
    public long completed(int worker) {
        return completed[check(worker)];
    }

    @Override
    public long historyTasks(int worker) {
        long h = historyTasks[check(worker)];
        return h < 0 ? completed[worker] : h;
    }

    @Override
    public long lifetimeTasks(int worker) {
        return lifetimeTasks[check(worker)];
    }

    @Override
    public long runTimeTotalNanos(int worker) {
        return runTimeTotalNanos[check(worker)];
    }

    @Override
    public long waitTimeTotalNanos(int worker) {
        return waitTimeTotalNanos[check(worker)];
    }

    @Override
    public long cpuTimeNanos(int worker) {
        return cpuTimeNanos[check(worker)];
    }

    @Override
    public long runningSinceNanos(int worker) {
        return runningSinceNanos[check(worker)];
    }

    /**
     * The definition, computed directly: the mean of the recent samples longer than
     * {@code elapsedNanos}, minus it (integer division, as the engine's table does); -1 without one.
     */
    @Override
    public long remainingTimeNanos(int worker, long elapsedNanos) {
        long sum = 0;
        int longer = 0;
        for (long s : recentTaskTimesNanos[check(worker)]) {
            if (s > elapsedNanos) {
                sum += s;
                longer++;
            }
        }
        return longer == 0 ? -1L : sum / longer - elapsedNanos;
    }

    @Override
    public long taskTimeEstimateNanos(int worker) {
        return taskTimeEstimateNanos[check(worker)];
    }

    @Override
    public long poolTaskTimeEstimateNanos() {
        return poolTaskTimeEstimateNanos;
    }

    @Override
    public long weightNanos(int worker) {
        return weightNanos[check(worker)];
    }

    /** The contract says indices at or beyond count() must not be passed: fail loudly if they are. */
    private int check(int worker) {
        if (worker < 0 || worker >= count) {
            throw new IndexOutOfBoundsException("worker " + worker + " of count " + count);
        }
        return worker;
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("FakeWorkerView[");
        for (int i = 0; i < count; i++) {
            b.append(i == 0 ? "" : ", ").append(i).append(available[i] ? "" : "(unavailable)")
                    .append(" q=").append(queued[i]).append(" r=").append(running[i])
                    .append(" c=").append(completed[i]).append(" w=").append(weightNanos[i])
                    .append(" est=").append(taskTimeEstimateNanos[i])
                    .append(recentTaskTimesNanos[i].length == 0 ? "" : " recent=" + Arrays.toString(recentTaskTimesNanos[i]));
        }
        return b.append(", poolEst=").append(poolTaskTimeEstimateNanos).append(']').toString();
    }
}
