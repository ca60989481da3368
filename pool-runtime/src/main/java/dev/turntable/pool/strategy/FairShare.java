package dev.turntable.pool.strategy;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * {@code FAIR_SHARE}: gives each task to the available worker on which it is predicted to
 * <em>end</em> soonest:
 * <pre>
 * endNanos(i) = nowNanos + remainingNanos(i) + queued(i) * est(i) + est(i)
 * remainingNanos(i) = 0 when idle; otherwise running(i) * left(i), where
 * left(i) = remainingTimeNanos(i, elapsed)          when the worker's recent samples answer (&gt;= 0)
 *         = est(i) - elapsed                        when elapsed &lt; est(i)
 *         = elapsed                                 otherwise, once measured (as long again)
 *         = est(i)                                  otherwise (only the 1 ns placeholder: unknown)
 * elapsed = {@link WorkerView#runningForNanos}(i, nowNanos): nowNanos - runningSinceNanos(i), or 0 when the start is unknown or nowNanos is 0
 * </pre>
 * where {@code est(i)} is {@link WorkerView#taskTimeEstimateNanos} if positive, else
 * {@link WorkerView#poolTaskTimeEstimateNanos} if positive, else 1 ns. This is the classic
 * {@code max(now, predictedEnd) + estimate}, with the prediction charged when a task is dispatched
 * (its worker's queue grows) and corrected when it completes (counts drop, the estimate updates),
 * so a burst submitted before anything completes spreads evenly instead of piling on one worker.
 *
 * <p>The running task's remaining time is its worker's <em>mean residual life</em>
 * ({@link WorkerView#remainingTimeNanos}): the mean of the worker's recent task times that are
 * longer than the time this one has run, minus that time. In a mix of 10 µs and 1 ms tasks a
 * task 30 µs in is a long one, with ~970 µs to go; an average alone (60 µs) would call it nearly
 * done, and a task 5 µs in would look busier than it. With no recent sample that long, a task is
 * expected to run about as long again as it already has (task times are heavy-tailed). The
 * simulator in {@code benchmarks/} measured the difference on that mix without stealing: short-task
 * p99 1.13× a shared queue's at 25% load, against 1.54× with the average alone (task times ±10%).
 *
 * <p>Threads: any, concurrently (submitting threads); stateless, no locks. Ties go to the lowest
 * index. Cost: one pass over the workers, no allocation, plus an O(log window) lookup per running
 * worker; products and sums saturate at {@link Long#MAX_VALUE} ({@code nowNanos} is common to
 * every worker, so it is left out of the comparison). Measures the per-worker task time estimate
 * ({@link Statistic#TASK_TIME_ESTIMATE}, over the pool's configured {@link Measurement}), the
 * remaining-time table over the same window ({@link Statistic#REMAINING_TIME}) and, for the start
 * of the running task, {@link Statistic#RUN_TIME}; reads {@code nowNanos} only when a running
 * worker's start is known ({@link #needsClock}). With task stealing on, while a worker's recent
 * tasks are very short (under 2 µs on average) the engine times only a sample of them, and an
 * untimed one counts as just started until submitters that read the clock (one choice in 16)
 * have seen it running twice, at least 2 µs apart: a rare long one among them then ages from the
 * first of those looks, instead of looking short until it ends. With stealing off, every task is
 * timed under this strategy.
 */
public final class FairShare implements WorkerChoiceStrategy {

    /** The name this strategy is registered under. */
    public static final String NAME = "FAIR_SHARE";

    private static final Set<Statistic> REQUIRED =
            Collections.unmodifiableSet(EnumSet.of(Statistic.TASK_TIME_ESTIMATE, Statistic.REMAINING_TIME, Statistic.RUN_TIME));

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

    /** True when some running worker's start is known: only those need the time to age. */
    @Override
    public boolean needsClock(WorkerView workers) {
        int n = workers.count();
        for (int i = 0; i < n; i++) {
            if (workers.running(i) > 0 && workers.runningSinceNanos(i) != WorkerView.START_UNKNOWN) {
                return true;
            }
        }
        return false;
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
                // 0 with no clock (needsClock said none was needed, and a start was published
                // since), no start, or a start "after" now (a racy read): just started.
                long elapsedNanos = workers.runningForNanos(i, nowNanos);
                // The worker's recent samples longer than elapsed say what is left. Failing that:
                // outlived its estimate, expect as long again. Without any measured estimate (the
                // 1 ns placeholder) nothing is known, so the running task counts as one task of
                // the placeholder, as LEAST_USED counts it: an idle worker wins over a busy one,
                // and the counts decide. Elapsed time would pile a burst onto whichever worker
                // started its task last; nothing (0) made a busy worker tie with an idle one, and
                // the lower index took a second task while others sat idle.
                long leftNanos = workers.remainingTimeNanos(i, elapsedNanos);
                if (leftNanos < 0) {
                    leftNanos = elapsedNanos < estimateNanos ? estimateNanos - elapsedNanos
                            : measured ? elapsedNanos : estimateNanos;
                }
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
