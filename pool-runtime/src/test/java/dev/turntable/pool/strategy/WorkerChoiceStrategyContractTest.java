package dev.turntable.pool.strategy;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * What every {@link WorkerChoiceStrategy} promises, whatever its rule: a valid, available index or
 * {@link WorkerChoiceStrategy#NONE}, determinism, a stable declared name and statistics set, and
 * no exception on extreme values or a pool that grows and shrinks between calls.
 *
 * <p>Each built-in strategy's own test class ({@code RoundRobinTest}, {@code LeastUsedTest}, ...)
 * is the concrete subclass that runs this whole contract against it, next to its own behaviour
 * tests; a new strategy gets the same checks by extending this class. (Top-level subclasses
 * rather than nested ones, because surefire's default excludes skip nested classes.)
 */
abstract class WorkerChoiceStrategyContractTest {

    private static final Pattern NAME_PATTERN = Pattern.compile("[A-Z][A-Z0-9_]*");
    /** One millisecond in nanoseconds. */
    static final long MS = 1_000_000L;
    /** A value far beyond any real total: multiplied by a task count, or summed a few times, it overflows. */
    static final long HUGE = Long.MAX_VALUE / 4;
    private static final int ITERATIONS = 5_000;

    /** A fresh instance of the strategy under test. */
    abstract WorkerChoiceStrategy newStrategy();

    /** The strategy class's {@code NAME} constant. */
    abstract String nameConstant();

    // ---- identity ---------------------------------------------------------------------------

    @Test
    void nameIsTheNameConstantAndTypeable() {
        WorkerChoiceStrategy s = newStrategy();
        assertEquals(nameConstant(), s.name());
        assertTrue(NAME_PATTERN.matcher(s.name()).matches(), s.name());
        assertEquals(s.name(), newStrategy().name());
    }

    @Test
    void registryCreatesAFreshInstanceOfThisStrategyByName() {
        WorkerChoiceStrategy a = StrategyRegistry.builtIn().create(nameConstant());
        WorkerChoiceStrategy b = StrategyRegistry.builtIn().create(nameConstant());
        assertEquals(newStrategy().getClass(), a.getClass());
        assertTrue(a != b, "each activation must start from fresh state");
    }

    @Test
    void requiredStatisticsIsTheSameUnmodifiableSetOnEveryCall() {
        WorkerChoiceStrategy s = newStrategy();
        Set<Statistic> first = s.requiredStatistics();
        assertNotNull(first);
        assertSame(first, s.requiredStatistics());
        assertEquals(first, newStrategy().requiredStatistics());
        s.choose(new FakeWorkerView(3), 0L);
        assertSame(first, s.requiredStatistics());
        assertThrows(UnsupportedOperationException.class, () -> first.add(Statistic.CPU_TIME));
        assertThrows(UnsupportedOperationException.class, () -> first.remove(Statistic.RUN_TIME));
        assertThrows(UnsupportedOperationException.class, first::clear);
    }

    // ---- no worker to choose -----------------------------------------------------------------

    @Test
    void returnsNoneWhenThePoolHasNoWorkers() {
        WorkerChoiceStrategy s = newStrategy();
        FakeWorkerView view = new FakeWorkerView(0);
        for (int k = 0; k < 10; k++) {
            assertEquals(WorkerChoiceStrategy.NONE, s.choose(view, 0L));
        }
    }

    @Test
    void returnsNoneWhenNoWorkerIsAvailableAndRecoversWhenOneIs() {
        WorkerChoiceStrategy s = newStrategy();
        FakeWorkerView view = new FakeWorkerView(4).setAllTaskTimeEstimateNanos(MS / 2);
        for (int k = 0; k < 6; k++) { // move the strategy's state away from its start
            view.dispatch(s.choose(view, 0L));
        }
        view.setAllAvailable(false);
        for (int k = 0; k < 10; k++) {
            assertEquals(WorkerChoiceStrategy.NONE, s.choose(view, 0L));
        }
        view.setAvailable(2, true);
        assertEquals(2, s.choose(view, 0L));
    }

    // ---- validity over random views --------------------------------------------------------

    @Test
    void alwaysChoosesAValidAvailableWorkerOverRandomViews() {
        Random rnd = new Random(0x7A11_7AB1EL);
        WorkerChoiceStrategy s = newStrategy();
        FakeWorkerView view = new FakeWorkerView(6);
        long now = 5_000 * MS;
        int nones = 0;
        for (int k = 0; k < ITERATIONS; k++) {
            now += rnd.nextInt(1000) * 1000L;
            randomize(view, rnd, now);
            int chosen = s.choose(view, now);
            if (chosen == WorkerChoiceStrategy.NONE) {
                nones++;
                assertTrue(noneAvailable(view), "NONE although a worker is available: " + view);
            } else {
                assertValidAndAvailable(view, chosen);
                view.dispatch(chosen);
            }
        }
        assertTrue(nones < ITERATIONS / 2, "mostly NONE: " + nones);
    }

    @Test
    void alwaysChoosesTheOnlyAvailableWorker() {
        Random rnd = new Random(42L);
        WorkerChoiceStrategy s = newStrategy();
        FakeWorkerView view = new FakeWorkerView(5);
        long now = 1_000 * MS;
        for (int k = 0; k < ITERATIONS; k++) {
            now += rnd.nextInt(1000) * 1000L;
            randomize(view, rnd, now);
            if (view.count() == 0) {
                view.setCount(1 + rnd.nextInt(8));
            }
            int only = rnd.nextInt(view.count());
            view.setAllAvailable(false).setAvailable(only, true);
            // several tasks in a row on the same view: the only worker gets every one
            for (int t = 0; t < 3; t++) {
                assertEquals(only, s.choose(view, now), view::toString);
                view.dispatch(only);
            }
        }
    }

    @Test
    void isDeterministicForTheSameViewsAndTimes() {
        Random rnd = new Random(2024L);
        WorkerChoiceStrategy a = newStrategy();
        WorkerChoiceStrategy b = newStrategy();
        FakeWorkerView view = new FakeWorkerView(7);
        long now = 0;
        for (int k = 0; k < ITERATIONS; k++) {
            now += rnd.nextInt(2_000) * 1000L;
            if (rnd.nextInt(10) == 0) {
                randomize(view, rnd, now);
            } else if (view.count() > 0 && rnd.nextInt(3) == 0) {
                int w = rnd.nextInt(view.count());
                if (view.queued(w) + view.running(w) > 0) {
                    view.complete(w, rnd.nextInt(5_000) * 1000L, rnd.nextInt(1_000) * 1000L, rnd.nextInt(3_000) * 1000L);
                }
            }
            int fromA = a.choose(view, now);
            int fromB = b.choose(view, now);
            assertEquals(fromA, fromB, "step " + k);
            if (fromA != WorkerChoiceStrategy.NONE) {
                view.dispatch(fromA);
            }
        }
    }

    @Test
    void choosesTheSameWithoutTheClockWheneverItSaysItNeedsNone() {
        Random rnd = new Random(99L);
        WorkerChoiceStrategy withZero = newStrategy();
        WorkerChoiceStrategy withTime = newStrategy();
        FakeWorkerView view = new FakeWorkerView(5);
        int withoutClock = 0;
        for (int k = 0; k < 2_000; k++) {
            long now = rnd.nextLong();
            randomize(view, rnd, now);
            if (k % 2 == 0) {
                for (int i = 0; i < view.count(); i++) { // every start untimed, as with tiny tasks
                    view.setRunningSinceNanos(i, WorkerView.START_UNKNOWN);
                }
            }
            if (!withZero.needsClock(view)) {
                withoutClock++;
                // the engine then passes 0: the choice must be the one the real time gives
                int chosen = withZero.choose(view, 0L);
                assertEquals(chosen, withTime.choose(view, now), "step " + k);
                if (chosen != WorkerChoiceStrategy.NONE) {
                    view.dispatch(chosen);
                }
            } else {
                assertTrue(withZero.usesClock(), "needs the clock only if it declares it uses it");
                int chosen = withTime.choose(view, now);
                withZero.choose(view, now); // both take the same turn in their own state
                if (chosen != WorkerChoiceStrategy.NONE) {
                    view.dispatch(chosen);
                }
            }
        }
        assertTrue(withoutClock >= 1_000, "with every start unknown no strategy needs the time: " + withoutClock);
    }

    // ---- robustness --------------------------------------------------------------------------

    @Test
    void neverThrowsWhenEverythingIsZero() {
        WorkerChoiceStrategy s = newStrategy();
        FakeWorkerView view = new FakeWorkerView(4);
        for (int i = 0; i < 4; i++) {
            view.setWeightNanos(i, 1L); // the smallest legal weight
        }
        for (int k = 0; k < 100; k++) {
            int chosen = assertDoesNotThrow(() -> s.choose(view, 0L));
            assertValidAndAvailable(view, chosen);
        }
    }

    @Test
    void neverThrowsOnHugeValues() {
        WorkerChoiceStrategy s = newStrategy();
        FakeWorkerView view = new FakeWorkerView(4).setPoolTaskTimeEstimateNanos(HUGE);
        for (int i = 0; i < 4; i++) {
            view.setQueued(i, Integer.MAX_VALUE - 1).setRunning(i, 1)
                    .setCompleted(i, i == 0 ? 1 : HUGE).setLifetimeTasks(i, HUGE)
                    .setRunTimeTotalNanos(i, HUGE).setWaitTimeTotalNanos(i, HUGE).setCpuTimeNanos(i, HUGE)
                    .setRunningSinceNanos(i, i % 2 == 0 ? 0L : -HUGE)
                    .setTaskTimeEstimateNanos(i, i == 3 ? 0 : HUGE).setWeightNanos(i, i == 1 ? 1L : HUGE);
        }
        long[] times = {0L, HUGE, -HUGE, Long.MAX_VALUE, Long.MIN_VALUE};
        for (int k = 0; k < 200; k++) {
            long now = times[k % times.length];
            int chosen = assertDoesNotThrow(() -> s.choose(view, now));
            assertValidAndAvailable(view, chosen);
        }
    }

    @Test
    void survivesThePoolGrowingAndShrinkingBetweenCalls() {
        Random rnd = new Random(7L);
        WorkerChoiceStrategy s = newStrategy();
        FakeWorkerView view = new FakeWorkerView(1);
        int[] counts = {1, 8, 3, 16, 2, 0, 5, 1, 12, 4, 4, 9, 0, 0, 3, 32, 1};
        long now = 0;
        for (int round = 0; round < 20; round++) {
            for (int c : counts) {
                view.setCount(c);
                for (int k = 0; k < 1 + rnd.nextInt(2 * c + 2); k++) {
                    now += 100_000L;
                    if (c > 0 && rnd.nextBoolean()) {
                        view.setTaskTimeEstimateNanos(rnd.nextInt(c), (1 + rnd.nextInt(4)) * MS / 4);
                    }
                    int chosen = assertDoesNotThrow(() -> s.choose(view, 0L));
                    if (c == 0) {
                        assertEquals(WorkerChoiceStrategy.NONE, chosen);
                    } else {
                        assertValidAndAvailable(view, chosen);
                        view.dispatch(chosen);
                    }
                }
            }
        }
    }

    // ---- helpers for the subclasses -------------------------------------------------------------

    /**
     * Submits {@code tasks} tasks in a row at {@code nowNanos}, none completing meanwhile (a burst),
     * and returns the worker each one was placed on.
     */
    static int[] dispatchAll(WorkerChoiceStrategy strategy, FakeWorkerView view, int tasks, long nowNanos) {
        int[] picks = new int[tasks];
        for (int t = 0; t < tasks; t++) {
            int chosen = strategy.choose(view, nowNanos);
            picks[t] = chosen;
            if (chosen != WorkerChoiceStrategy.NONE) {
                view.dispatch(chosen);
            }
        }
        return picks;
    }

    /** How many of {@code picks} went to each of {@code count} workers. */
    static int[] perWorker(int[] picks, int count) {
        int[] tasks = new int[count];
        for (int p : picks) {
            tasks[p]++;
        }
        return tasks;
    }

    /** {@code pattern} repeated {@code times} times. */
    static int[] repeat(int times, int... pattern) {
        int[] out = new int[pattern.length * times];
        for (int t = 0; t < times; t++) {
            System.arraycopy(pattern, 0, out, t * pattern.length, pattern.length);
        }
        return out;
    }

    // ---- helpers -------------------------------------------------------------------------------

    private static void assertValidAndAvailable(FakeWorkerView view, int chosen) {
        assertTrue(chosen >= 0 && chosen < view.count(), () -> "index " + chosen + " for " + view);
        assertTrue(view.isAvailable(chosen), () -> "unavailable worker " + chosen + " chosen from " + view);
    }

    private static boolean noneAvailable(FakeWorkerView view) {
        for (int i = 0; i < view.count(); i++) {
            if (view.isAvailable(i)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Scrambles a view: sometimes a new count, then random availability, counts, totals, times,
     * estimates and weights, with zeros and huge values mixed in.
     */
    static void randomize(FakeWorkerView view, Random rnd, long nowNanos) {
        if (rnd.nextInt(4) == 0) {
            view.setCount(rnd.nextInt(13));
        }
        int n = view.count();
        for (int i = 0; i < n; i++) {
            long completed = pick(rnd, rnd.nextInt(1_000), HUGE);
            view.setAvailable(i, rnd.nextInt(4) != 0)
                    .setQueued(i, rnd.nextInt(20) == 0 ? rnd.nextInt(Integer.MAX_VALUE) : rnd.nextInt(5))
                    .setRunning(i, rnd.nextInt(3) == 0 ? 0 : 1 + rnd.nextInt(2))
                    .setCompleted(i, completed)
                    .setLifetimeTasks(i, completed)
                    .setRunTimeTotalNanos(i, pick(rnd, times(completed, rnd.nextInt(5_000) * 1000L), HUGE))
                    .setWaitTimeTotalNanos(i, pick(rnd, times(completed, rnd.nextInt(2_000) * 1000L), HUGE))
                    .setCpuTimeNanos(i, pick(rnd, times(completed, rnd.nextInt(3_000) * 1000L), HUGE))
                    .setRunningSinceNanos(i, rnd.nextInt(5) == 0 ? WorkerView.START_UNKNOWN
                            : nowNanos - pick(rnd, rnd.nextInt(20_000) * 1000L, HUGE))
                    .setTaskTimeEstimateNanos(i, pick(rnd, rnd.nextInt(5_000) * 1000L, HUGE))
                    .setWeightNanos(i, rnd.nextInt(20) == 0 ? HUGE : 1 + rnd.nextInt(4) * MS / 2);
        }
        view.setPoolTaskTimeEstimateNanos(pick(rnd, rnd.nextInt(5_000) * 1000L, HUGE));
    }

    /** A total for {@code completed} tasks of {@code perTaskNanos} each, capped at {@link #HUGE}. */
    private static long times(long completed, long perTaskNanos) {
        return completed == 0 || perTaskNanos <= HUGE / completed ? completed * perTaskNanos : HUGE;
    }

    /** Usually {@code typical}, sometimes 0, rarely {@code huge}. */
    private static long pick(Random rnd, long typical, long huge) {
        int dice = rnd.nextInt(10);
        return dice < 3 ? 0L : dice == 9 ? huge : typical;
    }
}
