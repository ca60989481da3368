package dev.turntable.pool;

import java.lang.ref.WeakReference;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * The lives of a {@link TurntableQueue}'s worker threads past the take path: retirement (a worker
 * that has started {@code max-lifetime-tasks} tasks, or was asked to recycle, leaves at a task
 * boundary and is replaced by a new thread, one worker at a time), and the housekeeper's look at
 * the pool (heartbeats: a worker inside one task past the timeout is {@code STUCK}; and the
 * retirement turn, freed if a replacement never came). Any thread may call the configuration
 * methods; only a worker calls {@link #betweenTasks} and {@link #tryRetire}, for its own slot
 * (through the queue's take path); the housekeeper thread calls {@link #housekeep} (tests call it
 * directly). One per queue, made with it.
 *
 * <p>What the take path reads stays on TurntableQueue: {@code retireDue} (which every wake and
 * every look for work asks), {@code lifetimeLimit}, {@code retirementSupported}, and the
 * retirement turn {@code retireTurn}. The turn's one cross-class ordering argument: a queuing
 * worker due to retire writes {@code PARKED}, then reads the turn before it parks
 * ({@code TurntableQueue.parkForWork}); {@link #passRetirementTurn} frees the turn, then reads
 * {@code PARKED} to wake it ({@link #wakePendingRetirees}, through {@code TurntableQueue.tryWake}):
 * one sees the other. A registering worker passes the turn on itself
 * ({@code WorkerRegistry.register}).
 */
final class WorkerLifetimes {

    /** After this long without the retiree's replacement registering, the housekeeper frees the turn. */
    static final long RETIRE_HANDOVER_NANOS = TimeUnit.SECONDS.toNanos(1);

    /**
     * A retiree's replacement never registered while its pool was below its core size: the
     * pool's ThreadFactory failed to make it (returned null or threw). While set, lifetimes are
     * off ({@code lifetimeLimit} 0, which every choice and take reads) and no worker is due to
     * retire, not even one asked to recycle ({@code retireDue}), so a factory that fails
     * for good cannot take the pool's threads away one retirement at a time, where a plain pool,
     * which never asks for one there, keeps them; and the housekeeper asks the factory again for
     * the missing core thread while tasks wait ({@link #restoreMissingWorker}). Set by the
     * housekeeper, cleared by the next thread to register ({@link #threadRegistered}); both
     * under the registration lock, as every write of {@code lifetimeLimit}.
     */
    volatile boolean replacementMissing; // written under queue.registration; read by due workers (retireDue)
    /**
     * The last retiree's daemon status, priority, thread group and context class loader:
     * ThreadPoolExecutor makes a replacement on the retiring thread, so a factory that copies its
     * caller's (as {@code new Thread(r)} does) makes pool threads like it. A missing one is asked
     * for on a thread made like it too ({@link #restoreMissingWorker}). Written by the retiree
     * before it sets the turn (volatile), read by the housekeeper after it has seen the turn.
     */
    private boolean retireeDaemon;
    private int retireePriority = Thread.NORM_PRIORITY;
    private WeakReference<ThreadGroup> retireeGroup;
    private WeakReference<ClassLoader> retireeContextLoader;
    /** Ticker reading of the housekeeper's last request for a missing worker: once per handover time. */
    private long lastRestoreNanos;
    /** Whether a failed request for a missing worker has been logged (once per pool). */
    private boolean restoreFailureLogged;

    private final TurntableQueue queue;
    private volatile int maxLifetimeTasks;
    private volatile long heartbeatTimeoutNanos;
    /** Ticker reading when the last retiree left; the housekeeper frees the turn after this long. */
    private volatile long retireLeftNanos;
    private final AtomicLong retirements = new AtomicLong();
    private final CopyOnWriteArrayList<Consumer<RetiredWorker>> retirementListeners = new CopyOnWriteArrayList<>();

    WorkerLifetimes(TurntableQueue queue, int maxLifetimeTasks, long heartbeatTimeoutNanos) {
        this.queue = queue;
        this.maxLifetimeTasks = maxLifetimeTasks;
        this.heartbeatTimeoutNanos = heartbeatTimeoutNanos;
    }

    // ------------------------------------------------------------------ configuration

    /** {@link TurntableQueue#setRetirementSupported}; under the registration lock: lifetimeLimit follows the pair. */
    void setRetirementSupported(boolean supported) {
        synchronized (queue.registration) {
            queue.retirementSupported = supported;
            queue.lifetimeLimit = supported ? maxLifetimeTasks : 0;
        }
    }

    /** {@link TurntableQueue#getMaxLifetimeTasks}. */
    int maxLifetimeTasks() {
        return maxLifetimeTasks;
    }

    /** {@link TurntableQueue#setMaxLifetimeTasks}: a worker now due is woken to retire. */
    void setMaxLifetimeTasks(int tasks) {
        if (tasks < 0) {
            throw new IllegalArgumentException("max-lifetime-tasks " + tasks + " must be 0 (off) or positive");
        }
        synchronized (queue.registration) {
            if (tasks > 0 && !queue.retirementSupported) {
                throw new IllegalArgumentException("max-lifetime-tasks " + tasks + " needs an executor that replaces"
                        + " retired workers (TurntableExecutor or one managed by the agent); this one does not");
            }
            maxLifetimeTasks = tasks;
            queue.lifetimeLimit = queue.retirementSupported && !replacementMissing ? tasks : 0;
        }
        wakePendingRetirees();
    }

    /**
     * A thread registered, under the registration lock: the pool's factory makes threads again,
     * so lifetimes stopped for a missing replacement ({@link #replacementMissing}) resume.
     * Returns whether they did: the caller then wakes the workers now due (out of the lock), so
     * an idle one asked to recycle meanwhile does not wait for its next task.
     */
    boolean threadRegistered() {
        if (replacementMissing) {
            replacementMissing = false;
            queue.lifetimeLimit = queue.retirementSupported ? maxLifetimeTasks : 0;
            return true;
        }
        return false;
    }

    /**
     * The housekeeper found a retiree's replacement missing: lifetimes stop until a thread
     * registers, and every worker waiting for the retirement turn is woken to take tasks again.
     */
    private void stopLifetimesForMissingReplacement() {
        synchronized (queue.registration) {
            // A late replacement registers under this lock and passes the turn as it does: if it
            // has, nothing is missing (set after it, the flag would stay for good, with the pool
            // at its core size and no thread to come and clear it).
            if (queue.retireTurn.get() != TurntableQueue.AWAITING_REPLACEMENT) {
                return;
            }
            replacementMissing = true;
            queue.lifetimeLimit = 0;
        }
        for (WorkerSlot o : queue.slots) {
            if (o.state == WorkerSlot.ATTACHED) {
                wakeForRetirement(o);
            }
        }
    }

    /** {@link TurntableQueue#getHeartbeatTimeoutMillis}. */
    long heartbeatTimeoutMillis() {
        return TimeUnit.NANOSECONDS.toMillis(heartbeatTimeoutNanos);
    }

    /** {@link TurntableQueue#setHeartbeatTimeoutMillis}: 0 also clears every stuck verdict. */
    void setHeartbeatTimeoutMillis(long millis) {
        TurntableQueue.checkDurationMillis("heartbeat-timeout-ms", millis, "off");
        heartbeatTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(millis);
        if (millis == 0) {
            for (WorkerSlot o : queue.slots) {
                o.clearFlag(WorkerSlot.STUCK);
            }
        }
    }

    /** {@link TurntableQueue#getRetiredWorkerCount}. */
    long retiredWorkerCount() {
        return retirements.get();
    }

    /** {@link TurntableQueue#workerLifetimes}. */
    int[] workerLifetimes() {
        WorkerSlot[] ss = queue.slots;
        int[] out = new int[ss.length];
        for (int i = 0; i < ss.length; i++) {
            WorkerSlot o = ss[i];
            out[i] = (int) Math.min(Integer.MAX_VALUE, o.currentThreadLifetimeTasks());
        }
        return out;
    }

    /** {@link TurntableQueue#recycleWorker}. */
    void recycleWorker(int index) {
        if (!queue.retirementSupported) {
            throw new IllegalArgumentException("cannot recycle worker " + index + ": this pool's executor does not"
                    + " replace retired workers (TurntableExecutor and agent-managed pools do)");
        }
        WorkerSlot[] ss = queue.slots;
        if (index < 0 || index >= ss.length) {
            throw new IllegalArgumentException("worker index " + index + " is not in 0.." + (ss.length - 1));
        }
        WorkerSlot o = ss[index];
        if (o.state == WorkerSlot.FREE) {
            throw new IllegalArgumentException("worker " + index + " has no thread (retired or not started)");
        }
        o.setFlag(WorkerSlot.RECYCLE);
        wakeForRetirement(o);
    }

    /** {@link TurntableQueue#addRetirementListener}. */
    void addRetirementListener(Consumer<RetiredWorker> listener) {
        retirementListeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /** {@link TurntableQueue#removeRetirementListener}. */
    void removeRetirementListener(Consumer<RetiredWorker> listener) {
        retirementListeners.remove(listener);
    }

    // ------------------------------------------------------------------ retirement and housekeeping

    /**
     * Between two tasks of a worker: clears a stuck verdict (the worker came back), and retires
     * the worker if it is due and it is its turn.
     */
    void betweenTasks(WorkerSlot s, int flags) {
        if ((flags & WorkerSlot.STUCK) != 0) {
            s.clearFlag(WorkerSlot.STUCK);
        }
        if ((flags & WorkerSlot.FIRST_TASK) != 0) {
            s.clearFlag(WorkerSlot.FIRST_TASK); // its first task is over: a worker like any other
        }
        if (queue.retireDue(s)) {
            tryRetire(s);
            // Not our turn: we take nothing new while we wait (TurntableQueue.findWork returns
            // nothing), so hand anything queued on us to the others now rather than let it wait
            // with us. No lock held here: an empty claim re-checks at once (see moveToShared).
            WeakReference<ThreadPoolExecutor> ownerAtCount = queue.owner;
            if (queue.workerRegistry.moveToShared(s)) {
                queue.emptyClaimEnded(ownerAtCount);
            }
        }
    }

    /**
     * Retires the calling worker if no other worker is retiring: it leaves its slot (its queued
     * tasks go to the shared queue, as when any worker leaves), tells the listeners and throws
     * {@link WorkerRetirement}, which ThreadPoolExecutor treats as an abrupt end of the worker
     * loop: it starts a replacement through the pool's ThreadFactory. If another worker is
     * retiring, returns: this one takes nothing new and waits (parked) until the turn comes
     * free, as the strategies no longer choose it. The turn passes when the replacement
     * registers, usually well under a millisecond later.
     */
    void tryRetire(WorkerSlot s) {
        if (!queue.retireTurn.compareAndSet(TurntableQueue.NO_RETIREMENT, TurntableQueue.RETIRING)) {
            return;
        }
        if (replacementMissing) {
            // Due by a lifetime read before the housekeeper stopped lifetimes, and our turn only
            // because it then freed the turn: it sets the flag before it frees the turn, and our
            // CAS read that freeing, so we see the flag. Not on a factory that fails: give it back.
            queue.retireTurn.set(TurntableQueue.NO_RETIREMENT);
            return;
        }
        Thread me = Thread.currentThread();
        retireeDaemon = me.isDaemon();
        retireePriority = me.getPriority();
        retireeGroup = new WeakReference<>(me.getThreadGroup());
        retireeContextLoader = new WeakReference<>(me.getContextClassLoader());
        String reason = (s.flags & WorkerSlot.RECYCLE) != 0 ? RetiredWorker.RECYCLED : RetiredWorker.LIFETIME;
        long started = s.started;
        queue.currentSlot.remove();
        queue.workerRegistry.release(s, me);
        long n = retirements.incrementAndGet();
        retireLeftNanos = queue.ticker.nanoTime();
        // Volatile write after the slot is free: the replacement can only register after we throw.
        queue.retireTurn.set(TurntableQueue.AWAITING_REPLACEMENT);
        if (!retirementListeners.isEmpty()) {
            RetiredWorker event = new RetiredWorker(s.index, me.getName(), started, reason, n);
            for (Consumer<RetiredWorker> l : retirementListeners) {
                try {
                    l.accept(event);
                } catch (RuntimeException | Error ignored) {
                    // A listener's failure must not keep the worker from retiring.
                }
            }
        }
        throw WorkerRetirement.INSTANCE;
    }

    /**
     * Frees the retirement turn a retiree left waiting for its replacement (the replacement has
     * registered, or the housekeeper gave up on it), and wakes the workers waiting for the turn.
     */
    void passRetirementTurn() {
        if (queue.retireTurn.get() == TurntableQueue.AWAITING_REPLACEMENT
                && queue.retireTurn.compareAndSet(TurntableQueue.AWAITING_REPLACEMENT, TurntableQueue.NO_RETIREMENT)) {
            wakePendingRetirees();
        }
    }

    void wakePendingRetirees() {
        for (WorkerSlot o : queue.slots) {
            if (o.state == WorkerSlot.ATTACHED && queue.retireDue(o)) {
                wakeForRetirement(o);
            }
        }
    }

    /** Gets an idle worker to its retirement check: unpark it (hand-off workers re-check on waking). */
    private void wakeForRetirement(WorkerSlot o) {
        if (queue.capacityMode == TurntableQueue.Capacity.HAND_OFF) {
            Thread t = o.thread;
            if (t != null) {
                LockSupport.unpark(t);
            }
        } else {
            queue.tryWake(o);
        }
    }

    /**
     * Housekeeping, every {@value Housekeeper#TICK_MILLIS} ms on the housekeeper thread (tests call
     * it directly with an injected {@link Ticker}): heartbeats (a worker inside the same task
     * longer than the timeout is marked {@code STUCK}; one seen idle or in a new task is fresh),
     * and the retirement turn, freed if a retiree's replacement never registered (the executor
     * shrank or failed to make a thread). Returns false once the pool has shut down and has no
     * worker left, which ends its housekeeping.
     */
    boolean housekeep() {
        long now = queue.ticker.nanoTime();
        long timeout = heartbeatTimeoutNanos;
        boolean anyWorker = false;
        for (WorkerSlot o : queue.slots) {
            Thread t = o.thread;
            if (t == null || o.state == WorkerSlot.FREE) {
                // Forget the thread seen last: on JDK 21+ a dead Thread keeps its Runnable (the
                // executor's Worker, and through it the executor), so a pool dropped without a
                // shutdown stayed reachable for good from its MBean (which holds this queue).
                o.heartbeatSeenThread = null;
                continue;
            }
            anyWorker = true;
            long started = o.started;
            if (o.running == 0 || t != o.heartbeatSeenThread || started != o.heartbeatSeenStarted) {
                o.heartbeatSeenThread = t;
                o.heartbeatSeenStarted = started;
                o.lastHeartbeatNanos = now;
                if ((o.flags & WorkerSlot.STUCK) != 0) {
                    o.clearFlag(WorkerSlot.STUCK);
                }
            } else if (timeout > 0 && now - o.lastHeartbeatNanos > timeout && (o.flags & WorkerSlot.STUCK) == 0) {
                o.setFlag(WorkerSlot.STUCK);
            }
        }
        // The turn first, then the time: the retiree writes the time before it sets the turn,
        // so a turn seen waiting comes with its own retiree's time, never an older one.
        boolean awaiting = queue.retireTurn.get() == TurntableQueue.AWAITING_REPLACEMENT;
        if (awaiting && now - retireLeftNanos > RETIRE_HANDOVER_NANOS) {
            // Before the turn is free: no worker waiting for it may retire on a factory that failed.
            if (ownerBelowCoreSize()) {
                stopLifetimesForMissingReplacement();
            }
            passRetirementTurn();
            awaiting = false;
        }
        boolean restoring = replacementMissing && restoreMissingWorker(now);
        queue.scheduleWaitingClassTasks(); // rebalancing's minimum duration may have passed with nothing else happening
        // A shut-down pool with no worker left stays looked after while a retiree's replacement
        // may still come or has to be asked for again: its tasks wait for that thread.
        return anyWorker || !queue.ownerShutDown || awaiting || restoring;
    }

    /** Whether the owner is there and has fewer threads than its core size (false if its methods throw). */
    private boolean ownerBelowCoreSize() {
        try {
            ThreadPoolExecutor owner = queue.ownerNow();
            return owner != null && !owner.isTerminated() && owner.getPoolSize() < owner.getCorePoolSize();
        } catch (RuntimeException | Error e) {
            return false;
        }
    }

    /**
     * With {@link #replacementMissing} set: while tasks wait and the owner is below its core size,
     * asks it for one core thread ({@code prestartCoreThread}, through the pool's ThreadFactory;
     * allowed after {@code shutdown()} while the queue holds tasks), at most once per
     * {@link #RETIRE_HANDOVER_NANOS}. The thread clears the flag as it registers. A failure is
     * logged once per pool. Returns whether tasks still wait for a thread, which keeps a shut-down
     * pool looked after. Housekeeper thread only.
     */
    private boolean restoreMissingWorker(long now) {
        if (!queue.waitingTasks.any() || !ownerBelowCoreSize()) {
            return false;
        }
        if (lastRestoreNanos != 0 && now - lastRestoreNanos < RETIRE_HANDOVER_NANOS) {
            return true;
        }
        lastRestoreNanos = now == 0 ? 1 : now;
        ThreadPoolExecutor owner = queue.ownerNow();
        if (owner == null) {
            return false;
        }
        Throwable[] failure = new Throwable[1];
        boolean[] started = new boolean[1];
        // Asked on a thread made like the retiree that would have asked (see retireeDaemon), not
        // on this daemon service thread: a factory copying its caller's daemon status made the
        // pool's workers daemons from then on, so the JVM could exit under a draining pool.
        Runnable ask = () -> {
            try {
                started[0] = owner.prestartCoreThread();
            } catch (RuntimeException | Error e) {
                failure[0] = e;
            }
        };
        try {
            WeakReference<ThreadGroup> g = retireeGroup;
            ThreadGroup group = g == null ? null : g.get();
            Thread asker;
            try {
                asker = new Thread(group, ask, "turntable-replacement");
            } catch (IllegalThreadStateException destroyed) { // a group destroyed on JDK 17
                asker = new Thread(ask, "turntable-replacement");
            }
            asker.setDaemon(retireeDaemon);
            asker.setPriority(retireePriority);
            WeakReference<ClassLoader> cl = retireeContextLoader;
            asker.setContextClassLoader(cl == null ? null : cl.get());
            asker.start();
            // Bounded: this thread looks after every pool. A factory that blocks longer is still
            // at it; its answer is not waited for (nor logged), and the next ask finds the pool
            // at its core size (a thread being made counts) or asks again.
            asker.join(TimeUnit.NANOSECONDS.toMillis(RETIRE_HANDOVER_NANOS));
            if (asker.isAlive()) {
                return true;
            }
            // Ended: join's return saw its writes (a thread's end happens-before join returns).
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        } catch (RuntimeException | Error e) {
            failure[0] = e; // no thread for the asking (out of native threads, say)
        }
        if (!started[0] && !restoreFailureLogged) {
            restoreFailureLogged = true;
            System.getLogger(TurntableQueue.class.getName()).log(System.Logger.Level.WARNING,
                    "the thread factory of " + owner + " did not make a retiring worker's replacement"
                            + " and tasks wait; workers stop retiring until a new thread starts, and the pool asks"
                            + " the factory again every " + TimeUnit.NANOSECONDS.toMillis(RETIRE_HANDOVER_NANOS)
                            + " ms. Later failures are not logged", failure[0]);
        }
        return true;
    }
}
