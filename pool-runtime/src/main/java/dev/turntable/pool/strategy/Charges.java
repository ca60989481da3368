package dev.turntable.pool.strategy;

/**
 * Saturating arithmetic and the charge-at-dispatch rule shared by the time-based strategies.
 * Stateless; any thread. Operands are non-negative; results saturate at {@link Long#MAX_VALUE}
 * instead of overflowing, so a huge total can never wrap around into the smallest.
 */
final class Charges {

    private Charges() {
    }

    /** {@code a + b} for non-negative operands, {@link Long#MAX_VALUE} on overflow. */
    static long add(long a, long b) {
        long sum = a + b;
        return sum < 0 ? Long.MAX_VALUE : sum;
    }

    /** {@code a * b} for non-negative operands, {@link Long#MAX_VALUE} on overflow. */
    static long multiply(long a, long b) {
        long product = a * b;
        return Math.multiplyHigh(a, b) != 0 || product < 0 ? Long.MAX_VALUE : product;
    }

    /** Tasks dispatched to the worker and not finished: queued plus running. */
    static long inFlight(WorkerView workers, int worker) {
        return (long) Math.max(0, workers.queued(worker)) + Math.max(0, workers.running(worker));
    }

    /**
     * A worker's history plus its in-flight tasks charged at its average per completed task
     * (at least 1 ns): the charge is made the moment a task is queued and corrected by the real
     * time once it completes.
     */
    static long historyPlusInFlight(long historyNanos, long completed, long inFlight) {
        long perTaskNanos = completed > 0 ? Math.max(1L, historyNanos / completed) : 1L;
        return add(historyNanos, multiply(inFlight, perTaskNanos));
    }

    /** A worker's history: its CPU time ({@code cpuTime}), else its run plus wait time. */
    private static long history(WorkerView workers, int worker, boolean cpuTime) {
        return cpuTime ? Math.max(0L, workers.cpuTimeNanos(worker))
                : add(Math.max(0L, workers.runTimeTotalNanos(worker)), Math.max(0L, workers.waitTimeTotalNanos(worker)));
    }

    /**
     * LEAST_BUSY's and LEAST_CPU's choice, in one pass: the available worker with the least
     * {@code history + inFlight * perTask}, where history is the worker's total
     * ({@code cpuTime} true: its CPU time; else its run plus wait time) and {@code perTask} its
     * own average over {@link WorkerView#historyTasks}. A worker without history of its own (a
     * new thread, or none since a reset) charges its in-flight tasks at the average of the workers
     * that have some, at least 1 ns: charged at 1 ns, a fresh worker stuck in a long first task
     * looked cheaper than an idle one with history until about a million tasks had queued
     * behind it. Without history anywhere the choice counts tasks in flight as LEAST_USED does,
     * and leaves out a started task's sampled wait: weighed against no history, that wait
     * outweighed any number of queued tasks. One pass, and a second over the workers without
     * history only when there are two or more of them (their charges need the average first); no
     * allocation. Ties go to the lowest index.
     */
    static int leastCharged(WorkerView workers, boolean cpuTime) {
        int n = workers.count();
        int known = WorkerChoiceStrategy.NONE;
        long knownCharge = Long.MAX_VALUE;
        int fresh = WorkerChoiceStrategy.NONE;
        int freshCount = 0;
        long freshInFlight = 0;
        long freshHistory = 0;
        long poolHistory = 0;
        long poolTasks = 0;
        for (int i = 0; i < n; i++) {
            if (!workers.isAvailable(i)) {
                continue;
            }
            long history = history(workers, i, cpuTime);
            long tasks = workers.historyTasks(i);
            long inFlight = inFlight(workers, i);
            if (tasks > 0) {
                poolHistory = add(poolHistory, history);
                poolTasks = add(poolTasks, tasks);
                long charge = historyPlusInFlight(history, tasks, inFlight);
                if (known == WorkerChoiceStrategy.NONE || charge < knownCharge) {
                    known = i;
                    knownCharge = charge;
                }
            } else if (freshCount++ == 0) {
                fresh = i;
                freshInFlight = inFlight;
                freshHistory = history; // a started task's sampled wait may be there already
            }
        }
        if (fresh == WorkerChoiceStrategy.NONE) {
            return known;
        }
        // Without history anywhere there is no time to weigh a history against: count tasks,
        // as LEAST_USED does. A started task's sampled wait (one offer in 8, counted 8 times)
        // charged against the 1 ns placeholder read as hundreds of thousands of tasks, and a
        // fresh pool's burst skipped that worker entirely (10 of 30 fresh two-worker pools
        // queued 100 of 100 on the other: LeastBusyFreshPoolTest). perTask 0 stands for that.
        long perTask = poolTasks > 0 ? Math.max(1L, poolHistory / poolTasks) : 0L;
        long freshCharge = freshCharge(freshHistory, freshInFlight, perTask);
        if (freshCount > 1) {
            // The cheapest of them, now that the average is known (a racy re-read: a worker
            // may have gained history meanwhile; it is charged as if it had none, as a moment ago).
            for (int i = fresh + 1; i < n; i++) {
                if (!workers.isAvailable(i) || workers.historyTasks(i) > 0) {
                    continue;
                }
                long charge = freshCharge(history(workers, i, cpuTime), inFlight(workers, i), perTask);
                if (charge < freshCharge) {
                    fresh = i;
                    freshCharge = charge;
                }
            }
        }
        if (known == WorkerChoiceStrategy.NONE) {
            return fresh;
        }
        return freshCharge < knownCharge || (freshCharge == knownCharge && fresh < known) ? fresh : known;
    }

    /**
     * A worker without history: its own time so far (a started task's sampled wait, say) plus its
     * tasks in flight at the pool's average per task; or, with no history anywhere
     * ({@code perTaskNanos} 0), its tasks in flight alone.
     */
    private static long freshCharge(long history, long inFlight, long perTaskNanos) {
        return perTaskNanos == 0 ? inFlight : add(history, multiply(inFlight, perTaskNanos));
    }
}
