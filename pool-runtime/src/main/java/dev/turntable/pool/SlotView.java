package dev.turntable.pool;

import dev.turntable.pool.strategy.WorkerView;

/**
 * The {@link WorkerView} a {@link TurntableQueue} hands to its strategy: live reads of the
 * queue's slots, no copies, no allocation. Called on submitting threads, concurrently.
 *
 * <p>A time statistic reads 0 (a remaining time -1) unless the pool collects it now, for the
 * active strategy or the latency histograms ({@link StatisticsCollector#isCurrent(WorkerSlot, int)}),
 * as {@link WorkerView} promises: a slot keeps the last values of one no longer collected.
 *
 * <p>Two instances exist per queue: the queuing view (a worker is available when its thread is
 * attached) and the hand-off view (available only when it is also idle and waiting, which is
 * what a direct hand-off can give a task to).
 */
final class SlotView implements WorkerView {

    private final TurntableQueue queue;
    private final boolean handOff;

    SlotView(TurntableQueue queue, boolean handOff) {
        this.queue = queue;
        this.handOff = handOff;
    }

    private WorkerSlot slot(int worker) {
        return queue.slots[worker];
    }

    /** Up to the highest slot a thread holds ({@link TurntableQueue#slotBound}): the free ones above it take no task. */
    @Override
    public int count() {
        return queue.slotBound;
    }

    @Override
    public boolean exists(int worker) {
        return slot(worker).state != WorkerSlot.FREE;
    }

    @Override
    public long maxLifetimeTasks() {
        return queue.lifetimeLimit;
    }

    @Override
    public boolean isAvailable(int worker) {
        WorkerSlot s = slot(worker);
        // Stuck past the heartbeat timeout, in the first task its executor gave it (which may
        // never end: a consumer loop), a hand-off worker on its way out as surplus, or held back by a limit (recycling, draining toward
        // retirement, at the concurrency limit).
        if (s.state != WorkerSlot.ATTACHED || (s.flags & (WorkerSlot.STUCK | WorkerSlot.FIRST_TASK | WorkerSlot.SURPLUS)) != 0
                || s.atALimit(queue.lifetimeLimit, queue.maxConcurrentTasks)) {
            return false;
        }
        if (handOff) {
            int ws = s.waitState;
            return ws == WorkerSlot.SEARCHING || ws == WorkerSlot.PARKED;
        }
        return true;
    }

    @Override
    public int queued(int worker) {
        return slot(worker).queue.size();
    }

    @Override
    public int running(int worker) {
        return slot(worker).running;
    }

    @Override
    public long completed(int worker) {
        return slot(worker).completed;
    }

    @Override
    public long historyTasks(int worker) {
        WorkerSlot s = slot(worker);
        return queue.statistics.isCurrent(s) ? s.completedSinceStatsStart() : 0L;
    }

    @Override
    public long lifetimeTasks(int worker) {
        return slot(worker).lifetimeTasks();
    }

    @Override
    public long runTimeTotalNanos(int worker) {
        WorkerSlot s = slot(worker);
        return queue.statistics.isCurrent(s, StatisticsCollector.RUN) ? s.runTimeTotalNanos : 0L;
    }

    @Override
    public long waitTimeTotalNanos(int worker) {
        WorkerSlot s = slot(worker);
        return queue.statistics.isCurrent(s, StatisticsCollector.WAIT) ? s.waitTimeTotalNanos : 0L;
    }

    @Override
    public long cpuTimeNanos(int worker) {
        WorkerSlot s = slot(worker);
        return queue.statistics.isCurrent(s, StatisticsCollector.CPU) ? s.cpuTimeNanos : 0L;
    }

    /**
     * The owner's published start; or, for an untimed task (unknown start), the moment a
     * submitter first saw it running, once a later look confirmed it, while it is still the task
     * running ({@code started} unchanged, not completed): {@link WorkerSlot#observedStartNanos}.
     */
    @Override
    public long runningSinceNanos(int worker) {
        WorkerSlot s = slot(worker);
        long sinceNanos = s.runningSinceNanos;
        return sinceNanos != START_UNKNOWN ? sinceNanos : s.observedStartNanos(s.started);
    }

    @Override
    public long taskTimeEstimateNanos(int worker) {
        WorkerSlot s = slot(worker);
        return queue.statistics.isCurrent(s, StatisticsCollector.ESTIMATE) ? s.estimateNanos : 0L;
    }

    @Override
    public long remainingTimeNanos(int worker, long elapsedNanos) {
        WorkerSlot s = slot(worker);
        dev.turntable.pool.stats.ResidualTimeTable t = s.residuals;
        return t != null && queue.statistics.isCurrent(s, StatisticsCollector.REMAINING) ? t.remainingNanos(elapsedNanos) : -1L;
    }

    @Override
    public long poolTaskTimeEstimateNanos() {
        return queue.statistics.poolEstimateNanos();
    }

    @Override
    public long weightNanos(int worker) {
        return queue.weightNanos(worker);
    }
}
