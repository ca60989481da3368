package dev.turntable.pool.strategy;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * {@code LEAST_BUSY}: gives each task to the available worker with the least busy time, where
 * {@code busyNanos(i) = runTimeTotalNanos(i) + waitTimeTotalNanos(i) + inFlight(i) * perTaskNanos(i)},
 * {@code inFlight = queued + running}, and {@code perTaskNanos} is the worker's average
 * {@code (runTimeTotal + waitTimeTotal) / historyTasks}, at least 1 ns; for a worker without
 * history of its own (a new thread, or nothing completed since a reset), the average of the
 * workers that have some, or 1 ns when none has.
 *
 * <p>Threads: any, concurrently (submitting threads); stateless, no locks. Ties go to the lowest
 * index. Cost: one pass over the workers, no allocation; sums and products saturate at
 * {@link Long#MAX_VALUE} instead of overflowing. Measures wall-clock run time and queue wait time
 * ({@link Statistic#RUN_TIME}, {@link Statistic#WAIT_TIME}).
 *
 * <p>Why the in-flight term: the totals only grow when tasks complete, so on totals alone a burst
 * submitted before anything completes would all land on one worker. Each dispatched task is
 * charged at the worker's average at once, and the charge is replaced by the real time when the
 * task completes. With no history at all it behaves like {@code LEAST_USED}.
 *
 * <p>A running task counts at the average until it ends: a worker deep in a task far longer
 * than its others looks no busier than its history says, and with task stealing off, tasks
 * queue behind it. When task times vary that much, {@code FAIR_SHARE}, which ages the running
 * task, places better.
 */
public final class LeastBusy implements WorkerChoiceStrategy {

    /** The name this strategy is registered under. */
    public static final String NAME = "LEAST_BUSY";

    private static final Set<Statistic> REQUIRED =
            Collections.unmodifiableSet(EnumSet.of(Statistic.RUN_TIME, Statistic.WAIT_TIME));

    /** A fresh (stateless) strategy. */
    public LeastBusy() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Set<Statistic> requiredStatistics() {
        return REQUIRED;
    }

    @Override
    public int choose(WorkerView workers, long nowNanos) {
        return Charges.leastCharged(workers, false);
    }


    @Override
    public String toString() {
        return NAME;
    }
}
