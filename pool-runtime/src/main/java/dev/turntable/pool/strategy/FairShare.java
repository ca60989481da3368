package dev.turntable.pool.strategy;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * {@code FAIR_SHARE}: gives each task to the available worker on which it is predicted to
 * <em>end</em> soonest:
 * <pre>
 * endNanos(i) = nowNanos + remainingNanos(i) + queued(i) * est(i) + est(i)
 * remainingNanos(i) = running(i) * (elapsed &lt; est(i) ? est(i) - elapsed : elapsed)   (0 when idle;
 *                    a task past the 1 ns placeholder, with no estimate measured yet, counts 0)
 * elapsed        = nowNanos - runningSinceNanos(i)
 * </pre>
 * where {@code est(i)} is {@link WorkerView#taskTimeEstimateNanos} if positive, else
 * {@link WorkerView#poolTaskTimeEstimateNanos} if positive, else 1 ns. This is the classic
 * {@code max(now, predictedEnd) + estimate}, with the prediction charged when a task is dispatched
 * (its worker's queue grows) and corrected when it completes (counts drop, the estimate updates),
 * so a burst submitted before anything completes spreads evenly instead of piling on one worker.
 * A running task that has outlived its estimate is expected to run about as long again as it
 * already has (task times are heavy-tailed: the longer one has run, the longer it is likely to
 * go on). Treating it as about to finish, as an earlier version did, queued short tasks behind
 * the long ones whenever stealing was off.
 *
 * <p>Threads: any, concurrently (submitting threads); stateless, no locks. Ties go to the lowest
 * index. Cost: one pass over the workers, no allocation; products and sums saturate at
 * {@link Long#MAX_VALUE} ({@code nowNanos} is common to every worker, so it is left out of the
 * comparison). Measures the per-worker task time estimate ({@link Statistic#TASK_TIME_ESTIMATE},
 * over the pool's configured {@link Measurement}) and, for the start of the running task,
 * {@link Statistic#RUN_TIME}; reads {@code nowNanos}.
 */
public final class FairShare implements WorkerChoiceStrategy {

    /** The name this strategy is registered under. */
    public static final String NAME = "FAIR_SHARE";

    private static final Set<Statistic> REQUIRED =
            Collections.unmodifiableSet(EnumSet.of(Statistic.TASK_TIME_ESTIMATE, Statistic.RUN_TIME));

    /** A fresh (stateless) strategy. */
    public FairShare() {
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
    public boolean usesClock() {
        return true;
    }

    @Override
    public int choose(WorkerView workers, long nowNanos) {
        int n = workers.count();
        if (n <= 0) {
            return NONE;
        }
        long poolEstimateNanos = workers.poolTaskTimeEstimateNanos();
        long fallbackNanos = poolEstimateNanos > 0 ? poolEstimateNanos : 1L;
        int best = NONE;
        long bestEndNanos = Long.MAX_VALUE;
        for (int i = 0; i < n; i++) {
            if (!workers.isAvailable(i)) {
                continue;
            }
            long estimateNanos = workers.taskTimeEstimateNanos(i);
            boolean measured = estimateNanos > 0 || poolEstimateNanos > 0;
            if (estimateNanos <= 0) {
                estimateNanos = fallbackNanos;
            }
            int running = workers.running(i);
            long remainingNanos = 0;
            if (running > 0) {
                long elapsedNanos = nowNanos - workers.runningSinceNanos(i);
                if (elapsedNanos < 0) {
                    elapsedNanos = 0; // started "after" now: a racy read; treat as just started
                }
                // Outlived its estimate: expect as long again. Without any measured estimate
                // (the 1 ns placeholder) nothing is known, so the task counts as about to end and
                // the queue lengths decide; charging elapsed time then would pile a burst onto
                // whichever worker started its task last.
                long leftNanos = elapsedNanos < estimateNanos ? estimateNanos - elapsedNanos
                        : measured ? elapsedNanos : 0;
                remainingNanos = Charges.multiply(running, leftNanos);
            }
            long queued = Math.max(0, workers.queued(i));
            // queued tasks plus the one being placed: (queued + 1) * estimate
            long endNanos = Charges.add(remainingNanos, Charges.multiply(queued + 1, estimateNanos));
            if (best == NONE || endNanos < bestEndNanos) {
                best = i;
                bestEndNanos = endNanos;
            }
        }
        return best;
    }


    @Override
    public String toString() {
        return NAME;
    }
}
