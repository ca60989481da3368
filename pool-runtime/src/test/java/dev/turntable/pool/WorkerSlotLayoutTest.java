package dev.turntable.pool;

import dev.turntable.pool.testing.FieldLayout;
import java.util.ArrayList;
import java.util.List;
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
 * so this checks the cause: two fields at least {@link FieldLayout#LINE} bytes apart never share a line, whatever the
 * object's address.
 */
class WorkerSlotLayoutTest {

    /** Read by every submitter on every push (strategy availability, the queue, the wake check). */
    private static final List<String> SUBMITTER_READS = List.of("index", "queue", "thread", "state", "flags",
            "statsCompletedBase");
    /** Written by the owner on every task and read by strategies. */
    private static final List<String> HOT = List.of("running", "statsEpochSeen", "started", "runningSinceNanos",
            "estimateNanos", "runTimeTotalNanos", "waitTimeTotalNanos", "cpuTimeNanos", "completed");
    /** Written by the owner on every task (with statistics on), read by monitoring or no one else. */
    private static final List<String> OWNER = List.of("runTimeSamples", "waitTimeSamples",
            "runningClassTask", "taskStartCpuNanos", "cpuStretchStartNanos", "cpuTasksInStretch", "cpuReadEveryTasks", "flagsAtStart",
            "windowConfigSeen", "samplesSincePoolEstimate", "recentRunNanos",
            "sampleSeed", "timedTaskWeight", "parkStreak", "skippedYieldWaits", "claimingShared");

    /** Written by submitters twice per push when {@code max-concurrent-tasks} is set. */
    private static final List<String> RESERVING = List.of("reserving");

    /** Written by the owner when it goes idle and when it finds work: twice per task when it keeps up with its submitters. */
    private static final List<String> WAIT = List.of("waitState");

    /** Written by submitters, rarely: a sampled clock read that finds a running task of unknown start. */
    private static final List<String> OBSERVED = List.of("observedStarted", "observedSinceNanos");

    private static final FieldLayout LAYOUT = FieldLayout.of(WorkerSlot.class);

    @Test
    void whatSubmittersReadOnEveryPushIsOffTheLinesTheOwnerWritesPerTask() {
        LAYOUT.assertApart(SUBMITTER_READS, HOT, "submitters would miss on every push");
        LAYOUT.assertApart(SUBMITTER_READS, OWNER, "submitters would miss on every push");
    }

    @Test
    void submittersReservationsAreOffEveryOtherGroup() {
        LAYOUT.assertApart(RESERVING, SUBMITTER_READS, "each reservation would cost other submitters a miss on every push");
        LAYOUT.assertApart(RESERVING, HOT, "each reservation would cost strategies a miss, and each task the reserving submitter");
        LAYOUT.assertApart(RESERVING, OWNER, "each task's bookkeeping would cost the reserving submitter a miss");
    }

    @Test
    void submittersDatesOfUnknownStartsAreOffEveryOtherGroup() {
        LAYOUT.assertApart(OBSERVED, SUBMITTER_READS, "dating a task would cost other submitters a miss on their next push");
        LAYOUT.assertApart(OBSERVED, HOT, "dating a task would cost the owner a miss on its next task");
        LAYOUT.assertApart(OBSERVED, OWNER, "each task's bookkeeping would cost FAIR_SHARE's choices a miss");
        LAYOUT.assertApart(OBSERVED, RESERVING, "each reservation would cost FAIR_SHARE's choices a miss");
    }

    @Test
    void theWaitStateIsOffWhatSubmittersAndStrategiesReadBeforeThePush() {
        LAYOUT.assertApart(WAIT, SUBMITTER_READS, "each idle spell would cost every submitter a miss before its push");
        LAYOUT.assertApart(WAIT, HOT, "each idle spell would cost every strategy read a miss");
        LAYOUT.assertApart(WAIT, OWNER, "each task's bookkeeping would cost the submitter's wake check a miss");
    }

    @Test
    void whatStrategiesReadIsOffTheOwnersOtherBookkeeping() {
        LAYOUT.assertApart(HOT, OWNER, "monitoring counters would add a miss to every strategy read");
    }

    @Test
    void noPerTaskFieldSharesALineWithTheObjectsBesideTheSlot() {
        // Before the slot: whatever the heap holds (the submitters' fields must not share its line).
        LAYOUT.assertOffTheObjectBefore(SUBMITTER_READS, "submitters would miss whenever it is written");
        // After the slot: its own queue, allocated right after it, whose header every submitter reads.
        List<String> perTask = new ArrayList<>(HOT);
        perTask.addAll(OWNER);
        LAYOUT.assertOffTheObjectAfter(perTask, "each task would cost submitters a miss on the queue's header");
    }
}
