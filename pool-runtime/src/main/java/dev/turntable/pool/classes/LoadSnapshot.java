package dev.turntable.pool.classes;

/**
 * The planner's input: worker counts and, per task class, how many tasks wait and how many run.
 * Mutable and reusable; not thread-safe: keep one per calling thread (or fill and plan under
 * the same lock).
 *
 * <p>Classes are addressed by their planner index ({@link ClassConfig#classIndex(String)}) or
 * by name. {@code runningTasks} of a class counts its tasks occupying workers now; the engine
 * should count a task in the class it was started under. Counts given for a class at 0% are
 * ignored by the planner (its tasks never start, and running ones are never stopped).
 */
public final class LoadSnapshot {

    private final ClassConfig config;
    private final int[] waiting;
    private final int[] running;
    private final long[] used;
    private int totalWorkers;
    private int idleWorkers;

    /** An all-zero snapshot for the classes of {@code config}. */
    public LoadSnapshot(ClassConfig config) {
        this.config = config;
        this.waiting = new int[config.classCount()];
        this.running = new int[config.classCount()];
        this.used = new long[config.classCount()];
    }

    /** The configuration whose class order this snapshot uses. */
    public ClassConfig config() {
        return config;
    }

    /**
     * Sets the pool's worker counts.
     *
     * @param totalWorkers workers in the pool, at least 0
     * @param idleWorkers workers with nothing to run, from 0 to {@code totalWorkers}
     * @throws IllegalArgumentException if a count is out of range
     */
    public LoadSnapshot workers(int totalWorkers, int idleWorkers) {
        if (totalWorkers < 0 || idleWorkers < 0 || idleWorkers > totalWorkers) {
            throw new IllegalArgumentException("worker counts total=" + totalWorkers + " idle=" + idleWorkers
                    + " are not allowed: total at least 0, idle from 0 to total");
        }
        this.totalWorkers = totalWorkers;
        this.idleWorkers = idleWorkers;
        return this;
    }

    /**
     * Sets one class's task counts.
     *
     * @throws IllegalArgumentException if a count is negative
     * @throws IndexOutOfBoundsException if there is no class {@code classIndex}
     */
    public LoadSnapshot classLoad(int classIndex, int waitingTasks, int runningTasks) {
        if (waitingTasks < 0 || runningTasks < 0) {
            throw new IllegalArgumentException("task counts waiting=" + waitingTasks + " running=" + runningTasks
                    + " of class '" + config.className(classIndex) + "' are not allowed: at least 0");
        }
        waiting[classIndex] = waitingTasks;
        running[classIndex] = runningTasks;
        return this;
    }

    /**
     * Sets one class's task counts by class name.
     *
     * @throws IllegalArgumentException if there is no such class or a count is negative
     */
    public LoadSnapshot classLoad(String className, int waitingTasks, int runningTasks) {
        int i = config.classIndex(className);
        if (i < 0) {
            throw new IllegalArgumentException("class '" + className + "' is not configured; allowed: "
                    + config.classNames());
        }
        return classLoad(i, waitingTasks, runningTasks);
    }

    /**
     * Sets how much of the workers class {@code classIndex} has had so far: a running total the
     * caller keeps, in one unit for every class over the same span (the engine gives the worker
     * time, in nanoseconds, that each class's tasks have used, ended and running, plus 1 per
     * task started; a count of starts would do too, but gives a class with longer tasks more
     * than its share of the time). The planner's
     * memory where workers are too few to go round: 1 worker at {@code a:50;b:50}, a worker the
     * shares split (3 workers at {@code interactive:75;batch:25} are 2.25 + 0.75), a pass with
     * one worker to give. Such a worker goes first to the class whose share of this usage is
     * furthest below its percent, so over time each class gets its share; with no usage given
     * (all 0), in class order (see {@link LoadPlanner}).
     *
     * @throws IllegalArgumentException if the usage is negative
     * @throws IndexOutOfBoundsException if there is no class {@code classIndex}
     */
    public LoadSnapshot classUsage(int classIndex, long usage) {
        if (usage < 0) {
            throw new IllegalArgumentException("usage " + usage + " of class '"
                    + config.className(classIndex) + "' is not allowed: at least 0");
        }
        used[classIndex] = usage;
        return this;
    }

    /** Sets every count back to 0. */
    public LoadSnapshot clear() {
        java.util.Arrays.fill(waiting, 0);
        java.util.Arrays.fill(running, 0);
        java.util.Arrays.fill(used, 0L);
        totalWorkers = 0;
        idleWorkers = 0;
        return this;
    }

    /** Workers in the pool. */
    public int totalWorkers() {
        return totalWorkers;
    }

    /** Workers with nothing to run. */
    public int idleWorkers() {
        return idleWorkers;
    }

    /** Tasks of class {@code classIndex} waiting to start. */
    public int waitingTasks(int classIndex) {
        return waiting[classIndex];
    }

    /** Tasks of class {@code classIndex} running now. */
    public int runningTasks(int classIndex) {
        return running[classIndex];
    }

    /** Class {@code classIndex}'s usage so far, as given to {@link #classUsage}; 0 if not given. */
    public long usage(int classIndex) {
        return used[classIndex];
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("workers=").append(totalWorkers).append(" idle=").append(idleWorkers);
        for (int i = 0; i < waiting.length; i++) {
            sb.append(' ').append(config.className(i)).append("(waiting=").append(waiting[i])
                    .append(" running=").append(running[i]);
            if (used[i] != 0) {
                sb.append(" usage=").append(used[i]);
            }
            sb.append(')');
        }
        return sb.toString();
    }
}
