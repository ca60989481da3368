package dev.turntable.pool.strategy;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.testing.FieldLayout;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The state the built-in strategies write on every choice sits on cache lines of its own, on the
 * JVM that runs the tests.
 *
 * <p>Why a user would notice: a submitter writes a round robin's cursor on every task. On a line
 * shared with whatever the heap put beside the strategy, that costs a miss per task whenever the
 * neighbour is in use elsewhere; once, when the queue's constructor began allocating more
 * objects, ROUND_ROBIN's no-op dispatch fell ~17% (6.10 against 5.03 M ops/s, 6 of 6
 * same-minute rounds, benchmarks/RESULTS.md). No timed assertion may check that, so this checks
 * the cause (see {@link FieldLayout}). It also caught the padding that did not pad: with longs
 * before it, HotSpot put the cursor in the 4-byte gap after the object header, at offset 12.
 */
class StrategyLayoutTest {

    /** The padding fields' names: p, then two hex digits. */
    private static final Pattern PAD = Pattern.compile("p[0-9a-f]{2}");

    private static final List<Class<?>> BUILT_IN = List.of(RoundRobin.class, LeastUsed.class, LeastBusy.class, LeastCpu.class,
            FairShare.class, WeightedRoundRobin.class, InterleavedWeightedRoundRobin.class, LifetimeFirst.class);

    /** Every instance field of a built-in strategy that is not padding: its state, which submitters write. */
    private static List<String> stateOf(Class<?> strategy) {
        List<String> state = new ArrayList<>();
        for (Class<?> c = strategy; c != Object.class; c = c.getSuperclass()) {
            for (java.lang.reflect.Field f : c.getDeclaredFields()) {
                if (!Modifier.isStatic(f.getModifiers()) && !PAD.matcher(f.getName()).matches()) {
                    state.add(f.getName());
                }
            }
        }
        return state;
    }

    @Test
    void everyStrategysStateIsOffTheLinesOfTheObjectsBesideIt() {
        int checked = 0;
        for (Class<?> strategy : BUILT_IN) {
            List<String> state = stateOf(strategy);
            if (state.isEmpty()) {
                continue; // stateless: a pure function of the view
            }
            checked++;
            FieldLayout layout = FieldLayout.of(strategy);
            String why = strategy.getSimpleName() + " writes it on every choice";
            layout.assertOffTheObjectBefore(state, why);
            layout.assertOffTheObjectAfter(state, why);
        }
        // The three round robins keep a turn; if none had state any more this test would check nothing.
        assertTrue(checked >= 3, "only " + checked + " strategies keep state: the list above is out of date");
    }

    @Test
    void theRoundRobinsCursorIsTheStateThatIsChecked() {
        // Guards the test itself: the field the 17% was about is seen as state, not as padding.
        assertTrue(stateOf(RoundRobin.class).contains("nextIndex"), () -> "state: " + stateOf(RoundRobin.class));
        assertTrue(stateOf(WeightedRoundRobin.class).containsAll(List.of("current", "consumedNanos")),
                () -> "state: " + stateOf(WeightedRoundRobin.class));
    }

    @Test
    void theInterleavedVisitsPerWorkerTimesAreOffTheLinesBesideTheirArray() {
        int workers = 5;
        FakeWorkerView view = new FakeWorkerView(workers);
        InterleavedWeightedRoundRobin iwrr = new InterleavedWeightedRoundRobin();
        for (int i = 0; i < workers; i++) {
            iwrr.choose(view, 0L); // one task each: every worker's element written once
        }
        long[] consumed = iwrr.consumedNanos;
        int first = -1;
        int last = -1;
        for (int i = 0; i < consumed.length; i++) {
            if (consumed[i] != 0) {
                first = first < 0 ? i : first;
                last = i;
            }
        }
        assertTrue(first >= 0, "no element was written by " + workers + " choices");
        long base = sun.misc.Unsafe.ARRAY_LONG_BASE_OFFSET; // 16, or 24 without compressed class pointers
        long firstOffset = base + 8L * first;
        long lastEnd = base + 8L * (last + 1);
        long arrayEnd = base + 8L * consumed.length;
        int f = first;
        assertTrue(firstOffset >= FieldLayout.LINE,
                () -> "worker 0's element at offset " + firstOffset + " (index " + f + ") may share a line with the object before the array");
        assertTrue(arrayEnd - lastEnd >= FieldLayout.LINE,
                () -> "the last worker's element ends at " + lastEnd + ", within a line of the array's end (" + arrayEnd + ")");
        assertTrue(last - first + 1 == workers, "written elements " + first + ".." + last + " for " + workers + " workers");
    }
}
