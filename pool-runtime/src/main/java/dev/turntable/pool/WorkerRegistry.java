package dev.turntable.pool;

import java.lang.ref.WeakReference;
import java.util.Arrays;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Which thread owns which slot of a {@link TurntableQueue}. A worker thread registers on its
 * first take ({@link #register}), adopting a free slot or one whose thread died without leaving;
 * it leaves when its wait ends without a task ({@link #detach}), when it exits
 * ({@link #workerExiting}) or retires ({@code WorkerLifetimes.tryRetire}, through
 * {@link #release}), or by dying, when a registrant or an idle worker reaps it
 * ({@link #reapDeadWorkers}). Whatever waits on a slot its owner leaves goes to the front of the
 * shared queue ({@link #moveToShared}); a task a submitter pushed there too late, it moves itself
 * ({@link #rescueToShared}). Workers call the registration and leaving methods, for their own
 * slot or a dead worker's; any submitting thread may call {@link #rescueToShared}. Each change of
 * owner holds the queue's registration lock ({@code TurntableQueue.registration}), which the live
 * settings take too. One per queue, made with it.
 *
 * <p>Two orderings cross into TurntableQueue, and the comments at each side name the other. A
 * leaving owner writes {@code FREE} or {@code DETACHED} (a volatile write or a CAS) and then looks
 * at its queue ({@link #release}, {@link #detach}, {@link #moveToShared}), while a submitter
 * pushes, fences, and then reads the slot's state ({@code TurntableQueue.signalPushed}): one of
 * them moves the task. And a wake spent on an owner that died is consumed and passed on here
 * ({@code TurntableQueue.consumeWake} and {@code passWakeOn}), or the count of wakes in flight
 * would stay up. Moves count their tasks in transit, as {@link WaitingTasks} reads them.
 */
final class WorkerRegistry {

    private final TurntableQueue queue;
    private final int workerQueueCapacity;
    /** Whether this queue is registered with the {@link Housekeeper} (its first worker does it). */
    private final AtomicBoolean housekept = new AtomicBoolean();

    /**
     * Test seam, null outside tests: held at the edges of a move's counted claims
     * ({@link #moveToShared}, {@link #rescueToShared}).
     */
    volatile ClaimProbe moveProbe;

    WorkerRegistry(TurntableQueue queue, int workerQueueCapacity) {
        this.queue = queue;
        this.workerQueueCapacity = workerQueueCapacity;
    }

    /**
     * Gives the calling thread a slot: a free one, or one whose thread died without leaving (its
     * queue and any class task it held are adopted), else a new one. Called by the queue's take
     * path ({@code TurntableQueue.attachCurrent}) when the thread holds no attached slot.
     */
    WorkerSlot register(Thread me) {
        return register(me, false);
    }

    /**
     * {@link #register(Thread)}; with {@code firstTask}, for a thread about to run the task its
     * executor created it with ({@code TurntableQueue.workerStarting}): the slot is published
     * running that task and flagged {@link WorkerSlot#FIRST_TASK}, so that from the moment any
     * thread sees it attached, no submitter counts it idle or pushes to it (a reservation under
     * {@code max-concurrent-tasks} could otherwise take a place it does not have), and it takes
     * no turn at the shared queue's older tasks, which other workers serve meanwhile.
     */
    WorkerSlot register(Thread me, boolean firstTask) {
        reapDeadWorkers();
        WorkerSlot pick;
        Object abandoned = null;
        boolean replacing;
        WeakReference<ThreadPoolExecutor> ownerAtCount = queue.owner; // before any claim: see emptyClaimEnded
        boolean singleWorker = queue.ownerKeepsSingleWorkerOrder(); // out of the lock: the owner's method may be an override
        boolean claimedNothing = false;
        boolean lifetimesResumed;
        synchronized (queue.registration) {
            // First, before a dead owner's running class task is taken below: nothing may throw
            // between that and its hand-back.
            claimedNothing = singleWorker && handOnCountedOut(me);
            WorkerSlot[] ss = queue.slots;
            pick = null;
            for (WorkerSlot o : ss) {
                Thread t = o.thread;
                if (o.state == WorkerSlot.FREE || (t != null && t != me && !t.isAlive())) {
                    pick = o; // a free slot, or one whose thread died without leaving: adopt its queue
                    Object running = o.takeRunningClassTask(); // as in release
                    abandoned = o.state == WorkerSlot.FREE ? null : running;
                    break;
                }
            }
            if (pick == null) {
                pick = new WorkerSlot(ss.length, workerQueueCapacity);
                queue.statistics.ensureSlots(ss.length + 1);
                WorkerSlot[] grown = Arrays.copyOf(ss, ss.length + 1);
                grown[ss.length] = pick;
                queue.slots = grown;
            }
            queue.statistics.adopt(pick);
            // Under the lock that a leaving worker's move to the shared queue holds too: the
            // count includes its tasks (see TurntableQueue.findEngineWork).
            // With a concurrency limit only for a single worker, which keeps its order there too:
            // other workers' takes keep the shared queue first anyway
            // (TurntableQueue.findWorkWithinLimit) and would never use the count up.
            pick.sharedFirstTakes = (queue.maxConcurrentTasks > 0 && !singleWorker) || firstTask
                    ? 0 : Math.max(0, queue.sharedCount.get());
            if (firstTask) {
                pick.setFlag(WorkerSlot.FIRST_TASK);
                pick.setRunning(1);
            }
            pick.thread = me;
            pick.waitState = WorkerSlot.RUNNING;
            if (pick.index >= queue.slotBound) {
                queue.slotBound = pick.index + 1; // before the slot is published: see TurntableQueue.slotBound
            }
            pick.state = WorkerSlot.ATTACHED; // volatile: publishes the reset above to readers of state
            // Whether we make up for a retiree, decided at the moment we count as a worker (the
            // write above), not when this method returns: a thread that attached before the
            // retirement and is slow to get here (the first one starts the housekeeper) restores
            // no capacity the retiree took, and passing the turn on its word let a second worker
            // out while the retiree's replacement was still coming. The retiree frees its slot
            // under this lock and only then awaits its replacement, which TPE creates after that
            // (WorkerLifetimes.tryRetire).
            // And passed here, in the same step: passed after the lock, a registrant delayed in
            // between could pass the turn of a later retiree, who left after it attached.
            lifetimesResumed = queue.lifetimes.threadRegistered(); // the pool's factory makes threads again
            replacing = queue.retireTurn.get() == TurntableQueue.AWAITING_REPLACEMENT
                    && queue.retireTurn.compareAndSet(TurntableQueue.AWAITING_REPLACEMENT, TurntableQueue.NO_RETIREMENT);
        }
        if (claimedNothing) {
            queue.emptyClaimEnded(ownerAtCount); // out of the lock: see moveToShared
        }
        if (abandoned != null) {
            queue.classes.abandoned(pick, (ClassedTask) abandoned); // before we run anything on the slot
        }
        queue.currentSlot.set(pick);
        if (!housekept.get() && housekept.compareAndSet(false, true)) {
            Housekeeper.register(queue);
        }
        // A new thread is up in a retiree's place, and the turn is free: the next may go. Or
        // lifetimes resumed after a missing replacement: an idle worker asked to recycle
        // meanwhile is due now, not at its next task.
        if (replacing || lifetimesResumed) {
            queue.lifetimes.wakePendingRetirees();
        }
        return pick;
    }

    /**
     * A thread registering in a single-worker pool (the owner's maximum size 1): the pool has
     * counted it within that maximum, so any other thread still attached here is a worker the
     * pool has counted out, on its way out with its tasks still on its queue (one that died in
     * {@code beforeExecute}, which skips the {@code afterExecute} that hands them on early,
     * and whose replacement another thread made: a submit's {@code prestartCoreThread}, say).
     * Its tasks go to the shared queue now, which the registrant serves first, so they run
     * before anything submitted from now on. Detached, not freed: the leaving thread frees its
     * slot as it ends, and a worker that is still running after all (the maximum lowered to 1
     * under it) attaches again at its next take, as an idle worker does; a submitter that pushes
     * to it meanwhile sees it detached and moves its task itself. Only where
     * {@link TurntableQueue#ownerKeepsSingleWorkerOrder} said so, read before the lock. Under the registration
     * lock; returns whether a claim came up empty, for the caller to pass on out of the lock.
     */
    private boolean handOnCountedOut(Thread me) {
        boolean claimedNothing = false;
        for (WorkerSlot o : queue.slots) {
            // Not a worker due to retire: it moves its own tasks, without the lock, and waits
            // for its turn attached (WorkerLifetimes); two moves of one slot could reorder them.
            if (o.thread != me && !queue.retireDue(o) && o.casState(WorkerSlot.ATTACHED, WorkerSlot.DETACHED)) {
                // The CAS is a full fence, as in detach: a later push sees DETACHED and rescues.
                claimedNothing |= moveToShared(o);
            }
        }
        return claimedNothing;
    }

    /**
     * Frees the slots of worker threads that died without {@link #workerExiting()} and hands
     * their tasks to the others. Called before an idle worker parks (when exits are not
     * reported) and when a thread registers: a liveness call per slot, never on the submit path.
     */
    void reapDeadWorkers() {
        for (WorkerSlot o : queue.slots) {
            Thread t = o.thread;
            if (t != null && o.state != WorkerSlot.FREE && !t.isAlive()) {
                release(o, t);
            }
        }
    }

    /** The owner leaves the wait loop without a task and may exit: no task may stay behind. */
    void detach(WorkerSlot s) {
        if (s.casState(WorkerSlot.ATTACHED, WorkerSlot.DETACHED)) {
            // The CAS is a full fence: a submitter that pushed before it sees DETACHED after its
            // own fence (TurntableQueue.signalPushed) and moves the task itself; what was pushed
            // earlier we move here, under the lock a submitter's rescue takes too (rescueToShared).
            handOnQueued(s);
        }
    }

    /**
     * The owner's tasks queued on {@code s} go to the shared queue, moved under the registration
     * lock (which a submitter's rescue takes too); a claim that came up empty makes a shut-down
     * owner re-check termination, out of the lock (see {@link #moveToShared}).
     */
    void handOnQueued(WorkerSlot s) {
        WeakReference<ThreadPoolExecutor> ownerAtCount = queue.owner; // before any claim: see emptyClaimEnded
        boolean claimedNothing;
        synchronized (queue.registration) {
            claimedNothing = moveToShared(s);
        }
        if (claimedNothing) {
            queue.emptyClaimEnded(ownerAtCount);
        }
    }

    /** {@link TurntableQueue#workerExiting()}: frees the calling worker's slot, if it has one here. */
    void workerExiting() {
        Thread me = Thread.currentThread();
        WorkerSlot s = queue.currentSlot.get();
        if (s == null || s.thread != me) {
            return;
        }
        queue.finishRunning(s);
        queue.currentSlot.remove();
        release(s, me);
    }

    /**
     * Frees {@code s} if {@code owner} still owns it, and hands whatever waits on it to the other
     * workers. The registration lock orders this with a new thread adopting the slot.
     */
    void release(WorkerSlot s, Thread owner) {
        Object abandoned;
        WeakReference<ThreadPoolExecutor> ownerAtCount = queue.owner; // before any claim: see emptyClaimEnded
        boolean claimedNothing;
        synchronized (queue.registration) {
            if (s.thread != owner) {
                return; // re-owned meanwhile: its queue is the new owner's now
            }
            s.state = WorkerSlot.FREE;
            lowerSlotBound();
            // A wake spent on an owner that died before it could consume it still counts as
            // in flight: end it here (the owner is gone, so no one else consumes it), and let
            // the work it was meant for wake someone else below.
            boolean woken = queue.consumeWake(s);
            s.waitState = WorkerSlot.RUNNING;
            if (woken) {
                queue.passWakeOn(s);
            }
            queue.statistics.workerLeaving(s); // its buffered histogram samples: see there
            s.thread = null;
            // Set only if the owner died inside a class task and we are reaping it (an exiting
            // owner ended its task first). Its death happens-before our isAlive() seeing it.
            // Taken under the lock: once we let go of it, a new thread may adopt the slot and
            // start a class task of its own, which a later clearing would erase (and with it the
            // end of that task: its job would count it running for good). Taken, not read: the
            // pool's termination may be ending it at the same moment (TurntableQueue.ownerTerminated).
            abandoned = s.takeRunningClassTask();
            // Moved before we let go of the lock, not after: once we do, a new thread may adopt
            // the slot (register, under this lock), and a hand-off submitter may reserve it and
            // push its task. A move of ours still running then took that task to the shared
            // queue, which hand-off workers never read: the task was stranded and its reserved
            // worker spun for good, deaf to interrupts, so the pool never terminated. Safe to
            // hold the lock here: the move takes no lock and never blocks. Ordering: the
            // volatile write of FREE above precedes our look at the queue, and a submitter
            // pushes, fences, then reads the state (TurntableQueue.signalPushed): either we see its task, or
            // it sees FREE and moves the task itself; a push after a new owner adopted the slot
            // is the new owner's, and by then our move is over.
            claimedNothing = moveToShared(s);
        }
        if (abandoned != null) {
            queue.classes.abandoned(s, (ClassedTask) abandoned); // its class holds that worker no longer
        }
        if (claimedNothing) {
            // Out of the lock (see moveToShared), and after the abandoned task has ended in its
            // class: a re-check that terminates the pool should find it ended.
            queue.emptyClaimEnded(ownerAtCount);
        }
    }

    /**
     * After a slot went {@code FREE}: the strategies' view ends past the highest slot a thread
     * still holds ({@link TurntableQueue#slotBound}). Under the registration lock.
     */
    private void lowerSlotBound() {
        WorkerSlot[] ss = queue.slots;
        int bound = Math.min(queue.slotBound, ss.length);
        while (bound > 0 && ss[bound - 1].state == WorkerSlot.FREE) {
            bound--;
        }
        if (bound != queue.slotBound) {
            queue.slotBound = bound;
        }
    }

    /**
     * Claims every task left on a slot whose owner left (or, draining, takes nothing new) and
     * re-queues it where all workers look: at the front of the shared queue, in order, as its
     * owner served its own queue before the shared one, so its tasks are older than any that
     * joined the shared queue while it held them (a single worker's overflow, say), and the
     * next owner must run them first. Callers hold the registration lock but the draining
     * owner's own move, during which no other move of this slot can run (its slot is ATTACHED).
     *
     * <p>Returns whether a claim it counted came up empty: a thief or a removal took the task
     * between our look and our claim, and for that instant {@code size()} counted a task that
     * was not there. The caller then makes a shut-down owner re-check termination
     * ({@link TurntableQueue#emptyClaimEnded}, with the owner it read before calling us), once
     * it has let go of the registration lock: the re-check takes the executor's main lock,
     * under which the last worker's {@code TurntableExecutor.terminated()} frees its slot under
     * the registration lock ({@link #workerExiting}), so re-checking here could deadlock with
     * it. The caller is often a worker that has already left the executor (the thread wrapper
     * of {@code TurntableExecutor} reports the exit after {@code processWorkerExit}), whose own
     * {@code tryTerminate} is behind it: no one else would re-check
     * ({@code EmptyClaimTerminationTest}).
     */
    boolean moveToShared(WorkerSlot s) {
        // Look before counting: counting a move of nothing makes size() read 1 for an instant
        // while the queue is empty, and ThreadPoolExecutor's tryTerminate, which a shut-down
        // pool's last exiting worker calls once, gives up for good on a non-empty queue (a pool
        // left SHUTDOWN with no worker and nothing queued, never TERMINATED: seen in a lifecycle
        // test and in 2 of 200 benchmark tear-downs). A task pushed after this look finds the
        // slot no longer ATTACHED and is moved by its submitter (rescueToShared).
        if (s.queue.isEmpty()) {
            return false;
        }
        // Held here between the two steps, counted in transit so size() never dips. Allocated
        // before anything is counted: out of memory here leaves every task where it was.
        Runnable[] held = new Runnable[s.queue.capacity()];
        int n = 0;
        boolean claimedNothing = false;
        // Look before each claim we count, not only the first: the loop used to end by counting
        // a claim after the last task, which found nothing on every move. That one was harmless
        // (the tasks we held kept size() above zero anyway), but it made every move end in a
        // claim that came up empty, which should be the rare race it is (another thread took a
        // task between our look and our claim), not the rule.
        while (n < held.length && !s.queue.isEmpty()) {
            // One volatile read of the seam per task moved: a leaving worker's, cold.
            Runnable e = queue.countedClaim(s.queue, moveProbe);
            if (e == null) {
                claimedNothing = true;
                break;
            }
            held[n++] = e;
        }
        int k = n - 1;
        try {
            while (k >= 0) {
                queue.shared.offerFirst(held[k]); // allocates a node: the one step here that can fail
                queue.sharedCount.incrementAndGet();
                queue.moves.incrementAndGet(); // before inTransit drops: a waiter that sees 0 sees the move
                queue.inTransit.decrementAndGet();
                k--;
                queue.wakeOneParked();
            }
        } finally {
            // Out of memory for a node: what is left goes back, in order, onto the slot's own
            // array queue (which allocates nothing and has the room), so no task is lost and
            // the transit count drops; the slot's next owner, or a rescue, takes them.
            for (int j = 0; j <= k; j++) {
                s.queue.offer(held[j]);
                queue.inTransit.decrementAndGet();
            }
        }
        return claimedNothing;
    }

    /**
     * A submitter's task pushed onto a slot whose owner left meanwhile: to the tail of the
     * shared queue, one task at a time, as it is newer than anything there. Under the
     * registration lock, so it never interleaves with the leaving owner's own move (which would
     * let it take an older task to the tail). Returns whether a claim it counted came up empty (a
     * thief or a removal took the task after our look), for the caller to pass on once out of the
     * lock, as for {@link #moveToShared}: the rescuer is a submitter, with no {@code tryTerminate}
     * of its own to come.
     */
    boolean rescueToShared(WorkerSlot s) {
        synchronized (queue.registration) {
            while (!s.queue.isEmpty()) {
                Runnable e = queue.countedClaim(s.queue, moveProbe); // per task rescued, which is rare
                if (e == null) {
                    return true;
                }
                queue.shared.offer(e);
                queue.sharedCount.incrementAndGet();
                queue.moves.incrementAndGet();
                queue.inTransit.decrementAndGet();
                queue.wakeOneParked();
            }
        }
        return false;
    }
}
