package dev.turntable.pool;

import dev.turntable.pool.classes.ClassConfig;
import dev.turntable.pool.classes.LoadPlan;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Rebalancing's stops for a {@link ClassScheduler}: a running Java task cannot be stopped
 * safely, so the tasks the plan names to stop are, if they are {@link RestartableTask}s,
 * interrupted (their workers put them back in their jobs on the way back,
 * {@link ClassEndings}); any other over-entitled class is held. Threads: the running pass
 * ({@link ClassPass}) only acts on the plan's stops; any thread adds and removes listeners and
 * reads {@link #stoppedNotBackCount}; the worker back from a stopped task uncounts it
 * ({@link #stoppedTaskBack}).
 */
final class ClassStops {

    private final TurntableQueue queue;
    /**
     * Restartable tasks asked to stop whose workers have not come back yet: each may wait again
     * in a moment, so the queue counts them in {@code size()} until then. ThreadPoolExecutor
     * reads {@code isEmpty()} before it lets a shut-down pool's last worker leave or terminates
     * the pool; without this count the stopped task would be put back after the pool had gone.
     */
    private final AtomicInteger stoppedNotBack = new AtomicInteger();
    private final CopyOnWriteArrayList<Consumer<Rebalance>> listeners = new CopyOnWriteArrayList<>();

    ClassStops(TurntableQueue queue) {
        this.queue = queue;
    }

    void addListener(Consumer<Rebalance> l) {
        listeners.add(l);
    }

    void removeListener(Consumer<Rebalance> l) {
        listeners.remove(l);
    }

    /** Stopped restartable tasks whose workers have not come back yet (see {@link #stoppedNotBack}). */
    int stoppedNotBackCount() {
        return stoppedNotBack.get();
    }

    /**
     * The worker of a task {@link #requestStop} counted is back and has ended it: put back in its
     * job, or not (see {@code ClassEndings.ended} for where this comes in that order).
     */
    void stoppedTaskBack() {
        stoppedNotBack.decrementAndGet();
    }

    /**
     * Pass only: acts on the plan's stops: interrupts the most recently started restartable
     * tasks of each over-entitled class; holds (sets {@code held[i]}) a class whose named tasks
     * are not all restartable. Returns the workers freed (they come free when the stopped tasks
     * return).
     */
    int stopOverEntitled(ClassConfig c, LoadPlan plan, boolean[] held) {
        int n = c.classCount();
        Map<String, Integer> toStop = new LinkedHashMap<>();
        Map<String, Integer> stopped = new LinkedHashMap<>();
        int freed = 0;
        for (int i = 0; i < n; i++) {
            int want = plan.tasksToStop(i);
            if (want <= 0) {
                continue;
            }
            List<StopCandidate> candidates = new ArrayList<>();
            for (WorkerSlot o : queue.slots) {
                Object r = o.runningClassTask;
                if (r instanceof ClassedTask) {
                    ClassedTask ct = (ClassedTask) r;
                    if (ct.job.classifiedBy == c && ct.job.classIndex == i && ct.task() instanceof RestartableTask
                            && !ct.stopRequested) {
                        candidates.add(new StopCandidate(o, ct));
                    }
                }
            }
            // Most recently started first, by the task seen: the slot may run another one by now.
            candidates.sort((a, b) -> Long.compare(b.task().startSeq, a.task().startSeq));
            int done = 0;
            for (StopCandidate sc : candidates) {
                if (done == want) {
                    break;
                }
                if (requestStop(sc.slot(), sc.task())) {
                    done++;
                }
            }
            toStop.put(c.className(i), want);
            stopped.put(c.className(i), done);
            if (done < want) {
                held[i] = true;
            }
            freed += done;
        }
        if (!listeners.isEmpty()) {
            Rebalance event = new Rebalance(plan.deltaSpreadPercent(), toStop, stopped);
            for (Consumer<Rebalance> l : listeners) {
                try {
                    l.accept(event);
                } catch (RuntimeException | Error ignored) {
                    // a listener's failure must not stop scheduling
                }
            }
        }
        return freed;
    }

    /** A task a pass may stop, and the slot it was seen running on. */
    private record StopCandidate(WorkerSlot slot, ClassedTask task) {
    }

    /**
     * Interrupts {@code o}'s worker if it still runs {@code seen}, the task the pass chose. The
     * CAS on stopState, then the re-read of the running task, pairs with
     * {@link ClassEndings#finished}'s claim of the running task and then read of stopState
     * (Dekker): either we see the task gone (or another in its place, which the pass did not
     * choose: it may be of another class, or not restartable) and interrupt nobody, or the
     * worker sees STOPPING and waits until the interrupt is delivered, then clears it. An
     * interrupt can therefore never land on the worker's next task.
     */
    private boolean requestStop(WorkerSlot o, ClassedTask seen) {
        if (!o.casStopState(WorkerSlot.NOT_STOPPING, WorkerSlot.STOPPING)) {
            return false;
        }
        try {
            Object r = o.runningClassTask;
            Thread t = o.thread;
            if (r != seen || t == null) {
                return false;
            }
            // Counted before the flag: the owner, back from the task, waits in finished() until
            // we leave STOPPING, then sees the flag and uncounts it in ended().
            stoppedNotBack.incrementAndGet();
            seen.stopRequested = true;
            t.interrupt();
            return true;
        } finally {
            o.stopState = WorkerSlot.NOT_STOPPING;
        }
    }
}
