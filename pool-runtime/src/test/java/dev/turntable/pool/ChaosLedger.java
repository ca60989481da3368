package dev.turntable.pool;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What became of each task of a chaos round, by task id, and the check that each had exactly one
 * fate: an accepted task was dispatched exactly once (counted in {@code beforeExecute}, so a
 * {@code FutureTask} that is dispatched twice is seen though it runs its body once), or run by
 * CallerRuns, or returned by {@code shutdownNow} once, or dropped by a policy, or taken back
 * (remove, poll, drainTo, DiscardOldest). A rejected task never ran. A restartable task completes
 * at most once, and exactly once unless {@code shutdownNow} stopped it (its own interrupt, or
 * rebalancing's a moment before).
 */
final class ChaosLedger {

    static final int PENDING = 0;
    static final int ACCEPTED = 1; // execute/submit returned normally
    static final int REJECTED = 2; // execute/submit threw RejectedExecutionException
    static final int FAILED = 3;   // threw something else (a test failure by itself)

    static final int PLAIN = 0;
    static final int SPIN = 1;
    static final int PARENT = 2;
    static final int THROWS = 3;
    static final int RESTARTABLE = 4;
    static final int CHILD = 5;
    static final int SELF_INTERRUPT = 6;
    static final int ENDER = 7;

    static final String[] KIND_NAMES = {"plain", "spin", "parent", "throws", "restartable", "child", "self-interrupt",
        "ender"};
    static final String[] OUTCOME_NAMES = {"pending", "accepted", "rejected", "failed"};
    static final Pattern WRAPPED = Pattern.compile("Wrapped task = future-(\\d+)\\]");

    final int cap;
    final AtomicInteger nextId = new AtomicInteger();
    final AtomicIntegerArray kind;
    final AtomicIntegerArray outcome;
    final AtomicIntegerArray dispatched;   // beforeExecute
    final AtomicIntegerArray bodyRuns;     // the task's own run()
    final AtomicIntegerArray callerRan;    // run by CallerRuns in the submitting thread
    final AtomicIntegerArray discarded;    // dropped by a policy: Discard, or any after shutdown
    final AtomicIntegerArray victim;       // polled out of the queue by DiscardOldest
    final AtomicIntegerArray completions;  // restartable: runs that completed its work
    final AtomicIntegerArray incompleteAfterStop; // restartable: last run ended incomplete after shutdownNow began
    /** Restartable: when its last run ended incomplete (0: completed, or never ran). */
    final AtomicLongArray incompleteEndNanos;
    final AtomicIntegerArray ranAfterComplete;
    final AtomicIntegerArray removed;      // taken back by pool.remove(task)
    final AtomicIntegerArray cancelled;    // a submit's future cancelled (purge may take it unseen)
    final AtomicIntegerArray asFuture;     // queued as a future (submit, invokeAll, invokeAny)
    /** Recently queued elements (the task, or the future submit made), for remove and cancel. */
    final AtomicReferenceArray<Runnable> recent = new AtomicReferenceArray<>(64);
    final AtomicInteger recentAt = new AtomicInteger();
    /** A cancelled future may have been taken by ThreadPoolExecutor's purge(), which does not say what it took. */
    volatile boolean realPurgeCalled;

    ChaosLedger(int cap) {
        this.cap = cap;
        kind = new AtomicIntegerArray(cap);
        outcome = new AtomicIntegerArray(cap);
        dispatched = new AtomicIntegerArray(cap);
        bodyRuns = new AtomicIntegerArray(cap);
        callerRan = new AtomicIntegerArray(cap);
        discarded = new AtomicIntegerArray(cap);
        victim = new AtomicIntegerArray(cap);
        completions = new AtomicIntegerArray(cap);
        incompleteAfterStop = new AtomicIntegerArray(cap);
        incompleteEndNanos = new AtomicLongArray(cap);
        ranAfterComplete = new AtomicIntegerArray(cap);
        removed = new AtomicIntegerArray(cap);
        cancelled = new AtomicIntegerArray(cap);
        asFuture = new AtomicIntegerArray(cap);
    }

    int newId(int k) {
        int id = nextId.getAndIncrement();
        if (id >= cap) {
            return -1;
        }
        kind.set(id, k);
        return id;
    }

    /** Remembers a queued element (the task, or the future submit made) for remove and cancel. */
    void remember(Runnable queued) {
        recent.set(recentAt.getAndIncrement() & 63, queued);
    }

    /** The id of one of our tasks, or of the future wrapping one; -1 for anything else. */
    static int idOf(Object r) {
        if (r instanceof ChaosTasks.Task) {
            return ((ChaosTasks.Task) r).id;
        }
        if (r instanceof ChaosTasks.RTask) {
            return ((ChaosTasks.RTask) r).id;
        }
        if (r instanceof ChaosExecutor.IdFuture) {
            return ((ChaosExecutor.IdFuture<?>) r).id;
        }
        if (r != null && r.getClass().getName().equals("java.util.concurrent.ExecutorCompletionService$QueueingFuture")) {
            // invokeAny's wrapper of our future (a private JDK class): its text names what it wraps
            Matcher m = WRAPPED.matcher(r.toString());
            if (m.find()) {
                return Integer.parseInt(m.group(1));
            }
        }
        return -1;
    }

    /** Accepted tasks not yet run, dropped, removed or returned. */
    List<Integer> unresolved() {
        List<Integer> open = new ArrayList<>();
        int n = Math.min(nextId.get(), cap);
        for (int id = 0; id < n; id++) {
            if (outcome.get(id) != ACCEPTED) {
                continue;
            }
            boolean done = kind.get(id) == RESTARTABLE ? completions.get(id) > 0 : dispatched.get(id) > 0;
            // a cancelled future may have been purged, unseen
            if (!done && callerRan.get(id) == 0 && discarded.get(id) == 0 && victim.get(id) == 0
                    && removed.get(id) == 0 && (cancelled.get(id) == 0 || !realPurgeCalled)) {
                open.add(id);
            }
        }
        return open;
    }

    /**
     * Checks every task's record, after the round: the pool returned {@code returned} (by id) from
     * {@code shutdownNow}. Returns the dispatches counted (for the pool's completed-task count).
     */
    long checkEveryTask(ChaosRound round, Map<Integer, Integer> returned) {
        int n = Math.min(nextId.get(), cap);
        long totalDispatched = 0;
        int bad = 0;
        for (int id = 0; id < n; id++) {
            int o = outcome.get(id);
            int disp = dispatched.get(id);
            int caller = callerRan.get(id);
            int back = returned.getOrDefault(id, 0);
            int drop = discarded.get(id);
            int vic = victim.get(id);
            int body = bodyRuns.get(id);
            int k = kind.get(id);
            int rem = removed.get(id);
            boolean canc = cancelled.get(id) != 0;
            totalDispatched += disp;
            String what = null;
            if (o == PENDING) {
                // a parent that ended (shutdownNow) before submitting its child, or a task never submitted
                if (disp + caller + back + drop + vic != 0) {
                    what = "never submitted but dispatched " + disp;
                }
            } else if (o == REJECTED) {
                if (disp + caller + back + vic + body != 0 || drop != 0) {
                    what = "rejected (threw)";
                }
                round.count("tasks rejected");
            } else if (o == ACCEPTED) {
                round.count("tasks accepted");
                if (k == RESTARTABLE) {
                    int done = completions.get(id);
                    // Stopped by shutdownNow's interrupt; or stopped by rebalancing a moment
                    // before shutdownNow(), whose worker came back after it began: documented
                    // as running then (interrupted, not returned, not run again). The worker
                    // comes back within microseconds of the task's return, so a return more
                    // than 100 ms before shutdownNow() is no excuse.
                    long endedAt = incompleteEndNanos.get(id);
                    boolean stoppedJustBefore = round.stopIssued && endedAt != 0
                            && endedAt - round.shutdownNanos > -TimeUnit.MILLISECONDS.toNanos(100);
                    int abandoned = done == 0 && back == 0 && vic == 0 && drop == 0 && rem == 0 && disp > 0
                            && (incompleteAfterStop.get(id) == 1 || stoppedJustBefore) ? 1 : 0;
                    if (abandoned == 1 && incompleteAfterStop.get(id) == 0) {
                        round.count("restartable stopped by rebalancing just before shutdownNow: not run again");
                    }
                    if (done > 1 || ranAfterComplete.get(id) != 0) {
                        what = "restartable completed " + done + "x, ran after completion " + ranAfterComplete.get(id) + "x";
                    } else if (done + back + vic + drop + rem + abandoned != 1) {
                        what = "restartable: not exactly one outcome";
                    } else if (done == 1 && disp + caller == 0) {
                        // Restarts dispatch it again, so only "at least once" holds; but a run
                        // that completed came through beforeExecute (or the caller) first.
                        what = "restartable: completed but never dispatched";
                    }
                    if (disp > 1) {
                        round.count("restartable runs restarted", disp - 1);
                    }
                } else {
                    int sum = disp + caller + back + drop + vic + rem;
                    if (sum == 0 && canc && realPurgeCalled) {
                        round.count("cancelled futures not seen again (purged)");
                    } else if (sum != 1) {
                        what = "not exactly one outcome";
                    } else if (body > disp + caller) {
                        what = "body ran more than dispatched";
                    } else if (asFuture.get(id) == 0 && body != disp + caller) {
                        what = "given to execute, dispatched but its run() not called"; // a future's may be cancelled
                    }
                }
                if (drop > 0) {
                    round.count("tasks dropped by a policy");
                }
                if (caller > 0) {
                    round.count("tasks run by CallerRuns");
                }
            } else {
                what = "submit failed";
            }
            if (what != null) {
                bad++;
                if (bad <= 20) {
                    round.fail("task " + id + " (" + KIND_NAMES[k] + "): " + what + ": outcome " + OUTCOME_NAMES[o]
                            + " dispatched " + disp + " callerRan " + caller + " returned " + back + " discarded "
                            + drop + " victim " + vic + " removed " + rem + " cancelled " + canc + " bodyRuns " + body
                            + " completions " + completions.get(id)
                            + (incompleteEndNanos.get(id) != 0 ? " last run ended incomplete "
                                    + TimeUnit.NANOSECONDS.toMicros(round.shutdownNanos - incompleteEndNanos.get(id))
                                    + " us before the ending" : ""));
                }
            }
        }
        if (bad > 20) {
            round.fail((bad - 20) + " more tasks with a wrong outcome");
        }
        return totalDispatched;
    }
}
