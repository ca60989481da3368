package dev.turntable.pool.classes;

/**
 * The planner's output: per task class, how many tasks to start and how many of its most
 * recently started tasks to stop, plus the rebalance state to pass to the next plan. Mutable and
 * reusable (it also holds the planner's scratch arrays, so reusing it makes planning
 * allocation-free); not thread-safe: keep one per calling thread. Each
 * {@link LoadPlanner#plan(ClassConfig, LoadSnapshot, long, RebalanceState, LoadPlan)} overwrites it.
 *
 * <p>The engine applies a plan by stopping {@link #tasksToStop(int)} of each class's most
 * recently started tasks first, then starting {@link #tasksToStart(int)} of each class (within a
 * class, jobs chosen with {@link JobRoundRobin}), on workers its strategy chooses.
 */
public final class LoadPlan {

    private final ClassConfig config;
    final int[] starts;
    final int[] stops;
    final int[] entitled;
    final int[] ceiling;
    // scratch, meaningful only during a plan
    final int[] running;
    final int[] waitingLeft;
    final int[] entitlement;
    final int[] percent;
    /** How far each class's usage so far is below its percent of all usage ({@code LoadPlanner.behind}). */
    final long[] behind;
    /** Entitlements for starting: {@link #entitled}, but the workers the floors leave go by {@link #behind}. */
    final int[] seats;
    /** Class indexes, furthest {@link #behind} first, then in class order: the order {@code LoadPlanner.share} serves. */
    final int[] order;
    boolean rebalanced;
    int deltaSpreadPercent;
    RebalanceState nextState = RebalanceState.INITIAL;

    /** An empty plan (nothing to start or stop) for the classes of {@code config}. */
    public LoadPlan(ClassConfig config) {
        this.config = config;
        int n = config.classCount();
        starts = new int[n];
        stops = new int[n];
        entitled = new int[n];
        ceiling = new int[n];
        running = new int[n];
        waitingLeft = new int[n];
        entitlement = new int[n];
        percent = new int[n];
        behind = new long[n];
        seats = new int[n];
        order = new int[n];
    }

    /** The configuration whose class order this plan uses. */
    public ClassConfig config() {
        return config;
    }

    /** Tasks of class {@code classIndex} to start. */
    public int tasksToStart(int classIndex) {
        return starts[classIndex];
    }

    /** Tasks of the class called {@code className} to start (0 for an unknown name). */
    public int tasksToStart(String className) {
        int i = config.classIndex(className);
        return i < 0 ? 0 : starts[i];
    }

    /** How many of the most recently started tasks of class {@code classIndex} to stop. */
    public int tasksToStop(int classIndex) {
        return stops[classIndex];
    }

    /** How many of the most recently started tasks of the class {@code className} to stop (0 if unknown). */
    public int tasksToStop(String className) {
        int i = config.classIndex(className);
        return i < 0 ? 0 : stops[i];
    }

    /** Tasks to start, all classes together. */
    public int totalTasksToStart() {
        int t = 0;
        for (int s : starts) {
            t += s;
        }
        return t;
    }

    /** Tasks to stop, all classes together. */
    public int totalTasksToStop() {
        int t = 0;
        for (int s : stops) {
            t += s;
        }
        return t;
    }

    /**
     * The workers class {@code classIndex} is entitled to in this pool: the whole workers of its
     * normalised percent of all workers, and a worker the floors leave to the classes with the
     * larger fractions of one, so entitlements sum to the workers.
     */
    public int entitledWorkers(int classIndex) {
        return entitled[classIndex];
    }

    /**
     * The most workers class {@code classIndex} keeps through a rebalance: its exact share of
     * the workers rounded up, so one more than {@link #entitledWorkers} where the shares split a
     * worker it was not entitled to. A rebalance stops its tasks only above this: such a worker
     * goes to the classes by their usage of the workers ({@link LoadSnapshot#classUsage}), not by
     * stopping one (stopped for the fixed entitlement and then handed back by the starts, it cost
     * a restartable task per round: a review).
     */
    public int ceilingWorkers(int classIndex) {
        return ceiling[classIndex];
    }

    /**
     * The delta entitlement spread of the snapshot, in percentage points: over the classes that
     * wait or use more than their percent, the largest (percent - used percent) minus the
     * smallest, both taken with 0.
     */
    public int deltaSpreadPercent() {
        return deltaSpreadPercent;
    }

    /** Whether this plan rebalances (its numbers bring classes back to their entitlements). */
    public boolean rebalanced() {
        return rebalanced;
    }

    /** The rebalance state to pass to the next plan. */
    public RebalanceState nextState() {
        return nextState;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("spread=").append(deltaSpreadPercent);
        if (rebalanced) {
            sb.append(" rebalanced");
        }
        for (int i = 0; i < starts.length; i++) {
            sb.append(' ').append(config.className(i)).append("(start=").append(starts[i])
                    .append(" stop=").append(stops[i]).append(" entitled=").append(entitled[i]).append(')');
        }
        return sb.toString();
    }
}
