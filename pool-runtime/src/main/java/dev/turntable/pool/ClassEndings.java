package dev.turntable.pool;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The end of each task a {@link ClassScheduler} started, in its job's running count: exactly
 * once, by the worker that ran it ({@link #finished}) or, if that worker will not, by the thread
 * that reaps the dead worker or terminates the pool ({@link #abandoned}); a stopped restartable
 * task that did not complete goes back to the head of its job then. Threads: workers back from
 * a classed task, reapers and terminating threads; anything that takes a started task out of a
 * worker's queue unrun ({@link #released}). None of them runs a pass here: each method says
 * whether one is due, for the caller to run once it is done.
 */
final class ClassEndings {

    private static final int COMPLETENESS_UNKNOWN = 0;
    private static final int COMPLETE = 1;
    private static final int INCOMPLETE = 2;

    private final TurntableQueue queue;
    private final ClassJobs jobs;
    private final ClassStops stops;
    /** Stopped restartable tasks put back to run again: ThreadPoolExecutor counts each run as a completed task. */
    private final AtomicLong restarts = new AtomicLong();

    ClassEndings(TurntableQueue queue, ClassJobs jobs, ClassStops stops) {
        this.queue = queue;
        this.jobs = jobs;
        this.stops = stops;
    }

    /**
     * The worker that ran {@code ct} is back for its next task (or leaving): the task no longer
     * runs. A stopped restartable task that did not complete goes back to the head of its job.
     * Returns whether a scheduling pass is due, for the caller to run.
     */
    boolean finished(WorkerSlot s, ClassedTask ct) {
        // Whether a stopped task is complete is asked before the claim, so that no application
        // code runs while this ending is under way (ownerTerminated waits for those); the task
        // has returned, so its answer is final. First the pass that stopped it is waited out and
        // its interrupt cleared: it was for the task, not for the question. Safe before the
        // claim: a pass never asks a task to stop twice. A stop requested after this look (a
        // pass racing our claim) is asked about after the claim, outside the stretch below.
        int complete = COMPLETENESS_UNKNOWN;
        if (ct.stopRequested) {
            awaitNoStop(s);
            Thread.interrupted();
            complete = completeness(ct);
        }
        boolean passDue = false;
        // A volatile write before the claim: a termination whose claim fails reads it after
        // (awaitEndingsUnderWay), so it cannot miss an ending under way.
        s.endingClassTask = 1;
        try {
            // A CAS, then read stopState (awaitNoStop): pairs with ClassStops.requestStop (CAS,
            // then read the task). Lost only to the pool's termination, which ended the task
            // for us.
            if (s.claimRunningClassTask(ct)) {
                awaitNoStop(s);
                if (ct.stopRequested) {
                    Thread.interrupted(); // the pool's interrupt was for that task, not the next one
                    if (complete == COMPLETENESS_UNKNOWN && !queue.isOwnerStopping()) {
                        // Stopped after our look: the question is application code, which may
                        // take the pool's main lock, under which a termination waits for us.
                        // Asked outside the stretch it waits for: at worst, in this rare race,
                        // the task counts as running for a moment after the pool terminated.
                        s.endingClassTask = 0;
                        complete = completeness(ct);
                        s.endingClassTask = 1;
                    }
                }
                passDue = ended(ct, complete);
            }
        } finally {
            s.endingClassTask = 0;
        }
        return passDue;
    }

    /**
     * {@code ct} no longer runs on {@code s}, though its owner has not said so: the thread died
     * inside it and was reaped by another thread (a plain ThreadPoolExecutor's worker whose task
     * threw, which reports no exit), or the pool terminated before the owner came back to the
     * queue. Its class no longer holds that worker. As {@link #finished}, except that the
     * interrupt, if any, is the owner's. The caller took {@code ct} off the slot first
     * ({@link WorkerSlot#takeRunningClassTask} or {@link WorkerSlot#claimRunningClassTask}).
     * Returns whether a scheduling pass is due.
     */
    boolean abandoned(WorkerSlot s, ClassedTask ct) {
        // The caller cleared s.runningClassTask (a CAS); wait out a pass that read it before
        // that and is asking this very task to stop.
        awaitNoStop(s);
        return ended(ct, COMPLETENESS_UNKNOWN);
    }

    /**
     * Waits until no owner is between claiming a finished class task and ending it in its class
     * ({@link #finished}): then every task claimed before this call has been ended. Short: no
     * application code runs in that stretch and no lock is taken (in one rare race, a stop
     * requested while the owner claims, the owner asks the task outside it).
     */
    void awaitEndingsUnderWay(WorkerSlot[] slots) {
        for (WorkerSlot s : slots) {
            for (int spins = 0; s.endingClassTask != 0; spins++) {
                if (spins < 1_000) {
                    Thread.onSpinWait();
                } else {
                    Thread.yield();
                }
            }
        }
    }

    private static void awaitNoStop(WorkerSlot s) {
        while (s.stopState == WorkerSlot.STOPPING) {
            Thread.onSpinWait(); // a pass is interrupting the owner for this very task: let it finish
        }
    }

    /** Whether {@code ct}'s task is done: {@link #COMPLETE}, or {@link #INCOMPLETE} for a restartable one that says not. */
    private static int completeness(ClassedTask ct) {
        Runnable task = ct.task();
        return task instanceof RestartableTask && !isComplete((RestartableTask) task) ? INCOMPLETE : COMPLETE;
    }

    /**
     * Ends {@code ct} in its job (and, if it was stopped, puts it back or not); {@code complete}
     * is its {@link #completeness} if already known. Returns whether a scheduling pass is due
     * (tasks wait in their classes), for the caller to run once it is done.
     */
    private boolean ended(ClassedTask ct, int complete) {
        ClassJobs.Job job = ct.job;
        // Before the running count drops: the pass that count lets run reads this use.
        ct.chargeUse(queue.ticker().nanoTime());
        if (ct.stopRequested) {
            Runnable task = ct.task();
            // Once stopping, the answer would change nothing: not asked (the pool's termination
            // may be ending this task, and must not wait on application code).
            boolean again = !queue.isOwnerStopping()
                    && (complete == COMPLETENESS_UNKNOWN ? completeness(ct) : complete) == INCOMPLETE;
            if (!again) {
                // Nothing moves: the task is done, or it stays a running one that shutdownNow()
                // interrupted (ThreadPoolExecutor neither returns nor runs again such a task).
                // No transit count either, which size() would read: this worker may end its task
                // only after another thread has terminated the pool, and a count of 1 read then
                // would say a task was left behind. (Once stopping, size() no longer counts
                // stoppedNotBack; while not, the task is no longer on its way back.)
                stops.stoppedTaskBack();
            } else {
                // A move, as the queue's whole-queue operations see it: shutdownNow() marks the
                // queue stopping and then drains, and the drain waits out moves in progress and
                // drains again if one landed. So either we read ownerStopping false after
                // counting ourselves in transit, and the drain (which comes after that write)
                // finds the task put back, or we read it true and the task stays a running one,
                // as above. (size() reads stoppedNotBack before the waiting count, so it never
                // misses the task.)
                // When it is not put back, this move counted a task that does not arrive, and
                // no owner re-check follows (as one does for a claim that came up empty,
                // ClassPass.claimCameUpEmpty): that happens only once shutdownNow() has begun,
                // which moves the pool to STOP and then runs tryTerminate itself, reading no
                // isEmpty() under STOP; a tryTerminate our count misled read SHUTDOWN before
                // that, and shutdownNow's own comes after it (see TurntableQueue.emptyClaimEnded
                // for a shutdownNow() refused by a security manager).
                queue.beginMove();
                boolean putBack = !queue.isOwnerStopping();
                try {
                    if (putBack) {
                        queue.holdPlaceAgain(); // it waits again: a bounded queue counts it as held
                        jobs.putBack(job, task);
                        restarts.incrementAndGet();
                    }
                    stops.stoppedTaskBack();
                } finally {
                    queue.endMove(putBack);
                }
            }
        }
        job.running.decrementAndGet();
        return jobs.hasWaiting();
    }

    /** Stopped restartable tasks put back so far; each will be run (and counted by the executor) again. */
    long restartCount() {
        return restarts.get();
    }

    private static boolean isComplete(RestartableTask t) {
        try {
            return t.isComplete();
        } catch (RuntimeException | Error e) {
            return true; // never run a task again on a broken answer: at most once beats twice
        }
    }

    /** A classed task taken out of a worker's queue without running (drainTo, remove, poll). */
    static void released(Runnable element) {
        if (element instanceof ClassedTask) {
            ((ClassedTask) element).job.running.decrementAndGet();
        }
    }
}
