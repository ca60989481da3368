package dev.turntable.pool.strategy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Where {@code FAIR_SHARE} sends tasks; the shared contract runs too (inherited). */
final class FairShareTest extends WorkerChoiceStrategyContractTest {

    /** An arbitrary {@code System.nanoTime()} reading. */
    private static final long NOW = 123_456_789_000L;

    @Override
    WorkerChoiceStrategy newStrategy() {
        return new FairShare();
    }

    @Override
    String nameConstant() {
        return FairShare.NAME;
    }

    @Test
    void burstWithNoHistorySpreadsEvenly() {
        FakeWorkerView view = new FakeWorkerView(4);
        assertArrayEquals(repeat(3, 0, 1, 2, 3), dispatchAll(new FairShare(), view, 12, NOW));
    }

    /**
     * With no history, tasks that start as soon as they are placed (idle workers) still go one
     * per worker: a running task of unknown length counts as a task, so a busy worker never ties
     * with an idle one (it used to count as nothing, and worker 0 took a second task while
     * workers 2 and 3 sat idle).
     */
    @Test
    void withNoHistoryABusyWorkerNeverTakesATaskWhileAnotherIsIdle() {
        FakeWorkerView view = new FakeWorkerView(4);
        FairShare s = new FairShare();
        int[] picks = new int[8];
        for (int k = 0; k < picks.length; k++) {
            int w = s.choose(view, NOW + k);
            picks[k] = w;
            view.dispatch(w);
            if (view.running(w) == 0) {
                view.start(w, NOW + k); // an idle worker starts its task at once
            }
        }
        assertArrayEquals(new int[] {0, 1, 2, 3, 0, 1, 2, 3}, picks);
    }

    @Test
    void withNoHistoryAWorkerTenMinutesIntoATaskLosesToAnIdleOne() {
        FakeWorkerView view = new FakeWorkerView(2).dispatch(0).start(0, NOW - 600_000 * MS);
        assertEquals(1, new FairShare().choose(view, NOW));
    }

    @Test
    void burstWithOnlyAPoolEstimateSpreadsEvenly() {
        FakeWorkerView view = new FakeWorkerView(3).setPoolTaskTimeEstimateNanos(4 * MS);
        assertArrayEquals(repeat(2, 0, 1, 2), dispatchAll(new FairShare(), view, 6, NOW));
    }

    @Test
    void aFastWorkerTakesTasksUntilItsQueueWouldEndLaterThanTheSlowWorker() {
        FakeWorkerView view = new FakeWorkerView(2)
                .setTaskTimeEstimateNanos(0, 10 * MS)
                .setTaskTimeEstimateNanos(1, MS);
        int[] picks = dispatchAll(new FairShare(), view, 10, NOW);
        // the 1 ms worker gets nine; with 9 queued there its next task would end at +10 ms,
        // no sooner than on the idle 10 ms worker, so the tenth goes to the 10 ms worker
        int[] expected = new int[10];
        Arrays.fill(expected, 0, 9, 1);
        assertArrayEquals(expected, picks);
    }

    @Test
    void theLowerEstimateWins() {
        FakeWorkerView view = new FakeWorkerView(3)
                .setTaskTimeEstimateNanos(0, 3 * MS)
                .setTaskTimeEstimateNanos(1, 2 * MS)
                .setTaskTimeEstimateNanos(2, 4 * MS);
        assertEquals(1, new FairShare().choose(view, NOW));
    }

    @Test
    void aTaskThatOutlivedItsEstimateIsExpectedToRunAsLongAgain() {
        FakeWorkerView view = new FakeWorkerView(2).setAllTaskTimeEstimateNanos(10 * MS)
                .start(0, NOW - 2 * MS)     // started 2 ms ago: about 8 ms left, ends at +18 ms
                .start(1, NOW - 100 * MS);  // 100 ms in, 10x its estimate: ~100 ms more, +110 ms
        assertEquals(0, new FairShare().choose(view, NOW), "not queued behind the long task");
        // 50 ms later both have outlived the estimate: 52 ms in beats 150 ms in
        assertEquals(0, new FairShare().choose(view, NOW + 50 * MS));
        // a task just past its estimate (11 ms in: ~11 more) against 2 queued short tasks (30 ms)
        FakeWorkerView near = new FakeWorkerView(2).setAllTaskTimeEstimateNanos(10 * MS)
                .start(0, NOW - 11 * MS).dispatch(1).dispatch(1);
        assertEquals(0, new FairShare().choose(near, NOW));
    }

    @Test
    void aTaskPastEveryShortSampleIsExpectedToRunAsLongAsTheLongOnesDo() {
        // 19 tasks of 10 us and one of 1 ms: the average is 59.5 us. Worker 0 is 30 us into a
        // task (past every short sample: a long one, ~970 us to go); worker 1 is 5 us into one
        // (most likely short). The average alone says worker 0 ends first (29.5 vs 54.5 us left).
        long us = 1_000L;
        long[] mix = new long[20];
        Arrays.fill(mix, 10 * us);
        mix[19] = 1_000 * us;
        FakeWorkerView averageOnly = new FakeWorkerView(2).setAllTaskTimeEstimateNanos(59_500)
                .start(0, NOW - 30 * us).start(1, NOW - 5 * us);
        assertEquals(0, new FairShare().choose(averageOnly, NOW), "without recent samples: the average's answer");
        FakeWorkerView withSamples = new FakeWorkerView(2).setAllTaskTimeEstimateNanos(59_500)
                .setAllRecentTaskTimesNanos(mix).start(0, NOW - 30 * us).start(1, NOW - 5 * us);
        assertEquals(1, new FairShare().choose(withSamples, NOW), "not queued behind the long task");
        // two short tasks queued behind worker 1 (2 x 59.5 us more) still beat ~970 us
        withSamples.dispatch(1).dispatch(1);
        assertEquals(1, new FairShare().choose(withSamples, NOW));
    }

    @Test
    void aTaskLongerThanEveryRecentSampleIsExpectedToRunAsLongAgain() {
        long us = 1_000L;
        FakeWorkerView view = new FakeWorkerView(2).setAllTaskTimeEstimateNanos(10 * us)
                .setAllRecentTaskTimesNanos(10 * us, 10 * us, 12 * us)
                .start(0, NOW - 2_000 * us)   // beyond every sample: ~2 ms more
                .dispatch(1).dispatch(1);     // idle, 2 queued: the new task ends in 30 us
        assertEquals(1, new FairShare().choose(view, NOW));
        // 3 us into a task: the mean of all samples (10.67 us) minus 3 = 7.67 us left, plus 10 us
        // for ours, beats worker 1's 30 us
        FakeWorkerView early = new FakeWorkerView(2).setAllTaskTimeEstimateNanos(10 * us)
                .setAllRecentTaskTimesNanos(10 * us, 10 * us, 12 * us)
                .start(0, NOW - 3 * us).dispatch(1).dispatch(1);
        assertEquals(0, new FairShare().choose(early, NOW));
    }

    @Test
    void theTimeLeftOnARunningTaskCounts() {
        FakeWorkerView view = new FakeWorkerView(2).setAllTaskTimeEstimateNanos(10 * MS)
                .start(0, NOW - MS)          // 9 ms left, then the new task: ends at +19 ms
                .dispatch(1).dispatch(1);    // idle but 2 queued: the new task ends at +30 ms
        assertEquals(0, new FairShare().choose(view, NOW));
    }

    @Test
    void aWorkerWithoutHistoryIsExpectedToBeAsFastAsThePoolAverage() {
        FakeWorkerView view = new FakeWorkerView(2)
                .setPoolTaskTimeEstimateNanos(5 * MS)     // worker 0 has no estimate of its own
                .setTaskTimeEstimateNanos(1, 2 * MS).dispatch(1);
        // worker 0: +5 ms; worker 1: one queued then ours, +4 ms
        assertEquals(1, new FairShare().choose(view, NOW));
    }

    @Test
    void hugeEstimatesSaturateInsteadOfWrappingAround() {
        FakeWorkerView view = new FakeWorkerView(2)
                .setTaskTimeEstimateNanos(0, HUGE).setQueued(0, 7)
                .setTaskTimeEstimateNanos(1, MS).setQueued(1, 1000);
        assertEquals(1, new FairShare().choose(view, NOW));
    }

    /**
     * While tasks are tiny the engine times only a sample, and an untimed running task's start
     * is unknown: it counts as just started, so its expected rest is its worker's whole mean
     * (here 10.67 µs), never "as long again" as some older task's age would suggest.
     */
    @Test
    void aRunningTaskWhoseStartIsUnknownCountsAsJustStarted() {
        long us = 1_000L;
        FakeWorkerView view = new FakeWorkerView(2).setAllTaskTimeEstimateNanos(10 * us)
                .setAllRecentTaskTimesNanos(10 * us, 10 * us, 12 * us)
                .start(0, WorkerView.START_UNKNOWN)  // ~10.67 us left, then ours: ~20.67 us
                .dispatch(1).dispatch(1);            // idle, 2 queued: ours ends in 30 us
        assertEquals(0, new FairShare().choose(view, NOW));
        assertEquals(0, new FairShare().choose(view, 0L), "the same without the clock");
        // the same worker with its start known and 2 ms in (past every sample): ~2 ms more
        view.setRunningSinceNanos(0, NOW - 2_000 * us);
        assertEquals(1, new FairShare().choose(view, NOW));
    }

    /**
     * A start published between {@code needsClock} (no clock needed) and {@code choose}, which
     * then gets {@code nowNanos = 0}: read as just started. {@code System.nanoTime()} may be
     * negative, and {@code 0 - since} would then make the task look that old.
     */
    @Test
    void withoutTheClockAStartThatAppearedMeanwhileCountsAsJustStarted() {
        long negativeStart = -5_000 * MS; // a legal nanoTime reading
        FakeWorkerView view = new FakeWorkerView(2).setAllTaskTimeEstimateNanos(MS)
                .start(0, negativeStart).start(1, WorkerView.START_UNKNOWN);
        // read against the time (1 s), worker 0 is 6 s into its task and loses to worker 1
        assertEquals(1, new FairShare().choose(view, 1_000 * MS));
        // without the clock it is as just started as worker 1: a tie, and the lower index wins
        assertEquals(0, new FairShare().choose(view, 0L));
    }

    /** The age FAIR_SHARE reads ({@link WorkerView#runningForNanos}): unknown or unclocked reads as just started. */
    @Test
    void aRunningTasksAgeIsNeverNegativeAndNeverTheSentinels() {
        FakeWorkerView view = new FakeWorkerView(1).start(0, NOW - 3 * MS);
        assertEquals(3 * MS, view.runningForNanos(0, NOW));
        assertEquals(0, view.runningForNanos(0, 0L), "no clock passed");
        assertEquals(0, view.runningForNanos(0, NOW - 4 * MS), "a start read after now");
        view.setRunningSinceNanos(0, -5_000 * MS); // a legal, negative nanoTime
        assertEquals(0, view.runningForNanos(0, 0L), "no clock passed: not 5 s old");
        view.setRunningSinceNanos(0, WorkerView.START_UNKNOWN);
        assertEquals(0, view.runningForNanos(0, NOW), "unknown start");
        assertEquals(0, view.runningForNanos(0, Long.MAX_VALUE), "unknown start, whatever the time");
    }

    @Test
    void needsTheClockOnlyWhileARunningWorkersStartIsKnown() {
        FairShare s = new FairShare();
        FakeWorkerView view = new FakeWorkerView(3);
        assertFalse(s.needsClock(view), "nothing running: nothing to age");
        view.start(0, WorkerView.START_UNKNOWN).start(2, WorkerView.START_UNKNOWN);
        assertFalse(s.needsClock(view), "every running task untimed");
        view.setRunningSinceNanos(1, NOW);
        assertFalse(s.needsClock(view), "a start left on an idle worker does not count");
        view.start(1, NOW);
        assertTrue(s.needsClock(view), "one running task with a known start");
    }

    @Test
    void readsTheEstimateRunStartAndClock() {
        assertEquals(EnumSet.of(Statistic.TASK_TIME_ESTIMATE, Statistic.REMAINING_TIME, Statistic.RUN_TIME),
                new FairShare().requiredStatistics());
        assertTrue(new FairShare().usesClock());
    }

    @Test
    void choosesWhatTheFullFormulaGivesOnRandomViews() {
        Random rnd = new Random(2026L);
        FairShare strategy = new FairShare();
        FakeWorkerView view = new FakeWorkerView(6);
        long now = NOW;
        for (int k = 0; k < 20_000; k++) {
            now += rnd.nextInt(3_000) * 1000L;
            randomize(view, rnd, now);
            if (rnd.nextInt(3) == 0) { // equal estimates and queues, so that ties are common
                for (int i = 0; i < view.count(); i++) {
                    view.setTaskTimeEstimateNanos(i, MS).setQueued(i, rnd.nextInt(2));
                }
            }
            for (int i = 0; i < view.count(); i++) { // recent samples on some workers, none on others
                long[] samples = new long[rnd.nextInt(2) == 0 ? 0 : 1 + rnd.nextInt(8)];
                for (int j = 0; j < samples.length; j++) {
                    samples[j] = rnd.nextInt(4) == 0 ? rnd.nextInt(50_000) * 1000L : rnd.nextInt(3_000) * 1000L;
                }
                view.setRecentTaskTimesNanos(i, samples);
            }
            long at = now;
            assertEquals(fullFormula(view, at), strategy.choose(view, at), () -> "at " + at + ": " + view);
        }
    }

    /**
     * The class javadoc's formula written out plainly, in exact arithmetic capped where the
     * strategy saturates, as the reference the strategy's overflow-safe version must agree with.
     */
    private static int fullFormula(FakeWorkerView view, long nowNanos) {
        long pool = view.poolTaskTimeEstimateNanos();
        int best = WorkerChoiceStrategy.NONE;
        BigInteger bestEnd = null;
        for (int i = 0; i < view.count(); i++) {
            if (!view.isAvailable(i)) {
                continue;
            }
            long own = view.taskTimeEstimateNanos(i);
            long est = own > 0 ? own : pool > 0 ? pool : 1L;
            boolean measured = own > 0 || pool > 0;
            long remaining = 0;
            if (view.running(i) > 0) {
                long since = view.runningSinceNanos(i);
                long elapsed = since == WorkerView.START_UNKNOWN ? 0 : Math.max(0, nowNanos - since);
                long fromSamples = view.remainingTimeNanos(i, elapsed);
                remaining = fromSamples >= 0 ? fromSamples : elapsed < est ? est - elapsed : measured ? elapsed : est;
            }
            BigInteger end = big(view.running(i)).multiply(big(remaining))
                    .add(big(Math.max(0, view.queued(i)) + 1L).multiply(big(est)))
                    .min(big(Long.MAX_VALUE)); // the strategy saturates at Long.MAX_VALUE
            if (best == WorkerChoiceStrategy.NONE || end.compareTo(bestEnd) < 0) {
                best = i;
                bestEnd = end;
            }
        }
        return best;
    }

    private static BigInteger big(long value) {
        return BigInteger.valueOf(value);
    }
}
