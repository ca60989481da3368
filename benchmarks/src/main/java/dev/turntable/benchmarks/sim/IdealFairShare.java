package dev.turntable.benchmarks.sim;

import dev.turntable.pool.strategy.Statistic;
import dev.turntable.pool.strategy.WorkerChoiceStrategy;
import dev.turntable.pool.strategy.WorkerView;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * {@code IDEAL_FAIR_SHARE}, a simulator-only reference policy: fair share (lowest predicted end)
 * with the <em>exact</em> expected remaining time of a running task in the simulated two-point mix,
 * which no real strategy can know. A task still running at {@code elapsed} is either a short one
 * (only possible while {@code elapsed < SHORT}) or a long one; its expected remaining time is the
 * mix's mean residual life: {@code mean - elapsed} before the short duration has passed, and
 * {@code LONG - elapsed} after. A queued task or the one being placed costs the mix's mean,
 * because its length is unknown until it runs.
 *
 * <p>What it is for: the bound on what any placement by predicted end can reach without
 * stealing. If this policy misses a latency goal, no better prediction inside
 * {@code FAIR_SHARE} can meet it. Threads: the simulator's single thread. Ties go to the lowest
 * index.
 */
final class IdealFairShare implements WorkerChoiceStrategy {

    /** The name the simulator lists this policy under. */
    static final String NAME = "IDEAL_FAIR_SHARE";

    private final long meanNanos;

    IdealFairShare(long meanNanos) {
        this.meanNanos = meanNanos;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Set<Statistic> requiredStatistics() {
        return Collections.unmodifiableSet(EnumSet.noneOf(Statistic.class));
    }

    @Override
    public boolean usesClock() {
        return true;
    }

    @Override
    public int choose(WorkerView workers, long nowNanos) {
        int best = NONE;
        long bestEndNanos = Long.MAX_VALUE;
        for (int i = 0; i < workers.count(); i++) {
            long remainingNanos = 0;
            if (workers.running(i) > 0) {
                long elapsedNanos = workers.runningForNanos(i, nowNanos); // the simulator always knows the start
                remainingNanos = elapsedNanos < StrategySimulator.SHORT_NANOS
                        ? meanNanos - elapsedNanos
                        : StrategySimulator.LONG_NANOS - elapsedNanos;
            }
            long endNanos = remainingNanos + (workers.queued(i) + 1L) * meanNanos;
            if (endNanos < bestEndNanos) {
                best = i;
                bestEndNanos = endNanos;
            }
        }
        return best;
    }
}
