package dev.turntable.pool;

import dev.turntable.pool.strategy.WorkerChoiceStrategy;
import java.lang.ref.WeakReference;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The direct hand-off mode of a {@link TurntableQueue} ({@link TurntableQueue.Capacity#HAND_OFF},
 * like a {@code SynchronousQueue}): a submitter reserving an idle worker for its task
 * ({@link #handOff}), a hand-off worker's wait to be reserved ({@link #awaitHandOff}), and a
 * submitter that found no idle worker waiting in {@code put} or a timed {@code offer} for one
 * ({@link #awaitHandOffTaker}). Any thread may call {@link #handOff}, {@link #awaitHandOffTaker}
 * and {@link #handOffTakenBack}; only a worker calls {@link #awaitHandOff}, for its own slot
 * (from {@code TurntableQueue.awaitTask}). One per queue, made with it; the queuing modes never
 * call into it but for {@link #waitingPuts}' count, which is 0 there.
 *
 * <p>Apart from {@link TurntableQueue} because the hand-off wait has states of its own
 * ({@code SEARCHING}, {@code RESERVED}, {@code PARKED} without wakes in flight), and its
 * reservation protocol is between this class's methods: a submitter's CAS to {@code RESERVED}
 * ({@link #handOff}) against the waiting worker's loop ({@link #handOffWait}). What it shares
 * with the queue's wake-up protocol, each comment names the other side:
 * {@code TurntableQueue.tryWake}/{@code wakeOneParked} wake a parked hand-off worker (to
 * {@code RUNNING}) for a task in the shared queue or a waiting put; {@code TurntableQueue.toShared}
 * counts a task, then reads the parked count that {@link #handOffWait} raises before it looks a
 * last time. Parks name the queue as their blocker, as the queuing wait's do.
 *
 * <p>About 550 lines, over a third of them the comments that argue the reservation protocol's
 * safety, step by step, beside the code they are about.
 */
final class HandOffMode {

    /**
     * Whether this JDK's {@code SynchronousQueue.put} throws on a pending interrupt before it
     * looks for a taker, as the implementation built on {@code LinkedTransferQueue} does (JDK 25
     * here: {@code if (!Thread.interrupted()) xfer(...)}, else throw, clearing the interrupt),
     * rather than handing the element to a waiting taker first, as the earlier dual-stack one
     * does (JDK 17 here). Read from the JDK itself (its transferer's superclass), not from a
     * version number; a JDK this cannot read keeps the earlier behaviour. A timed {@code offer} hands
     * off first on both. {@code TurntableQueue.put} follows it.
     */
    static final boolean SYNC_PUT_CHECKS_INTERRUPT_FIRST = syncPutChecksInterruptFirst();

    private static boolean syncPutChecksInterruptFirst() {
        try {
            Class<?> transferer = Class.forName("java.util.concurrent.SynchronousQueue$Transferer", false, null);
            return transferer.getSuperclass() == java.util.concurrent.LinkedTransferQueue.class;
        } catch (ClassNotFoundException | LinkageError | SecurityException e) {
            return false;
        }
    }

    private final TurntableQueue queue;
    /** The strategies' view for a hand-off: a worker is available only when idle and waiting. */
    private final SlotView view;

    /**
     * Hand-off mode: submitters waiting in a timed {@code offer} or {@code put} because no worker
     * was idle (a rejection handler that blocks the submitter, {@code getQueue().put(r)}, is the
     * usual caller), each holding its task until an idle worker takes it from its hands
     * ({@link #takeElsewhereWhileIdle}), or a foreign {@code poll} or {@code drainTo} does.
     */
    final WaitingPuts waitingPuts = new WaitingPuts();
    /**
     * Hand-off workers spinning {@link TurntableQueue#HAND_OFF_LONG_SPINS} now; at most
     * {@link TurntableQueue#HAND_OFF_LONG_SPINNERS}.
     */
    private final AtomicInteger handOffLongSpinners = new AtomicInteger();
    /**
     * What a submitter's put runs once it waits, counted and published ({@link WaitingPuts#await}),
     * so that an idle worker takes it: the wake any queued task gets, of one parked worker not
     * due to retire ({@code TurntableQueue.wakeOneParked}). A worker searching now, or busy,
     * looks by itself: it reads the count of waiting puts in its look for work elsewhere, and
     * again before it parks; a busy one writes {@code SEARCHING} when its task ends and looks in
     * the first turn of its wait. Memory ordering: the submitter raised the count (a volatile
     * read-modify-write) before it reads the parked count and the wait states (in
     * {@code TurntableQueue.wakeOneParked}); a worker writes {@code PARKED} (a CAS) and raises
     * the parked count before it reads the put count (in {@link #handOffWait}). Volatile
     * accesses are sequentially consistent, so either we see it parked (and wake it) or it sees
     * our count and does not park. A searching worker that times out or retires instead leaves the put to the
     * submitter's next ask, at most 1 ms later.
     */
    private final Runnable askForHandOffTaker;

    /**
     * Set by a submitter whose hand-off found no idle worker (and ThreadPoolExecutor then made a
     * thread or refused), cleared by {@link #housekeep}: no worker was to spare at that moment,
     * though the housekeeper's looks may all have found some idle.
     */
    private volatile boolean handOffMissed;
    /** {@link #housekeep}'s window: its start (ticker nanos), or {@link #NO_WINDOW}; under this object's lock. */
    private long spareWindowStartNanos = NO_WINDOW;
    /** The fewest idle workers that may time out the housekeeper saw in the window; under the lock. */
    private int spareWindowMinIdle;
    /** The workers' started counts, summed, at the window's start; under the lock. */
    private long spareWindowStarted;
    private static final long NO_WINDOW = Long.MIN_VALUE;

    HandOffMode(TurntableQueue queue) {
        this.queue = queue;
        this.view = new SlotView(queue, true);
        this.askForHandOffTaker = queue::wakeOneParked;
    }

    /**
     * Hand-off {@code offer}: reserves an idle worker the strategy chooses and pushes {@code task}
     * onto its queue, or returns false when none is idle (after four choices).
     */
    boolean handOff(Runnable task) {
        Runnable element = queue.statistics.stampThisOffer() ? new TimedTask(task, System.nanoTime()) : task;
        WorkerChoiceStrategy s = queue.strategy;
        for (int attempt = 0; attempt < 4; attempt++) {
            int i = queue.choose(s, view);
            WorkerSlot[] ss = queue.slots;
            if (i < 0 || i >= ss.length) {
                missed();
                return false;
            }
            WorkerSlot w = ss[i];
            int ws = w.waitState;
            // The CAS reserves the idle worker for this task: a reserved worker never times out
            // or leaves before it has taken what it was reserved for.
            if (reservable(w, ws) && w.casWaitState(ws, WorkerSlot.RESERVED)) {
                if (!w.queue.offer(element)) {
                    queue.toShared(element); // cannot happen with an empty hand-off queue; never lose it
                }
                if (ws == WorkerSlot.PARKED) {
                    LockSupport.unpark(w.thread);
                }
                return true;
            }
        }
        missed();
        return false;
    }

    /**
     * A hand-off found no idle worker: no worker was to spare at that moment ({@link #housekeep}).
     * Written only when not yet set, so a saturated pool's submitters do not all write one line.
     */
    private void missed() {
        if (!handOffMissed) {
            handOffMissed = true;
        }
    }

    /** Whether a hand-off task may be reserved on {@code w}, whose wait state read {@code ws}: idle and attached. */
    private static boolean reservable(WorkerSlot w, int ws) {
        return (ws == WorkerSlot.SEARCHING || ws == WorkerSlot.PARKED) && w.state == WorkerSlot.ATTACHED;
    }

    /**
     * A hand-off {@code put} (or timed {@code offer}) that found no idle worker: waits holding
     * {@code task} until a worker takes it ({@link WaitingPuts}). If it gives up, the owner it
     * may have counted for re-checks termination: the one set when it began (a
     * {@code setOwner(null)} during the wait does not strand a worker that the put kept), and
     * the one set now, if another.
     */
    boolean awaitHandOffTaker(Runnable task, long nanos) throws InterruptedException {
        WeakReference<ThreadPoolExecutor> ownerAtStart = queue.owner;
        boolean taken;
        try {
            taken = waitingPuts.await(queue.statistics.stampThisOffer() ? new TimedTask(task, System.nanoTime()) : task,
                    nanos, askForHandOffTaker, queue);
        } catch (InterruptedException e) {
            handOffPutWithdrawn(ownerAtStart); // its count already lowered (WaitingPuts.await)
            throw e;
        }
        if (!taken) {
            handOffPutWithdrawn(ownerAtStart);
        }
        return taken;
    }

    /** A hand-off put gave up, its count already lowered: see {@link TurntableQueue#setOwner}. */
    private void handOffPutWithdrawn(WeakReference<ThreadPoolExecutor> ownerAtStart) {
        queue.recheckOwnerTermination(ownerAtStart);
    }

    /**
     * A hand-off worker between tasks: ends the last one and waits to be reserved for the next.
     *
     * <p>Reservable first, bookkeeping after. A cached pool's caller typically submits its next
     * task the moment the last one's result reaches it, and a hand-off that finds no idle worker
     * makes ThreadPoolExecutor start a thread. Published only after the statistics, the
     * between-tasks checks and the idle accounting, SEARCHING came too late for that next offer
     * whenever this path ran slowly (cold code, a preempted worker on a shared machine), and
     * the pool grew by a thread a {@code SynchronousQueue} pool would not have made (its waiter
     * is reservable as soon as it calls {@code poll}). So a worker with no flag and no retirement due
     * publishes SEARCHING at once. What it does after that tolerates a reservation: ending the
     * last task touches only this slot's own counters and statistics (a submitter that reserves
     * us reads them at most, as the strategies always do, and pushes onto our queue, which
     * nothing here reads before the wait loop); we take the reserved task in the loop below.
     * The between-tasks checks are skipped then, as they have nothing to do without a flag or a
     * retirement due, and a retirement that falls due meanwhile (a live recycle or a lowered
     * lifetime) is caught by the loop, which leaves SEARCHING by CAS before it retires, as it
     * always has. A worker with a flag (stuck, recycle) or a retirement due goes the old way:
     * it stays RUNNING, unreservable, until the checks are done (they may retire it, which moves
     * its queue to the shared one where no hand-off worker looks, so nothing may be pushed to it
     * meanwhile).
     *
     * <p>Spins, then parks, without the yields a queuing worker makes: like a
     * {@code SynchronousQueue}'s waiter. A hand-off worker is reserved the moment it is idle,
     * yielding or not, and then has to run to take its task; in a burst, every idle worker of a
     * 16-thread pool yielding on 2 CPUs kept the reserved ones from running for milliseconds,
     * all 16 stayed reserved, and ThreadPoolExecutor rejected 93% of a 20,000-task burst that a
     * {@code SynchronousQueue} pool rejects 2-4% of (a cached pool grew to 115-203 threads
     * against 15-22). Parked, a reserved worker costs an unpark, and sequential
     * {@code submit().get()} calls run at a {@code SynchronousQueue}'s speed (~20 µs each here)
     * rather than the yielding worker's 3-14 µs ({@link HandOffBurstTest}).
     *
     * <p>Memory ordering: the volatile write of SEARCHING needs to publish nothing of ours. A
     * submitter that reserves us reads only {@code state} (ATTACHED since attach), CASes
     * {@code waitState} and pushes onto our (multi-producer) queue; what it reads of our
     * counters may be a task behind, which the strategies tolerate anyway. Only we leave
     * RUNNING (no other thread CASes from it), so the plain volatile write loses no state.
     */
    Runnable awaitHandOff(WorkerSlot s, boolean timed, long nanos) throws InterruptedException {
        long keepAliveNanos = timed ? Math.max(1L, nanos) : 0L;
        if (s.keepAliveNanos != keepAliveNanos) {
            s.keepAliveNanos = keepAliveNanos; // volatile, written when it changes: normally once per thread
        }
        int f = s.flags;
        if ((f & WorkerSlot.SURPLUS) != 0 && !timed) {
            // Marked to spare while it waited timed; its executor now keeps it (the pool is down
            // to its core size): a core thread, like any other.
            s.clearFlag(WorkerSlot.SURPLUS);
            f = s.flags;
        }
        boolean early = f == 0 && !queue.retireDue(s);
        if (early) {
            s.waitState = WorkerSlot.SEARCHING;
        }
        queue.finishRunning(s);
        if (!early) {
            queue.betweenTasks(s, f); // may retire this worker: throws WorkerRetirement
        }
        queue.statistics.workerIdle(s);
        queue.scheduleWaitingClassTasks(); // as in TurntableQueue.awaitTask (a hand-off queue holds no class task: normally never)
        long deadline = timed ? System.nanoTime() + nanos : 0L;
        if (!early) {
            s.waitState = WorkerSlot.SEARCHING;
        }
        // Long spins only in an untimed wait (a core worker's take()), as a SynchronousQueue
        // spins 16 times longer for take() than for a timed poll: a cached pool's workers (timed)
        // keep the short spins, whose idle CPU matches the JDK's queue.
        // Not a worker due to retire: it takes nothing until it has retired (see handOffWait).
        return handOffWait(s, timed, deadline,
                !timed && !queue.retireDue(s) && TurntableQueue.yieldsBeforePark(s) != 0 && tryStartLongSpin());
    }

    /** Starts a task a hand-off wait found; one found before the wait parked clears the park streak. */
    private Runnable startAfterHandOffWait(WorkerSlot s, Runnable r, boolean parked) {
        if (!parked && s.parkStreak != 0) {
            s.parkStreak = 0; // work came back within the spins: spin long again
        }
        return queue.start(s, r);
    }

    /** One of the pool's few long spinners now ({@link TurntableQueue#HAND_OFF_LONG_SPINS}), if a place is free. */
    private boolean tryStartLongSpin() {
        for (;;) {
            int n = handOffLongSpinners.get();
            if (n >= TurntableQueue.HAND_OFF_LONG_SPINNERS) {
                return false;
            }
            if (handOffLongSpinners.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    /**
     * {@link #awaitHandOff}'s loop: {@code spins} turns, then parks. A wait that ends with a task
     * before it parked clears the worker's park streak, one that parked raises it (which ends
     * its long spins after a few: see {@link TurntableQueue#yieldsBeforePark}).
     */
    private Runnable handOffWait(WorkerSlot s, boolean timed, long deadline, boolean longSpinner)
            throws InterruptedException {
        int spins = longSpinner ? TurntableQueue.HAND_OFF_LONG_SPINS : TurntableQueue.HAND_OFF_SPINS;
        boolean parked = false;
        try {
            for (int i = 0; ; i++) {
                Runnable r = s.queue.poll();
                if (r != null) {
                    s.waitState = WorkerSlot.RUNNING;
                    return startAfterHandOffWait(s, r, parked);
                }
                if (s.waitState == WorkerSlot.RESERVED) {
                    // The submitter that reserved us is pushing the task now. We take nothing else
                    // meanwhile: a reserved worker that did could time out and leave after it, and
                    // the reserved task, pushed late (its submitter preempted between its CAS and
                    // its push), would land on a queue nobody owns.
                    Thread.onSpinWait();
                    continue;
                }
                if (queue.retireDue(s)) {
                    if (longSpinner) {
                        // Due meanwhile (a recycle, a lowered lifetime): it takes nothing now, and
                        // may wait for its turn for a while; the place is for a worker looking for work.
                        longSpinner = false;
                        handOffLongSpinners.decrementAndGet();
                    }
                    int ws = s.waitState;
                    // Unreachable for submitters first (they reserve only SEARCHING or PARKED workers),
                    // then retire, or wait our turn in short parks.
                    if ((ws == WorkerSlot.SEARCHING || ws == WorkerSlot.PARKED) && s.casWaitState(ws, WorkerSlot.RUNNING)) {
                        queue.tryRetire(s);
                        s.waitState = WorkerSlot.SEARCHING;
                        LockSupport.parkNanos(queue, TurntableQueue.SHUTDOWN_RECHECK_NANOS);
                    }
                    continue;
                }
                if (((i & 15) == 0 || i >= spins) && (r = takeElsewhereWhileIdle(s)) != null) {
                    return startAfterHandOffWait(s, r, parked); // every 16th spin, and after every park
                }
                boolean interrupted = Thread.interrupted();
                long left = timed ? deadline - System.nanoTime() : Long.MAX_VALUE;
                // Spared by the housekeeper: leaves as if its keep-alive had run out (housekeep).
                // An untimed wait (its executor keeps it: a core thread now) was flagged by a
                // look that read it timed a moment before: the flag is stale, and would keep it
                // from every strategy for good. The housekeeper unparks every worker it flags,
                // so a wait that parked before the flag landed comes round to this check.
                boolean surplus = (s.flags & WorkerSlot.SURPLUS) != 0;
                if (surplus && !timed) {
                    s.clearFlag(WorkerSlot.SURPLUS);
                    surplus = false;
                }
                if (interrupted || left <= 0 || surplus) {
                    int ws = s.waitState;
                    if ((ws == WorkerSlot.SEARCHING || ws == WorkerSlot.PARKED)
                            && s.casWaitState(ws, WorkerSlot.RUNNING)) {
                        if (surplus) {
                            // Unreservable already (RUNNING); cleared before the slot is left, so
                            // a thread its executor keeps after all (down to the core size) comes
                            // back as any worker does.
                            s.clearFlag(WorkerSlot.SURPLUS);
                        }
                        queue.workerRegistry.detach(s);
                        if (interrupted) {
                            throw new InterruptedException();
                        }
                        return null;
                    }
                    if (interrupted) {
                        Thread.currentThread().interrupt(); // reserved: take the task, keep the interrupt
                    }
                    continue;
                }
                if (i < spins) {
                    Thread.onSpinWait();
                    continue;
                }
                if (!parked) {
                    parked = true;
                    if (s.parkStreak < TurntableQueue.PARKS_BEFORE_SKIPPING_YIELDS) {
                        s.parkStreak++;
                    }
                    if (longSpinner) {
                        longSpinner = false; // the place is free for another while we park
                        handOffLongSpinners.decrementAndGet();
                    }
                }
                if (s.casWaitState(WorkerSlot.SEARCHING, WorkerSlot.PARKED)) {
                    queue.parkedCount.incrementAndGet();
                    try {
                        // Counted parked (a full fence), then one more look at the shared queue:
                        // toShared (in TurntableQueue) counts its task (a full fence), then reads
                        // the parked count to wake one. One side sees the other, so a task that
                        // reached it after our last look either stops this park or wakes us from it.
                        // The same for a submitter's waiting put, whose count it raised before it
                        // read the wait states (askForHandOffTaker).
                        if (queue.sharedCount.get() <= 0 && waitingPuts.count() <= 0) { // else go round and take it (takeElsewhereWhileIdle)
                            long lookNanos = queue.replacedLookNanos();
                            if (timed || lookNanos != 0L) {
                                LockSupport.parkNanos(queue, lookNanos == 0L ? left : Math.min(left, lookNanos));
                            } else {
                                LockSupport.park(queue);
                            }
                        }
                    } finally {
                        queue.parkedCount.decrementAndGet();
                    }
                    if (!s.casWaitState(WorkerSlot.PARKED, WorkerSlot.SEARCHING)) {
                        // Reserved (RESERVED: our task is coming), or woken by wakeOneParked, whose
                        // tryWake (both in TurntableQueue) marks a hand-off worker RUNNING: a task
                        // for any worker reached the shared queue. Left RUNNING, we could neither
                        // be reserved, nor park, nor leave on an interrupt or timeout (the loop
                        // takes RUNNING for reserved): back to SEARCHING, and the look below finds
                        // that task. No one else leaves RUNNING, so the CAS is ours.
                        s.casWaitState(WorkerSlot.RUNNING, WorkerSlot.SEARCHING);
                    }
                }
            }
        } finally {
            if (longSpinner) {
                handOffLongSpinners.decrementAndGet();
            }
        }
    }

    /**
     * Hand-off, idle: a task that waits for any worker rather than for this one. Either one the
     * application put into the queue this one replaced (a put into a {@code SynchronousQueue}
     * waits until someone polls it), or one in the shared queue, which a hand-off task reaches
     * only when it could not stay where it was pushed, or the task of a submitter waiting in
     * {@code put} ({@link #waitingPuts}). Leaves SEARCHING by CAS first, so that no
     * submitter reserves us while we look (reserved meanwhile, we take nothing here: our task is
     * coming), and becomes reservable again when there was nothing.
     */
    private Runnable takeElsewhereWhileIdle(WorkerSlot s) {
        if ((queue.replaced == null && queue.sharedCount.get() <= 0 && waitingPuts.count() <= 0)
                || !s.casWaitState(WorkerSlot.SEARCHING, WorkerSlot.RUNNING)) {
            return null;
        }
        Runnable r = queue.sharedCount.get() > 0 ? queue.claimShared(s) : null;
        if (r != null) {
            return queue.takenFromShared(r);
        }
        if (queue.replaced != null && (r = queue.fromReplaced(s)) != null) {
            return r;
        }
        if ((r = waitingPuts.claim()) != null) {
            return r; // a submitter's blocked put: it goes on now (askForHandOffTaker)
        }
        // Volatile write: only we leave RUNNING, so nothing is lost, and a submitter that reads
        // SEARCHING afterwards may reserve us as before.
        s.waitState = WorkerSlot.SEARCHING;
        return null;
    }

    /**
     * After a thread other than its owner took a task from {@code s}'s queue for good (a foreign
     * {@code poll}, {@code drainTo} or {@code remove}): in hand-off mode that was the one task
     * the worker was reserved for, and a reserved worker waits for it, ignoring interrupts and
     * timeouts, so the reservation ends here. (Its task was pushed after the reserving CAS, so
     * having taken it we see RESERVED; only the owner leaves RESERVED otherwise, by taking the
     * task, which we have. The owner reads waitState in every turn of its loop.)
     */
    void handOffTakenBack(WorkerSlot s) {
        if (queue.capacityMode == TurntableQueue.Capacity.HAND_OFF) {
            s.casWaitState(WorkerSlot.RESERVED, WorkerSlot.SEARCHING);
        }
    }

    /**
     * Keep-alive for a hand-off pool whose strategy spreads tasks over its idle workers: every
     * {@value Housekeeper#TICK_MILLIS} ms on the housekeeper thread ({@code TurntableQueue.housekeep};
     * tests call it with an injected {@link Ticker}).
     *
     * <p>Why: a {@code SynchronousQueue} gives each task to the worker that became idle last,
     * so after a burst the workers a lighter load does not need get nothing and time out, and a
     * cached pool shrinks back. A strategy that spreads tasks over all idle workers
     * ({@code ROUND_ROBIN}, and {@code LEAST_BUSY} and {@code LEAST_CPU} by their history) gave
     * each of them a task often enough that none ever waited its whole keep-alive: a cached
     * pool that grew to 200 threads in a burst kept all 200 under 200 tasks a second, for good.
     *
     * <p>What: the housekeeper counts the idle workers whose wait may time out (their executor
     * passed a keep-alive: those above the core size, or all with core timeout allowed). When at
     * every look over one whole keep-alive at least {@code m} were idle, and no hand-off found
     * none idle, {@code m} workers were to spare for that long, as the ones a
     * {@code SynchronousQueue} would have let time out; one fewer if any task started meanwhile,
     * as that queue keeps the worker that ran them. That many idle workers, highest index first,
     * are flagged {@link WorkerSlot#SURPLUS}: no strategy chooses them, and each leaves its wait
     * as if its keep-alive had run out, so ThreadPoolExecutor ends the thread if it is still
     * above its core size (it keeps the thread otherwise, which clears the flag). Then a new
     * window starts. Looks are 100 ms apart, so a brief moment with fewer idle workers between
     * two looks can go unseen: at worst a worker too many leaves, and the executor makes a
     * thread when it next finds none idle, once per keep-alive at most.
     *
     * <p>Only for a queue whose executor said it owns it ({@code TurntableQueue.setOwner}, as
     * {@code TurntableExecutor} and the agent do): an early null from {@code poll(timeout)} is
     * a time-out to ThreadPoolExecutor, but breaks {@code BlockingQueue}'s promise to any other
     * consumer.
     *
     * <p>Memory ordering: the flag is set atomically (a full fence) and then the worker is
     * unparked whatever its wait state, so a worker that read its flags just before and went on
     * to park returns at once on the permit and reads them again. A submitter that read the
     * flags before they were set may still reserve the worker (a CAS on its wait state), and
     * then the worker's own CAS out of its wait fails and it takes that task first, as with a
     * keep-alive that runs out (see {@link #handOffWait}); it leaves at its next timed wait. A
     * worker its executor keeps after all (back in an untimed wait) clears a flag that lands
     * late.
     */
    synchronized void housekeep(long nowNanos) {
        if (queue.owner == null) {
            // No executor told us it owns this queue: a plain consumer's poll(timeout) must not
            // return null before its time is up, as BlockingQueue promises.
            return;
        }
        WorkerSlot[] ss = queue.slots;
        int idle = 0;
        long keepAliveNanos = 0L;
        long startedSum = 0L;
        for (WorkerSlot s : ss) {
            // Every slot's, attached or not: a worker that leaves keeps its count, so the sum
            // moves only when a task starts or a thread takes a slot (the pool was busy then too).
            startedSum += s.started;
            if (spareCandidate(s)) {
                idle++;
                keepAliveNanos = Math.max(keepAliveNanos, s.keepAliveNanos);
            }
        }
        if (handOffMissed) {
            handOffMissed = false;
            idle = 0; // a moment since the last look with none idle
        }
        if (idle == 0) {
            spareWindowStartNanos = NO_WINDOW; // none to spare: a window starts at the next look with some
            return;
        }
        if (spareWindowStartNanos == NO_WINDOW) {
            spareWindowStartNanos = nowNanos;
            spareWindowMinIdle = idle;
            spareWindowStarted = startedSum;
            return;
        }
        spareWindowMinIdle = Math.min(spareWindowMinIdle, idle);
        if (nowNanos - spareWindowStartNanos < keepAliveNanos) {
            return;
        }
        int spare = spareWindowMinIdle - (startedSum != spareWindowStarted ? 1 : 0);
        spareWindowStartNanos = NO_WINDOW;
        for (int i = ss.length - 1; i >= 0 && spare > 0; i--) {
            WorkerSlot s = ss[i];
            if (spareCandidate(s)) {
                s.setFlag(WorkerSlot.SURPLUS);
                spare--;
                // Unparked whatever its wait state reads now: a worker that read its flags just
                // before they changed may be on its way to park (and then returns at once, on the
                // permit), or back in an untimed wait, where it clears the flag (handOffWait). A
                // spurious wake-up at worst, if it has moved on.
                Thread t = s.thread;
                if (t != null) {
                    LockSupport.unpark(t);
                }
            }
        }
    }

    /**
     * Whether {@code s} is an idle worker whose wait may time out, not flagged for anything nor
     * waiting for its turn to retire (it leaves anyway, and is replaced, not spared).
     */
    private boolean spareCandidate(WorkerSlot s) {
        int ws = s.waitState;
        return s.state == WorkerSlot.ATTACHED && s.flags == 0 && s.keepAliveNanos > 0
                && (ws == WorkerSlot.SEARCHING || ws == WorkerSlot.PARKED) && !queue.retireDue(s);
    }

    /** Hand-off workers holding a long-spin place now (for tests, through the queue). */
    int longSpinnerCount() {
        return handOffLongSpinners.get();
    }
}
