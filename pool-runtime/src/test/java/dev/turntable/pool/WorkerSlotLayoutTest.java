package dev.turntable.pool;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The worker slot's fields sit where its layout comment says, on the JVM that runs the tests.
 *
 * <p>Why a user would notice: every submitter reads a slot's shared fields on every push, and
 * the owner writes its per-task fields twice per task. On one cache line, each task costs every
 * submitter a miss; when HotSpot's JDK 15+ layout once filled padding gaps that way (the owner's
 * {@code running} beside {@code state}, {@code flagsAtStart} beside {@code queue}), no-op dispatch
 * ran 13% slower for ROUND_ROBIN and 15% for LEAST_USED (15.3 against 13.3 and 12.2 against 10.4
 * M ops/s interleaved, benchmarks/RESULTS.md). No timed assertion may check that,
 * so this checks the cause: two fields at least 64 bytes apart never share a line, whatever the
 * object's address.
 */
class WorkerSlotLayoutTest {

    private static final int LINE = 64;

    /** Read by every submitter on every push (strategy availability, the queue, the wake check). */
    private static final List<String> SUBMITTER_READS = List.of("index", "queue", "thread", "state", "waitState", "flags");
    /** Written by the owner on every task and read by strategies. */
    private static final List<String> HOT = List.of("running", "statsEpochSeen", "started", "runningSinceNanos",
            "estimateNanos", "runTimeTotalNanos", "waitTimeTotalNanos", "cpuTimeNanos");
    /** Written by the owner on every task (with statistics on), read by monitoring or no one else. */
    private static final List<String> OWNER = List.of("completed", "runTimeSamples", "waitTimeSamples",
            "runningClassTask", "taskStartCpuNanos", "cpuStretchStartNanos", "cpuTasksInStretch", "cpuReadEveryTasks", "flagsAtStart",
            "windowConfigSeen", "samplesSincePoolEstimate", "recentRunNanos",
            "sampleSeed", "timedTaskWeight", "parkStreak", "skippedYieldWaits");

    /** Written by submitters twice per push when {@code max-concurrent-tasks} is set. */
    private static final List<String> RESERVING = List.of("reserving");

    /** Written by submitters, rarely: a sampled clock read that finds a running task of unknown start. */
    private static final List<String> OBSERVED = List.of("observedStarted", "observedSinceNanos");

    private static Map<String, Long> offsets;
    private static long end;

    @BeforeAll
    static void readOffsets() throws Exception {
        Field f = Class.forName("sun.misc.Unsafe").getDeclaredField("theUnsafe");
        f.setAccessible(true);
        sun.misc.Unsafe unsafe = (sun.misc.Unsafe) f.get(null);
        offsets = new LinkedHashMap<>();
        end = 0;
        for (Class<?> c = WorkerSlot.class; c != Object.class; c = c.getSuperclass()) {
            for (Field field : c.getDeclaredFields()) {
                if (Modifier.isStatic(field.getModifiers())) {
                    continue;
                }
                long off = unsafe.objectFieldOffset(field);
                offsets.put(field.getName(), off);
                end = Math.max(end, off + size(field.getType()));
            }
        }
    }

    private static int size(Class<?> type) {
        return type == long.class || type == double.class ? 8 : 4; // refs: 4 compressed, 8 otherwise; 4 is the tighter bound
    }

    private static long offset(String name) {
        Long o = offsets.get(name);
        assertTrue(o != null, () -> "no field " + name + " in WorkerSlot's hierarchy; fields: " + offsets.keySet());
        return o;
    }

    private static void assertApart(List<String> a, List<String> b, String why) {
        List<String> close = new ArrayList<>();
        for (String x : a) {
            for (String y : b) {
                if (Math.abs(offset(x) - offset(y)) < LINE) {
                    close.add(x + "@" + offset(x) + " / " + y + "@" + offset(y));
                }
            }
        }
        assertTrue(close.isEmpty(), () -> why + ": within one cache line: " + close + "; layout: " + offsets);
    }

    @Test
    void whatSubmittersReadOnEveryPushIsOffTheLinesTheOwnerWritesPerTask() {
        assertApart(SUBMITTER_READS, HOT, "submitters would miss on every push");
        assertApart(SUBMITTER_READS, OWNER, "submitters would miss on every push");
    }

    @Test
    void submittersReservationsAreOffEveryOtherGroup() {
        assertApart(RESERVING, SUBMITTER_READS, "each reservation would cost other submitters a miss on every push");
        assertApart(RESERVING, HOT, "each reservation would cost strategies a miss, and each task the reserving submitter");
        assertApart(RESERVING, OWNER, "each task's bookkeeping would cost the reserving submitter a miss");
    }

    @Test
    void submittersDatesOfUnknownStartsAreOffEveryOtherGroup() {
        assertApart(OBSERVED, SUBMITTER_READS, "dating a task would cost other submitters a miss on their next push");
        assertApart(OBSERVED, HOT, "dating a task would cost the owner a miss on its next task");
        assertApart(OBSERVED, OWNER, "each task's bookkeeping would cost FAIR_SHARE's choices a miss");
        assertApart(OBSERVED, RESERVING, "each reservation would cost FAIR_SHARE's choices a miss");
    }

    @Test
    void whatStrategiesReadIsOffTheOwnersOtherBookkeeping() {
        assertApart(HOT, OWNER, "monitoring counters would add a miss to every strategy read");
    }

    @Test
    void noPerTaskFieldSharesALineWithTheObjectsBesideTheSlot() {
        // Before the slot: whatever the heap holds (the submitters' fields must not share its line).
        for (String name : SUBMITTER_READS) {
            assertTrue(offset(name) >= LINE, () -> name + " at " + offset(name) + " may share a line with the object before the slot");
        }
        // After the slot: its own queue, allocated right after it, whose header every submitter reads.
        List<String> perTask = new ArrayList<>(HOT);
        perTask.addAll(OWNER);
        for (String name : perTask) {
            assertTrue(end - offset(name) >= LINE,
                    () -> name + " at " + offset(name) + " is within a line of the slot's end (" + end + ")");
        }
    }
}
