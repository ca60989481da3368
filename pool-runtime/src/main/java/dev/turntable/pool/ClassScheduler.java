package dev.turntable.pool;

import dev.turntable.pool.classes.ClassConfig;
import dev.turntable.pool.classes.JobRoundRobin;
import dev.turntable.pool.classes.LoadPlan;
import dev.turntable.pool.classes.LoadPlanner;
import dev.turntable.pool.classes.LoadSnapshot;
import dev.turntable.pool.classes.RebalanceState;
import dev.turntable.pool.classes.Requestor;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The task-class layer of a {@link TurntableQueue} (Scoot's load-based scheduling): while class
 * shares are configured, an offered task waits in its job (the tasks of one requestor from one
 * submitting thread) instead of going to a worker, and a scheduling pass decides, with
 * {@link LoadPlanner}, how many tasks of each class start on the idle workers: entitlement
 * first, then loans. Each started task then goes through the worker choice strategy like any
 * other. Any thread may call it.
 *
 * <p>Passes run one at a time without a lock: a caller that finds a pass running flags it to run
 * again and returns (the drain-status pattern of Caffeine's buffers), so submitters never block.
 * A pass runs after each offer, after each classed task ends, when a worker goes idle with work
 * waiting, and on the housekeeper's tick (so that rebalancing's minimum duration is noticed with
 * nothing else happening). It costs O(jobs + workers + classes²); started tasks carry one small
 * wrapper each (class mode only).
 *
 * <p>Rebalancing: a running Java task cannot be stopped safely, so the tasks the plan names to
 * stop are, if they are {@link RestartableTask}s given to {@code execute}, interrupted and put
 * back at the head of their job; any other over-entitled class is held (none of its tasks start)
 * until it is back within its entitlement.
 *
 * <p>Why this file is long (~740 lines, 120 of them comments): the lock-free pass, the jobs it
 * starts tasks from, rebalancing's stops and the accounting of each class's running tasks
 * (ended exactly once, by the worker or at termination) share the pass's state and its
 * ordering rules; the plan itself is {@link LoadPlanner} and the configuration
 * {@code ClassConfig}, apart.
 */
final class ClassScheduler {

    /** One requestor's tasks from one submitting thread. */
    static final class Job {
        final String requestor;
        final long threadId;
        final ConcurrentLinkedDeque<Runnable> waiting = new ConcurrentLinkedDeque<>();
        final AtomicInteger waitingCount = new AtomicInteger();
        /** Started (dispatched to a worker) and not yet finished. */
        final AtomicInteger running = new AtomicInteger();
        /** Set by a pass that found the job empty, before it removes it; see {@link #offer}. */
        volatile boolean retired;
        /** Scheduler-only: class index under {@link #classifiedBy}. */
        int classIndex;
        ClassConfig classifiedBy;

        Job(String requestor, long threadId) {
            this.requestor = requestor;
            this.threadId = threadId;
        }
    }

    private record JobKey(String requestor, long threadId) {
    }

    private static final int IDLE = 0;
    private static final int PROCESSING = 1;
    private static final int PROCESSING_REQUIRED = 2;

    private final TurntableQueue queue;
    /** Null: classes off (waiting tasks are flushed to the workers by the next pass). */
    private volatile ClassConfig config;
    /** The executor shut down: idle workers the plan leaves unused go to any class (see {@link #ownerShutDown}). */
    private volatile boolean flushing;
    private volatile Requestor requestor = Requestor.THREAD_NAME;
    private volatile String poolName = "pool";

    private final ConcurrentHashMap<JobKey, Job> jobs = new ConcurrentHashMap<>();
    private final ThreadLocal<Job> lastJob = new ThreadLocal<>();
    private final AtomicInteger waitingTotal = new AtomicInteger();
    /** Stopped restartable tasks put back to run again: ThreadPoolExecutor counts each run as a completed task. */
    private final AtomicLong restarts = new AtomicLong();
    /**
     * Restartable tasks asked to stop whose workers have not come back yet: each may wait again
     * in a moment, so the queue counts them in {@code size()} until then. ThreadPoolExecutor
     * reads {@code isEmpty()} before it lets a shut-down pool's last worker leave or terminates
     * the pool; without this count the stopped task would be put back after the pool had gone.
     */
    private final AtomicInteger stoppedNotBack = new AtomicInteger();
    private final AtomicInteger drainStatus = new AtomicInteger(IDLE);
    private final CopyOnWriteArrayList<Consumer<Rebalance>> listeners = new CopyOnWriteArrayList<>();

    // ---- touched by the running pass only (drainStatus orders passes one after another) ----
    private long startSeq;
    private RebalanceState rebalanceState = RebalanceState.INITIAL;
    private ClassConfig scratchFor;
    private LoadSnapshot snapshot;
    private LoadPlan plan;
    private boolean[] held = new boolean[0];
    private int[] waitingByClass = new int[0];
    private int[] runningByClass = new int[0];
    private final List<Job> live = new ArrayList<>();
    private final List<Job> classJobs = new ArrayList<>();
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

    /**
     * Test seam, null outside tests: held at the edges of a pass's counted claims on a job
     * ({@link #startFrom}, {@link #flushAll}). One volatile read per task a pass starts, which
     * costs nothing beside the pass itself.
     */
    volatile ClaimProbe claimProbe;

    ClassScheduler(TurntableQueue queue) {
        this.queue = queue;
    }

    // ------------------------------------------------------------------ configuration

    ClassConfig config() {
        return config;
    }

    boolean enabled() {
        return config != null;
    }

    /**
     * Switches classes on, changes them, or (null) off; takes effect at the next pass, which the
     * caller runs ({@link #schedule}) once it has let go of the registration lock it configures
     * under ({@link TaskClassSettings}). A pass must not run under that lock: a claim it counts
     * may come up empty, and the pass then makes a shut-down owner re-check termination
     * ({@link TurntableQueue#emptyClaimEnded}), which takes the executor's main lock; and the
     * main lock is held while the registration lock is taken (the last worker's
     * {@code tryTerminate} runs {@code TurntableExecutor.terminated()}, whose
     * {@code workerExiting()} frees its slot under the registration lock). A pass under the
     * lock also held off every worker leaving its wait ({@code WorkerRegistry.detach}) for as
     * long as it ran. The pass reads the configuration (volatile) when it starts, so one run
     * after the lock sees this one or a later one.
     */
    void configure(ClassConfig c) {
        config = c;
    }

    /**
     * The executor was shut down: ThreadPoolExecutor still runs what was submitted, and it cannot
     * terminate while tasks wait. Shares still hold while the plan has work for the idle workers;
     * workers it leaves idle now take tasks of any class, so a 0% class (which the plan never
     * starts) cannot keep the pool alive forever. New offers are refused by the executor itself.
     */
    void ownerShutDown() {
        flushing = true;
        schedule();
    }

    /** Stopped restartable tasks whose workers have not come back yet (see {@link #stoppedNotBack}). */
    int stoppedNotBackCount() {
        return stoppedNotBack.get();
    }

    void setRequestor(Requestor r) {
        requestor = r;
    }

    void setPoolName(String name) {
        poolName = name;
    }

    void addListener(Consumer<Rebalance> l) {
        listeners.add(l);
    }

    void removeListener(Consumer<Rebalance> l) {
        listeners.remove(l);
    }

    // ------------------------------------------------------------------ submit side

    /** Queues an offered element in its job and runs a pass. Never blocks. */
    void offer(Runnable element, Runnable task) {
        String req = requestorOf(task);
        for (;;) {
            Job job = jobFor(req);
            // Count first, then check retired: a pass that retires a job sets retired and then
            // reads the count (both volatile), so either it sees our task and keeps the job, or
            // we see retired and take the task back to a fresh job.
            job.waitingCount.incrementAndGet();
            waitingTotal.incrementAndGet();
            job.waiting.addLast(element);
            if (!job.retired) {
                break;
            }
            if (!job.waiting.removeLastOccurrence(element)) {
                break; // a pass took it already (it un-retired the job first): it is started
            }
            job.waitingCount.decrementAndGet();
            waitingTotal.decrementAndGet();
            lastJob.remove();
        }
        schedule();
    }

    private String requestorOf(Runnable task) {
        switch (requestor) {
            case TASK_CLASS:
                return task.getClass().getName();
            case POOL_NAME:
                return poolName;
            default:
                return Thread.currentThread().getName();
        }
    }

    private Job jobFor(String req) {
        Job j = lastJob.get();
        long tid = Thread.currentThread().getId();
        if (j != null && !j.retired && j.threadId == tid && j.requestor.equals(req)) {
            return j;
        }
        j = jobs.computeIfAbsent(new JobKey(req, tid), k -> new Job(k.requestor(), k.threadId()));
        lastJob.set(j);
        return j;
    }

    boolean hasWaiting() {
        return waitingTotal.get() > 0;
    }

    int waitingCount() {
        return Math.max(0, waitingTotal.get());
    }

    // ------------------------------------------------------------------ worker side

    /**
     * The worker that ran {@code ct} is back for its next task (or leaving): the task no longer
     * runs. A stopped restartable task that did not complete goes back to the head of its job.
     */
    void finished(WorkerSlot s, ClassedTask ct) {
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
            // A CAS, then read stopState (awaitNoStop): pairs with requestStop (CAS, then read
            // the task). Lost only to the pool's termination, which ended the task for us.
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
        if (passDue) {
            schedule();
        }
    }

    /**
     * {@code ct} no longer runs on {@code s}, though its owner has not said so: the thread died
     * inside it and was reaped by another thread (a plain ThreadPoolExecutor's worker whose task
     * threw, which reports no exit), or the pool terminated before the owner came back to the
     * queue. Its class no longer holds that worker. As {@link #finished}, except that the
     * interrupt, if any, is the owner's. The caller took {@code ct} off the slot first
     * ({@link WorkerSlot#takeRunningClassTask} or {@link WorkerSlot#claimRunningClassTask}).
     */
    void abandoned(WorkerSlot s, ClassedTask ct) {
        // The caller cleared s.runningClassTask (a CAS); wait out a pass that read it before
        // that and is asking this very task to stop.
        awaitNoStop(s);
        if (ended(ct, COMPLETENESS_UNKNOWN)) {
            schedule();
        }
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

    private static final int COMPLETENESS_UNKNOWN = 0;
    private static final int COMPLETE = 1;
    private static final int INCOMPLETE = 2;

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
        Job job = ct.job;
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
                stoppedNotBack.decrementAndGet();
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
                // claimCameUpEmpty): that happens only once shutdownNow() has begun, which
                // moves the pool to STOP and then runs tryTerminate itself, reading no
                // isEmpty() under STOP; a tryTerminate our count misled read SHUTDOWN before
                // that, and shutdownNow's own comes after it (see TurntableQueue.emptyClaimEnded
                // for a shutdownNow() refused by a security manager).
                queue.beginMove();
                boolean putBack = !queue.isOwnerStopping();
                try {
                    if (putBack) {
                        queue.holdPlaceAgain(); // it waits again: a bounded queue counts it as held
                        putBack(job, task);
                        restarts.incrementAndGet();
                    }
                    stoppedNotBack.decrementAndGet();
                } finally {
                    queue.endMove(putBack);
                }
            }
        }
        job.running.decrementAndGet();
        return waitingTotal.get() > 0;
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

    // ------------------------------------------------------------------ collection side

    /** Takes waiting tasks out (drainTo, shutdownNow), oldest job first; returns elements. */
    int drainWaiting(Collection<? super Runnable> c, int max) {
        int n = 0;
        for (Job j : jobs.values()) {
            Runnable e;
            while (n < max && (e = j.waiting.pollFirst()) != null) {
                j.waitingCount.decrementAndGet();
                waitingTotal.decrementAndGet();
                c.add(e);
                n++;
            }
        }
        return n;
    }

    /** Removes one waiting element whose task equals {@code o}; returns it, or null. */
    Runnable removeWaiting(Object o) {
        for (Job j : jobs.values()) {
            for (Runnable e : j.waiting) {
                Runnable task = TimedTask.unwrap(e);
                if ((task == o || o.equals(task)) && j.waiting.removeFirstOccurrence(e)) {
                    j.waitingCount.decrementAndGet();
                    waitingTotal.decrementAndGet();
                    return e;
                }
            }
        }
        return null;
    }

    void addWaitingTo(List<Runnable> out) {
        for (Job j : jobs.values()) {
            for (Runnable e : j.waiting) {
                out.add(TimedTask.unwrap(e));
            }
        }
    }

    /** Per class name: [waiting, running], in the configuration's class order. */
    Map<String, int[]> countsByClass() {
        ClassConfig c = config;
        Map<String, int[]> out = new LinkedHashMap<>();
        if (c == null) {
            return out;
        }
        for (String name : c.classNames()) {
            out.put(name, new int[2]);
        }
        for (Job j : jobs.values()) {
            int[] v = out.get(c.classFor(j.requestor));
            if (v != null) {
                v[0] += Math.max(0, j.waitingCount.get());
                v[1] += Math.max(0, j.running.get());
            }
        }
        return out;
    }

    // ------------------------------------------------------------------ scheduling passes

    /**
     * Runs a pass now, or makes the running one go again. Never blocks. Called under no lock of
     * the queue's (see {@link #configure}); under the executor's main lock only from its
     * {@code terminated()} ({@code TurntableQueue.ownerTerminated}), where a re-check below finds
     * the pool terminating and returns at once.
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
        ClassConfig c = config;
        if (c == null) {
            flushAll();
            return;
        }
        if (scratchFor != c) {
            scratchFor = c;
            snapshot = new LoadSnapshot(c);
            plan = new LoadPlan(c);
            held = new boolean[c.classCount()];
            waitingByClass = new int[c.classCount()];
            runningByClass = new int[c.classCount()];
            rebalanceState = RebalanceState.INITIAL;
        }
        int n = c.classCount();
        Arrays.fill(waitingByClass, 0);
        Arrays.fill(runningByClass, 0);
        live.clear();
        for (Job j : jobs.values()) {
            if (j.classifiedBy != c) {
                j.classIndex = c.classIndexFor(j.requestor);
                j.classifiedBy = c;
            }
            int w = Math.max(0, j.waitingCount.get());
            int r = Math.max(0, j.running.get());
            if (w == 0 && r == 0) {
                retireIfEmpty(j);
                continue;
            }
            waitingByClass[j.classIndex] += w;
            runningByClass[j.classIndex] += r;
            live.add(j);
        }
        // Idle workers = workers minus what occupies them: started classed tasks (running, or
        // queued on some worker: the strategy may queue two on one worker while another is
        // idle, and stealing evens that out) and tasks that are not classed (started before
        // classes were switched on). Counting empty-handed workers instead would start more
        // than the plan whenever the strategy doubles up. A worker claiming a classed task
        // counts once too often for an instant; idle workers re-run the pass before parking.
        int total = 0;
        int occupied = 0;
        for (WorkerSlot o : queue.slots) {
            if (o.state == WorkerSlot.ATTACHED) {
                total++;
                if (o.running > 0 && !(o.runningClassTask instanceof ClassedTask)) {
                    occupied++;
                }
            }
        }
        for (int i = 0; i < n; i++) {
            occupied += runningByClass[i];
        }
        int idle = Math.max(0, total - occupied);
        snapshot.clear().workers(total, idle);
        for (int i = 0; i < n; i++) {
            snapshot.classLoad(i, waitingByClass[i], runningByClass[i]);
        }
        long now = c.rebalancingEnabled() ? queue.ticker().nanoTime() : 0L;
        LoadPlanner.plan(c, snapshot, now, rebalanceState, plan);
        rebalanceState = plan.nextState();
        int budget = idle;
        if (plan.totalTasksToStop() > 0) {
            budget += stopOverEntitled(c);
        }
        for (int i = 0; i < n; i++) {
            if (held[i] && runningByClass[i] <= plan.entitledWorkers(i)) {
                held[i] = false; // back within its entitlement
            }
        }
        for (int i = 0; i < n && budget > 0; i++) {
            int k = Math.min(plan.tasksToStart(i), budget);
            if (k > 0 && !held[i]) {
                budget -= startFrom(i, k);
            }
        }
        if (flushing) {
            // After shutdown: what the plan left idle goes to whatever still waits.
            for (int i = 0; i < n && budget > 0; i++) {
                budget -= startFrom(i, budget);
            }
        }
    }

    /** Starts up to {@code k} waiting tasks of class {@code ci}, round robin over its jobs (fewest running first). */
    private int startFrom(int ci, int k) {
        classJobs.clear();
        for (Job j : live) {
            if (j.classIndex == ci && j.waitingCount.get() > 0) {
                classJobs.add(j);
            }
        }
        int m = classJobs.size();
        if (m == 0) {
            return 0;
        }
        int[] run = new int[m];
        int[] wait = new int[m];
        for (int x = 0; x < m; x++) {
            run[x] = Math.max(0, classJobs.get(x).running.get());
            wait[x] = Math.max(0, classJobs.get(x).waitingCount.get());
        }
        int[] starts = JobRoundRobin.startsPerJob(run, wait, k);
        int started = 0;
        for (int x = 0; x < m; x++) {
            Job j = classJobs.get(x);
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
                Runnable e = queue.countedClaim(j.waiting, claimProbe); // the job's head
                if (e == null) {
                    claimCameUpEmpty(ownerAtCount); // taken meanwhile: a removal, a drain, a foreign poll
                    break;
                }
                j.waitingCount.decrementAndGet();
                j.running.incrementAndGet();
                waitingTotal.decrementAndGet();
                placeTaken(j, e, new ClassedTask(e, j, ++startSeq), true);
                started++;
            }
        }
        return started;
    }

    /**
     * Acts on the plan's stops: interrupts the most recently started restartable tasks of each
     * over-entitled class; holds a class whose named tasks are not all restartable. Returns the
     * workers freed (they come free when the stopped tasks return).
     */
    private int stopOverEntitled(ClassConfig c) {
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
     * CAS on stopState, then the re-read of the running task, pairs with {@link #finished}'s
     * claim of the running task and then read of stopState (Dekker): either we see the task gone
     * (or another in its place, which the pass did not choose: it may be of another class, or not
     * restartable) and interrupt nobody, or the worker sees STOPPING and waits until the
     * interrupt is delivered, then clears it. An interrupt can therefore never land on the
     * worker's next task.
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

    private void retireIfEmpty(Job j) {
        j.retired = true;
        // Volatile write, then read the count: pairs with offer's increment-then-read of retired.
        if (j.waitingCount.get() > 0 || j.running.get() > 0) {
            j.retired = false;
            return;
        }
        jobs.remove(new JobKey(j.requestor, j.threadId), j);
    }

    /** Classes were switched off: every waiting task goes to the workers as a plain task. */
    private void flushAll() {
        for (Job j : jobs.values()) {
            while (!j.waiting.isEmpty()) { // look before counting a move (see moveToShared)
                WeakReference<ThreadPoolExecutor> ownerAtCount = queue.owner; // see claimCameUpEmpty
                Runnable e = queue.countedClaim(j.waiting, claimProbe); // the job's head
                if (e == null) {
                    claimCameUpEmpty(ownerAtCount);
                    break;
                }
                j.waitingCount.decrementAndGet();
                waitingTotal.decrementAndGet();
                placeTaken(j, e, e, false);
            }
        }
    }

    /**
     * Places {@code element}, made of {@code taken}, which was just taken from the head of job
     * {@code j} (and counted as running in it when {@code countedRunning}), and ends its move. If
     * placing fails (out of memory, say), the task goes back to the head of its job rather than
     * vanish; either way it is in sight again when the move ends.
     */
    private void placeTaken(Job j, Runnable taken, Runnable element, boolean countedRunning) {
        placing = Thread.currentThread(); // two plain writes per task a pass starts
        try {
            queue.placeStarted(element);
        } catch (RuntimeException | Error failed) {
            if (countedRunning) {
                j.running.decrementAndGet();
            }
            putBack(j, taken);
            throw failed;
        } finally {
            placing = null;
            queue.endMove(true);
        }
    }

    /** A task taken from the head of its job that could not be placed goes back there. */
    private void putBack(Job j, Runnable e) {
        j.waitingCount.incrementAndGet();
        waitingTotal.incrementAndGet();
        j.waiting.addFirst(e);
    }
}
