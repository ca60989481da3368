package dev.turntable.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import org.junit.jupiter.api.Test;

/**
 * LEAST_CPU's busy-stretch accounting: within a stretch of back-to-back tasks the worker's CPU
 * total is refreshed every 32 tasks while tasks are long, and about every 50 µs of CPU while
 * they are tiny, where a read every 32 tasks (a ~0.75 µs system call) cost a sixth of the
 * worker. The collector is driven on the test thread, as a worker drives it; the tests count
 * refreshes as the strategy sees them: changes of the worker's CPU total.
 */
class CpuTimeStretchTest {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final TurntableQueue queue = TurntableQueue.builder().strategy("LEAST_CPU").build();
    private final StatisticsCollector collector = queue.statistics;
    private final WorkerSlot slot = new WorkerSlot(0, 64);

    CpuTimeStretchTest() {
        collector.adopt(slot);
    }

    /** Runs {@code tasks} back-to-back tasks of {@code cpuNanos} CPU each; returns how often the CPU total changed. */
    private int runStretch(int tasks, long cpuNanos) {
        int refreshes = 0;
        long seen = slot.cpuTimeNanos;
        for (int i = 0; i < tasks; i++) {
            collector.taskStarted(slot, 0L, 0L);
            burnCpu(cpuNanos);
            collector.taskFinished(slot);
            if (slot.cpuTimeNanos != seen) {
                seen = slot.cpuTimeNanos;
                refreshes++;
            }
        }
        return refreshes;
    }

    /** Busy until this thread has used {@code nanos} of CPU (not wall-clock time: preemption does not count). */
    private static void burnCpu(long nanos) {
        if (nanos == 0) {
            return;
        }
        long until = THREADS.getCurrentThreadCpuTime() + nanos;
        while (THREADS.getCurrentThreadCpuTime() < until) {
            Thread.onSpinWait();
        }
    }

    @Test
    void tinyTasksRefreshTheCpuTotalFarLessOftenThanEvery32Tasks() {
        int tasks = 20_000;
        long before = THREADS.getCurrentThreadCpuTime();
        int refreshes = runStretch(tasks, 0);
        collector.workerIdle(slot); // the stretch ends: the rest is counted
        long used = THREADS.getCurrentThreadCpuTime() - before;

        // Every 32 tasks would be 625. The interval aims at 50 µs of CPU between reads, so the
        // reads follow the CPU the stretch used: a no-op's bookkeeping is well under 1 µs warm,
        // but in a cold JVM on a loaded CI host it was ~0.7 µs (273 reads). Twice the aim, and
        // never above every-32's count, which is the regression this guards against.
        long atMost = Math.min(tasks / StatisticsCollector.CPU_READ_EVERY_TASKS - 1,
                Math.max(tasks / StatisticsCollector.CPU_READ_MAX_TASKS,
                        2 * used / StatisticsCollector.CPU_READ_TARGET_NANOS) + 2);
        assertTrue(refreshes <= atMost, "tiny tasks: the CPU clock is read about every 50 µs of CPU; refreshes: "
                + refreshes + " (at most " + atMost + ") in " + used + " ns of CPU");
        assertTrue(refreshes >= tasks / StatisticsCollector.CPU_READ_MAX_TASKS,
                "but at least every 1,024 tasks; refreshes: " + refreshes);
        assertTrue(slot.cpuTimeNanos > 0 && slot.cpuTimeNanos <= used,
                "the total is the stretch's CPU time: " + slot.cpuTimeNanos + " of " + used + " used");
    }

    @Test
    void tasksOfFiveMicrosecondsRefreshTheCpuTotalEvery32Tasks() {
        int refreshes = runStretch(320, 5_000);
        assertEquals(320 / StatisticsCollector.CPU_READ_EVERY_TASKS, refreshes,
                "long tasks keep the 32-task refresh");
        assertTrue(slot.cpuTimeNanos >= 320 * 5_000L * 31 / 32,
                "every refreshed task's CPU is counted: " + slot.cpuTimeNanos);
    }

    @Test
    void theIntervalAimsAt50MicrosecondsOfCpuWithin32To1024Tasks() {
        assertEquals(32, StatisticsCollector.cpuReadEveryTasks(32, 32 * 5_000L), "5 µs tasks: 32");
        assertEquals(250, StatisticsCollector.cpuReadEveryTasks(512, 512 * 200L), "200 ns tasks: 50 µs / 200 ns");
        assertEquals(1_024, StatisticsCollector.cpuReadEveryTasks(1_024, 1_024 * 10L), "10 ns tasks: capped");
        assertEquals(1_024, StatisticsCollector.cpuReadEveryTasks(32, 0L), "below the clock's resolution: capped");
    }
}
