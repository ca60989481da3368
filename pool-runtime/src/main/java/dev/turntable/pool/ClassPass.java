package dev.turntable.pool;

import dev.turntable.pool.classes.ClassConfig;
import dev.turntable.pool.classes.JobRoundRobin;
import dev.turntable.pool.classes.LoadPlan;
import dev.turntable.pool.classes.LoadPlanner;
import dev.turntable.pool.classes.LoadSnapshot;
import dev.turntable.pool.classes.RebalanceState;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The scheduling passes of a {@link ClassScheduler}: each reads the load of every class from
 * the jobs ({@link ClassJobs}) and the workers, plans with {@link LoadPlanner}, acts on the
 * plan's stops ({@link ClassStops}) and starts waiting tasks on the idle workers through the
 * worker choice strategy; with classes off it flushes every waiting task to the workers.
 * Threads: any thread calls {@link #schedule} (never blocks) and
 * {@link #deferredToPlacingPass}; everything else runs inside a pass, on whichever thread runs
 * it, one pass at a time without a lock: a caller that finds a pass running flags it to run
 * again and returns (the drain-status pattern of Caffeine's buffers).
 */
final class ClassPass {

    private static final int IDLE = 0;
    private static final int PROCESSING = 1;
    private static final int PROCESSING_REQUIRED = 2;

    private final ClassScheduler scheduler;
    private final TurntableQueue queue;
    private final ClassJobs jobs;
    private final ClassStops stops;
    private final AtomicInteger drainStatus = new AtomicInteger(IDLE);

    // ---- touched by the running pass only (drainStatus orders passes one after another) ----
    private long startSeq;
    private RebalanceState rebalanceState = RebalanceState.INITIAL;
    private ClassConfig scratchFor;
    private LoadSnapshot snapshot;
    private LoadPlan plan;
    private boolean[] held = new boolean[0];
    private int[] waitingByClass = new int[0];
    private int[] runningByClass = new int[0];
    /** Worker time each class has used: the planner's memory where workers are too few to go round. */
    private ClassUse use = new ClassUse(0);
    /**
     * Idle workers this pass's starts have yet to fill; the starts beyond them are for workers
     * its stops will free ({@link #placeTaken}).
     */
    private int idleForStarts;
    private final List<ClassJobs.Job> live = new ArrayList<>();
    private final List<ClassJobs.Job> classJobs = new ArrayList<>();
    /**
     * A claim this pass counted came up empty ({@link #claimCameUpEmpty}), and the owner read
     * before the first such claim: for {@link #schedule} to pass on once the pass is over.
     */
    private boolean emptyClaim;
    private WeakReference<ThreadPoolExecutor> emptyClaimOwner;
    /**
     * The running pass's thread while it places a task it started ({@link #placeTaken}), else
     * null: see {@link #deferredToPlacingPass}. Written by the pass only; read by any thread
     * that rescues a task, racily, which is safe: a thread can read its own identity here only
     * from its own write, and its own later write of null comes after that in its program order,
     * so it never mistakes itself for the placing pass, nor the placing pass for another.
     */
    private Thread placing;

    ClassPass(ClassScheduler scheduler, TurntableQueue queue, ClassJobs jobs, ClassStops stops) {
        this.scheduler = scheduler;
        this.queue = queue;
        this.jobs = jobs;
        this.stops = stops;
    }

    /**
     * Runs a pass now, or makes the running one go again. Never blocks. Called under no lock of
     * the queue's (see {@link ClassScheduler#configure}); under the executor's main lock only
     * from its {@code terminated()} ({@code TurntableQueue.ownerTerminated}), where a re-check
     * below finds the pool terminating and returns at once.
     *
     * <p>A claim a pass counted that came up empty ({@link #claimCameUpEmpty}) makes a shut-down
     * owner re-check termination here, after the last pass this call ran and once the running
     * state is IDLE again: not inside the pass, whose own move would still be counted (and
     * {@code shutdownNow()}'s drain waits for counted moves under the main lock the re-check
     * takes), and not while other callers see a pass running. The pass's fields are read and
     * cleared before the running state is released, so the next pass (which acquires it)
     * starts them clear; the re-check runs on the thread that lowered the count, after it.
     */
    void schedule() {
        for (;;) {
            int st = drainStatus.get();
            if (st == IDLE) {
                if (drainStatus.compareAndSet(IDLE, PROCESSING)) {
                    break;
                }
            } else if (st == PROCESSING_REQUIRED || drainStatus.compareAndSet(PROCESSING, PROCESSING_REQUIRED)) {
                return; // the running pass will go again and see what we added
            }
        }
        boolean recheck = false;
        WeakReference<ThreadPoolExecutor> recheckOwner = null;
        try {
            do {
                drainStatus.set(PROCESSING);
                try {
                    pass();
                } finally {
                    if (emptyClaim) { // a plain read per pass: the only cost when nothing came up empty
                        if (!recheck) {
                            recheck = true;
                            recheckOwner = emptyClaimOwner;
                        }
                        emptyClaim = false;
                        emptyClaimOwner = null;
                    }
                }
            } while (!drainStatus.compareAndSet(PROCESSING, IDLE));
        } catch (RuntimeException | Error e) {
            drainStatus.set(IDLE);
            throw e;
        } finally {
            if (recheck) {
                queue.emptyClaimEnded(recheckOwner);
            }
        }
    }

    /**
     * Pass only: a claim on a job that this pass counted in transit (a start or a flush) found
     * the job emptied meanwhile, and its count has dropped. Another thread took the task after
     * the pass looked: a removal ({@code remove(task)}, {@code purge}), a drain, a foreign
     * {@code poll()} (a {@code DiscardOldestPolicy}); and for that instant {@code size()} counted a
     * task that was not there. The thread running the pass may be no worker (the caller of
     * {@code shutdown()}, of a settings change, a submitter, the housekeeper), with no
     * {@code tryTerminate} of its own to come; so {@link #schedule} makes a shut-down owner
     * re-check once the pass is over ({@link TurntableQueue#emptyClaimEnded}). {@code owner}:
     * the one read before the claim was counted. Also for a rescue the pass made while placing a
     * task ({@link #deferredToPlacingPass}).
     */
    private void claimCameUpEmpty(WeakReference<ThreadPoolExecutor> owner) {
        if (!emptyClaim) {
            emptyClaim = true;
            emptyClaimOwner = owner;
        }
    }

    /**
     * A rescue ({@code TurntableQueue.rescueToShared}) whose claim came up empty: if the calling
     * thread is the pass placing a task it started (the strategy chose a slot whose owner left
     * before the push), records it for {@link #schedule} to re-check once the pass is over, and
     * returns true; the pass's own move is still counted, and a re-check now would wait for it.
     * Otherwise returns false, for the rescuer to re-check at once.
     */
    boolean deferredToPlacingPass(WeakReference<ThreadPoolExecutor> owner) {
        if (placing != Thread.currentThread()) {
            return false;
        }
        claimCameUpEmpty(owner);
        return true;
    }

    private void pass() {
        ClassConfig c = scheduler.config();
        if (c == null) {
            flushAll();
            return;
        }
        if (scratchFor != c) {
            // Only the rebalance threshold or duration changed (the same classes and shares, in
            // the same order): the holds and the over-threshold time still stand. Dropping them let a
            // held class start at once, and each such setting change rebalance anew.
            boolean sameClasses = scratchFor != null && scratchFor.classNames().equals(c.classNames())
                    && scratchFor.normalisedPercents().equals(c.normalisedPercents());
            scratchFor = c;
            snapshot = new LoadSnapshot(c);
            plan = new LoadPlan(c);
            if (!sameClasses) {
                held = new boolean[c.classCount()];
                rebalanceState = RebalanceState.INITIAL;
                use = new ClassUse(c.classCount());
            }
            waitingByClass = new int[c.classCount()];
            runningByClass = new int[c.classCount()];
        }
        int n = c.classCount();
        Arrays.fill(waitingByClass, 0);
        Arrays.fill(runningByClass, 0);
        live.clear();
        for (ClassJobs.Job j : jobs.all()) {
            if (j.classifiedBy != c) {
                j.classIndex = c.classIndexFor(j.requestor);
                j.classifiedBy = c;
            }
            int w = Math.max(0, j.waitingCount.get());
            int r = Math.max(0, j.running.get());
            if (w == 0 && r == 0) {
                jobs.retireIfEmpty(j);
                continue;
            }
            waitingByClass[j.classIndex] += w;
            runningByClass[j.classIndex] += r;
            live.add(j);
        }
        use.collect();
        // Idle workers = workers minus what occupies them: started classed tasks (running, or
        // queued on some worker: the strategy may queue two on one worker while another is
        // idle, and stealing evens that out) and tasks that are not classed (started before
        // classes were switched on). Counting empty-handed workers instead would start more
        // than the plan whenever the strategy doubles up. A worker claiming a classed task
        // counts once too often for an instant; idle workers re-run the pass before parking.
        int total = 0;
        int occupied = 0;
        long now = queue.ticker().nanoTime(); // for the running tasks' use, and rebalancing
        for (WorkerSlot o : queue.slots) {
            use.addRunning(o.runningClassTask, now);
            // Not a worker in the first task its executor gave it: that task is no class's, may
            // never end (a consumer loop) and cannot be stopped, so shares are planned over the
            // workers the classes can use, as before such threads were listed at all.
            if (o.state == WorkerSlot.ATTACHED && (o.flags & WorkerSlot.FIRST_TASK) == 0) {
                total++;
                if (o.running > 0 && !(o.runningClassTask instanceof ClassedTask)) {
                    occupied++;
                }
            }
        }
        for (int i = 0; i < n; i++) {
            occupied += runningByClass[i];
        }
        use.evenIdle(c, waitingByClass, runningByClass);
        int idle = Math.max(0, total - occupied);
        snapshot.clear().workers(total, idle);
        for (int i = 0; i < n; i++) {
            snapshot.classLoad(i, waitingByClass[i], runningByClass[i]).classUsage(i, use.used(i));
        }
        // While a class is held, the last rebalance is still being carried out (its tasks could
        // not be stopped, so it waits for them to end): no new one, and the over-threshold time
        // starts once the hold is over. Otherwise, with a short minimum duration, every pass
        // rebalanced again, stopping nothing more and notifying each time (2,579 notifications
        // in 7 s at 0 ms).
        boolean holding = false;
        for (int i = 0; i < n; i++) {
            holding |= held[i];
        }
        LoadPlanner.plan(c, snapshot, now, holding ? RebalanceState.INITIAL : rebalanceState, plan);
        rebalanceState = holding ? RebalanceState.INITIAL : plan.nextState();
        int budget = idle;
        idleForStarts = idle;
        if (plan.totalTasksToStop() > 0) {
            budget += stops.stopOverEntitled(c, plan, held);
        }
        // Back within its entitlement; or no class that may start now (above 0% and not held
        // itself) has a task waiting for the workers the hold keeps free, and the held class's
        // own waiting tasks may borrow them as loans again. (Held until back within its
        // entitlement whatever else waited, a class left workers idle beside its own waiting
        // tasks until its long tasks ended, the very case rebalancing is for; and two held
        // classes counted as waiting for each other kept each other held the same way.) The
        // second only while a worker is free for the held class: right after the worker it was
        // lent went to another class (below), nothing startable waits because that class's task
        // has just started, and a release then only let the next rebalance stop that task to
        // give its worker back (a restart and two notifications per task of the held class).
        boolean startableWaits = false;
        for (int j = 0; j < n; j++) {
            startableWaits |= !held[j] && waitingByClass[j] > 0 && c.normalisedPercent(j) > 0;
        }
        boolean heldWaits = false;
        for (int i = 0; i < n; i++) {
            if (held[i] && (runningByClass[i] <= plan.ceilingWorkers(i) || (!startableWaits && budget > 0))) {
                held[i] = false;
            }
            heldWaits |= held[i] && waitingByClass[i] > 0;
        }
        if (heldWaits && !plan.rebalanced()) {
            // The planner knows nothing of holds: it lends idle workers to a held class's waiting
            // tasks as to any other's, and a held class starts nothing, so those workers sat idle
            // beside the other classes' waiting tasks; for good when the held class's running
            // task waited for one of theirs (a parent for its child: 2 workers, the child's class
            // at 20%, the held one at 30% and lent the one idle worker on every pass). Planned
            // again without the held classes' waiting tasks, the loans go to the classes that may
            // start, shared by their percents. Not after a rebalance: there a class held in this
            // pass is over its entitlement (stops, no starts), and an earlier hold would have
            // kept the rebalance from happening. No rebalance state is kept from this plan.
            for (int i = 0; i < n; i++) {
                if (held[i]) {
                    snapshot.classLoad(i, 0, runningByClass[i]);
                }
            }
            LoadPlanner.plan(c, snapshot, now, RebalanceState.INITIAL, plan);
        }
        for (int i = 0; i < n && budget > 0; i++) {
            int k = Math.min(plan.tasksToStart(i), budget);
            if (k > 0 && !held[i]) {
                budget -= startFrom(i, k);
            }
        }
        if (scheduler.flushing()) {
            // After shutdown: what the plan left idle goes to whatever still waits.
            for (int i = 0; i < n && budget > 0; i++) {
                budget -= startFrom(i, budget);
            }
        }
    }

    /** Starts up to {@code k} waiting tasks of class {@code ci}, round robin over its jobs (fewest running first). */
    private int startFrom(int ci, int k) {
        classJobs.clear();
        for (ClassJobs.Job j : live) {
            if (j.classIndex == ci && j.waitingCount.get() > 0) {
                classJobs.add(j);
            }
        }
        int m = classJobs.size();
        if (m == 0) {
            return 0;
        }
        // Round robin across passes: a pass often starts a single task (one worker came free),
        // and ties in running tasks go to the job first in this list. In the job map's order
        // (hash order) the first job there won every such pass until it ran dry: a quiet
        // submitter waited behind a flooding one's 3,000 tasks, and a single worker ran a new
        // job's tasks before older ones. Jobs served least recently (or made earliest) first.
        ClassJobs.sortInTurn(classJobs);
        int[] run = new int[m];
        int[] wait = new int[m];
        for (int x = 0; x < m; x++) {
            run[x] = Math.max(0, classJobs.get(x).running.get());
            wait[x] = Math.max(0, classJobs.get(x).waitingCount.get());
        }
        int[] starts = JobRoundRobin.startsPerJob(run, wait, k);
        int started = 0;
        for (int x = 0; x < m; x++) {
            ClassJobs.Job j = classJobs.get(x);
            int before = started;
            for (int t = 0; t < starts[x]; t++) {
                // Look before counting a move, as flushAll does: the waiting count we planned
                // from is raised before its task is added (offer), and may lead the job by one.
                if (j.waiting.isEmpty()) {
                    break; // that offer runs a pass of its own once its task is there
                }
                // In transit from the job to a worker queue: counted by the queue's size() and
                // waited for by drainTo/remove while it moves, so it is never out of sight. The
                // owner is read before the count (see claimCameUpEmpty).
                WeakReference<ThreadPoolExecutor> ownerAtCount = queue.owner;
                Runnable e = queue.countedClaim(j.waiting, scheduler.claimProbe); // the job's head
                if (e == null) {
                    claimCameUpEmpty(ownerAtCount); // taken meanwhile: a removal, a drain, a foreign poll
                    break;
                }
                jobs.tookToStart(j);
                // A start beyond the idle workers is for a worker a stop will free. With stealing
                // off, the strategy, which sees every worker busy, could queue it behind a task
                // that is not stopped, for as long as that runs, while the freed worker sat idle
                // (a review: 4 workers at 75:25, a rebalance that stopped 3 batch tasks ran 2
                // interactive ones, 7 runs in 8): it waits in the shared queue instead, for
                // whichever worker frees first, which is the stopped one.
                boolean forAStop = idleForStarts-- <= 0 && !queue.isTaskStealing();
                placeTaken(j, e, new ClassedTask(e, j, ++startSeq, use, ci), true, forAStop);
                started++;
            }
            starts[x] = started - before; // what it really started (a claim may have come up empty)
        }
        servedInTurn(starts, m);
        use.started(ci, started);
        return started;
    }

    /**
     * Sends the jobs that started tasks in this pass to the end of the round in the order their
     * last task started: those that started fewer first (the round robin served them out
     * earlier), ties in list order. So after starts A2, B1, C1, the next pass begins with B.
     */
    private void servedInTurn(int[] startsPerJob, int m) {
        int most = 0;
        for (int x = 0; x < m; x++) {
            most = Math.max(most, startsPerJob[x]);
        }
        for (int level = 1; level <= most; level++) {
            for (int x = 0; x < m; x++) {
                if (startsPerJob[x] == level) {
                    jobs.served(classJobs.get(x));
                }
            }
        }
    }

    /**
     * Classes were switched off: every waiting task goes to the workers as a plain task, in the
     * order passes would have started them (one per job per round, jobs in round-robin order),
     * so that a single worker runs them in that order.
     */
    private void flushAll() {
        classJobs.clear();
        classJobs.addAll(jobs.all());
        ClassJobs.sortInTurn(classJobs);
        ClassJobs.inRounds(classJobs, j -> {
            if (j.waiting.isEmpty()) { // look before counting a move (see WorkerRegistry.moveToShared)
                return false;
            }
            WeakReference<ThreadPoolExecutor> ownerAtCount = queue.owner; // see claimCameUpEmpty
            Runnable e = queue.countedClaim(j.waiting, scheduler.claimProbe); // the job's head
            if (e == null) {
                claimCameUpEmpty(ownerAtCount);
                return false;
            }
            jobs.tookToFlush(j);
            placeTaken(j, e, e, false, false);
            return true;
        });
        classJobs.clear();
    }

    /**
     * Places {@code element}, made of {@code taken}, which was just taken from the head of job
     * {@code j} (and counted as running in it when {@code countedRunning}), and ends its move:
     * through the strategy, or to the shared queue when {@code toShared}. If placing fails (out
     * of memory, say), the task goes back to the head of its job rather than vanish; either way
     * it is in sight again when the move ends.
     */
    private void placeTaken(ClassJobs.Job j, Runnable taken, Runnable element, boolean countedRunning,
                            boolean toShared) {
        placing = Thread.currentThread(); // two plain writes per task a pass starts
        try {
            if (toShared) {
                queue.toShared(element);
            } else {
                queue.placeStarted(element);
            }
        } catch (RuntimeException | Error failed) {
            if (countedRunning) {
                j.running.decrementAndGet();
            }
            jobs.putBack(j, taken);
            throw failed;
        } finally {
            placing = null;
            queue.endMove(true);
        }
    }
}
