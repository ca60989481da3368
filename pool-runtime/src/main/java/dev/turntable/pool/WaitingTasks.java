package dev.turntable.pool;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The collection side of a {@link TurntableQueue}: its waiting tasks (in the workers' queues, the
 * shared queue, task classes' jobs, the queue it replaced, and a hand-off queue's waiting puts)
 * as {@code size()}, {@code peek()}, {@code poll()}, {@code drainTo}, {@code remove},
 * {@code toArray} and {@code iterator()} count, read and take them for callers that are not
 * workers: ThreadPoolExecutor's {@code shutdownNow}, {@code purge}, {@code remove} and
 * {@code DiscardOldestPolicy}, and monitoring. Any thread may call any method; none is on the
 * take path, and only {@link #any} is on a submit path (a single-worker pool's). The public methods and their documentation stay on TurntableQueue, which
 * delegates here. One per queue, made with it.
 *
 * <p>What it shares with the queue's worker side is the rule that keeps a task counted while it
 * moves: a task leaving one queue for another is counted in {@code TurntableQueue.inTransit}
 * before it is taken, and lands (raising {@code moves}) before that count drops
 * ({@code WorkerRegistry.moveToShared} and {@code rescueToShared}, the class scheduler's moves,
 * and {@link #removeFrom} here); a worker taking from the shared queue is counted in
 * its slot's {@code claimingShared} until its take is counted ({@code TurntableQueue.claimShared}). The reads
 * here read where moves start before where they end, and read again if {@code moves} changed.
 */
final class WaitingTasks {

    private final TurntableQueue queue;

    /**
     * Test seam, null outside tests: lets a test hold a removal at the edges of a claim it has
     * counted in transit ({@link #removeFrom}). Read once per claim of a removal, which is cold.
     */
    volatile ClaimProbe removalProbe;

    WaitingTasks(TurntableQueue queue) {
        this.queue = queue;
    }

    /** {@link TurntableQueue#poll()}: one waiting task for a caller that is not a worker. */
    Runnable poll() {
        Runnable r = pollAny();
        if (r == null) {
            return queue.replaced == null ? null : queue.replaced.poll(); // held no place of ours
        }
        queue.releasePermit();
        ClassScheduler.released(r);
        return TimedTask.unwrap(r);
    }


    private Runnable pollAny() {
        boolean sharedFirst = sharedRunsFirst();
        Runnable r;
        if (sharedFirst && (r = pollShared()) != null) {
            return r;
        }
        ClassScheduler cs = queue.classes;
        if (cs != null && cs.hasWaiting()) {
            List<Runnable> one = new ArrayList<>(1);
            if (cs.drainWaiting(one, 1) == 1) {
                return one.get(0);
            }
        }
        for (;;) {
            WorkerSlot victim = null;
            int most = 0;
            for (WorkerSlot o : queue.slots) {
                int q = o.queue.size();
                if (q > most) {
                    most = q;
                    victim = o;
                }
            }
            if (victim == null) {
                r = sharedFirst ? null : pollShared();
                // As a SynchronousQueue's poll takes a waiting put's element: so shutdownNow()
                // returns a task whose submitter waits in put(), and that put returns.
                return r == null && queue.capacityMode == TurntableQueue.Capacity.HAND_OFF ? queue.handOffMode.waitingPuts.claim() : r;
            }
            if ((r = victim.queue.poll()) != null) {
                queue.handOffMode.handOffTakenBack(victim);
                return r;
            }
        }
    }

    private Runnable pollShared() {
        foreignSharedTakes.incrementAndGet(); // see foreignSharedTakes
        try {
            Runnable r = queue.shared.poll();
            if (r != null) {
                queue.sharedCount.decrementAndGet();
            }
            return r;
        } finally {
            foreignSharedTakes.decrementAndGet();
        }
    }

    /**
     * Whether the shared queue's head runs before the workers' own queues: while some worker
     * still has to take what it held when that worker attached (TurntableQueue.findEngineWork), or when no
     * worker has a task queued. Else the workers' queues hold the older tasks (while tasks wait
     * in the shared queue, new ones join it). For the foreign reads (poll, peek, drain,
     * iteration), which should see a single worker's tasks in the order it runs them; a racy
     * read of the owners' counts, which can only misorder tasks racing with their own start.
     */
    private boolean sharedRunsFirst() {
        for (WorkerSlot o : queue.slots) {
            if (o.sharedFirstTakes > 0 && o.state == WorkerSlot.ATTACHED) {
                return true;
            }
        }
        return false;
    }

    /** {@link TurntableQueue#peek()}, in the order of {@link #sharedRunsFirst}. */
    Runnable peek() {
        boolean sharedFirst = sharedRunsFirst();
        Runnable r = sharedFirst ? queue.shared.peek() : null;
        if (r == null) {
            for (WorkerSlot o : queue.slots) {
                if ((r = o.queue.peek()) != null) {
                    break;
                }
            }
        }
        if (r == null && !sharedFirst) {
            r = queue.shared.peek();
        }
        if (r == null && queue.classes != null && queue.classes.hasWaiting()) {
            List<Runnable> waiting = new ArrayList<>();
            queue.classes.addWaitingTo(waiting);
            r = waiting.isEmpty() ? null : waiting.get(0);
        }
        if (r == null && queue.replaced != null) {
            return queue.replaced.peek();
        }
        return r == null ? null : TimedTask.unwrap(r);
    }

    /** {@link TurntableQueue#size()}: every task waiting, including those on the move. */
    int size() {
        for (int attempt = 1; ; attempt++) {
            // Where tasks come from, then where they go, then the moves under way. A move that
            // began after we read its source we counted there; one under way at the end is in
            // inTransit; one that ended meanwhile raised moves (before its transit count
            // dropped): read again. One that ended before we began is at its destination.
            long seen = queue.moves.get();
            long n = 0;
            ClassScheduler cs = queue.classes;
            if (cs != null) {
                // Stopped restartable tasks on their way back count as waiting: a shut-down
                // ThreadPoolExecutor must not let its last worker go (or terminate) before they
                // are back, or they would be put back where nothing runs them. Once shutdownNow()
                // has begun they will not be put back (see ownerStopping), so they no longer
                // count. Stopped ones before the waiting count: a put-back raises the waiting
                // count, then lowers this one.
                n += (queue.ownerStopping ? 0 : cs.stoppedNotBackCount()) + cs.waitingCount();
            }
            for (WorkerSlot o : queue.slots) {
                n += o.queue.size();
            }
            n += queue.sharedCount.get();
            if (queue.owner != null) {
                n += queue.handOffMode.waitingPuts.count(); // hand-off only; see TurntableQueue.setOwner
            }
            if (queue.replaced != null) {
                n += queue.replaced.size(); // workers take from it; nothing moves into it
            }
            n += queue.inTransit.get();
            if (queue.moves.get() == seen || attempt == SIZE_ATTEMPTS) {
                return (int) Math.min(Integer.MAX_VALUE, Math.max(0, n));
            }
        }
    }

    /**
     * Whether any task waits: {@code size() > 0} without its sum and its re-reads, for
     * {@link TurntableQueue#queueBehindWaiting} on the submit path; the same places as
     * {@link #size()}, which it must keep in step with. Stops at the first place that holds one.
     * Reads where a move takes a task from (the workers' queues), then the transit count it
     * passes through, then where it lands (the shared queue): a move counts a task in transit
     * before it takes it, and at its destination before it lowers the transit count, so a move
     * under way as this reads is seen somewhere. Leaves out a hand-off queue's waiting puts (its
     * caller never asks a hand-off queue).
     */
    boolean any() {
        if (queue.classes != null) {
            return size() > 0; // tasks wait in their classes too: the full count
        }
        for (WorkerSlot o : queue.slots) {
            if (!o.queue.isEmpty()) {
                return true;
            }
        }
        BlockingQueue<Runnable> r = queue.replaced;
        return queue.inTransit.get() > 0 || queue.sharedCount.get() > 0 || (r != null && !r.isEmpty());
    }

    /** Reads of {@link #size()} before it settles for a count that moves may have blurred. */
    private static final int SIZE_ATTEMPTS = 4;

    /**
     * Threads other than workers (a {@code poll} or {@code remove} of the application's, a
     * DiscardOldest rejection, {@code execute()}'s remove-and-reject during shutdown) between
     * taking a task from the shared queue and counting it gone: a drain waits for 0, as for the
     * workers' own flags, so {@code size()} counts no task once {@code shutdownNow()}'s drain has
     * returned. One counter for all of them: these takes are rare and off the task path.
     * Incremented (a full fence) before the take's CAS, decremented after the count.
     */
    private final AtomicInteger foreignSharedTakes = new AtomicInteger();

    /** {@link TurntableQueue#drainTo(Collection, int)}, waiting out tasks on the move and shared-queue takes. */
    int drainTo(Collection<? super Runnable> c, int maxElements) {
        Objects.requireNonNull(c, "collection");
        if (c == queue) {
            throw new IllegalArgumentException("cannot drain a queue into itself");
        }
        int n = 0;
        for (;;) {
            long seen = queue.moves.get();
            Runnable r;
            while (n < maxElements && (r = pollAny()) != null) {
                queue.releasePermit();
                ClassScheduler.released(r);
                c.add(TimedTask.unwrap(r));
                n++;
            }
            if (n < maxElements && queue.replaced != null) {
                n += queue.replaced.drainTo(c, maxElements - n); // held no place of ours
            }
            if (n >= maxElements) {
                return n;
            }
            // A task on the move (a worker leaving during shutdownNow, say) was in no queue we
            // could see: wait for it to land, and drain again if anything landed meanwhile.
            awaitNoTransit();
            if (queue.moves.get() == seen) {
                awaitNoSharedClaim(); // so that size() no longer counts a task a worker took
                return n;
            }
        }
    }

    /** {@link TurntableQueue#remove(Object)}: one waiting task equal to {@code o}. */
    boolean remove(Object o) {
        if (o == null) {
            return false;
        }
        for (;;) {
            long seen = queue.moves.get();
            if (removeOnce(o)) {
                return true;
            }
            // Not seen: unless it was on the move between queues while we looked. (This is what
            // ThreadPoolExecutor's execute() relies on to reject a task offered during shutdown.)
            awaitNoTransit();
            if (queue.moves.get() == seen) {
                return false;
            }
        }
    }

    private boolean removeOnce(Object o) {
        for (Runnable e : queue.shared) {
            if (matches(e, o)) {
                boolean removed;
                foreignSharedTakes.incrementAndGet(); // see foreignSharedTakes
                try {
                    removed = queue.shared.remove(e);
                    if (removed) {
                        queue.sharedCount.decrementAndGet();
                    }
                } finally {
                    foreignSharedTakes.decrementAndGet();
                }
                if (removed) {
                    queue.releasePermit();
                    ClassScheduler.released(e);
                    return true;
                }
            }
        }
        ClassScheduler cs = queue.classes;
        if (cs != null && cs.removeWaiting(o) != null) {
            queue.releasePermit();
            return true;
        }
        for (WorkerSlot s : queue.slots) {
            if (queueContains(s, o) && removeFrom(s, o)) {
                return true;
            }
        }
        return queue.replaced != null && queue.replaced.remove(o);
    }

    private static boolean matches(Runnable element, Object o) {
        Runnable task = TimedTask.unwrap(element);
        return task == o || o.equals(task);
    }

    private static boolean queueContains(WorkerSlot s, Object o) {
        for (Runnable e : s.queue) {
            if (matches(e, o)) {
                return true;
            }
        }
        return false;
    }

    private boolean removeFrom(WorkerSlot s, Object o) {
        // Read before counting: see TurntableQueue.emptyClaimEnded.
        WeakReference<ThreadPoolExecutor> ownerAtCount = queue.owner;
        int n = s.queue.size();
        List<Runnable> held = new ArrayList<>(n);
        boolean found = false;
        boolean claimedNothing = false;
        try {
            for (int k = 0; k < n; k++) {
                Runnable e = queue.countedClaim(s.queue, removalProbe); // size() never dips
                if (e == null) {
                    claimedNothing = true;
                    break;
                }
                if (!found && matches(e, o)) {
                    found = true;
                    ClassScheduler.released(e);
                    queue.inTransit.decrementAndGet();
                    continue;
                }
                held.add(e);
            }
        } finally {
            // While we held them the worker looked emptier than it is, and submitters may have
            // filled it: under max-concurrent-tasks each goes back only into a place reserved
            // like a submitter's, and what no longer fits goes where every worker looks.
            int limit = queue.maxConcurrentTasks;
            for (Runnable e : held) {
                if (!pushWithinLimit(s, e, limit)) {
                    queue.shared.offer(e);
                    queue.sharedCount.incrementAndGet();
                }
                queue.moves.incrementAndGet();
                queue.inTransit.decrementAndGet();
            }
            if (!held.isEmpty()) {
                queue.signalPushed(s);
                queue.wakeOneParked();
            }
        }
        if (found) {
            queue.releasePermit();
            queue.handOffMode.handOffTakenBack(s);
        }
        if (claimedNothing) {
            // A worker took the task after our look: for that instant size() counted a task
            // that was not there, and a shut-down owner's tryTerminate may have read it.
            queue.emptyClaimEnded(ownerAtCount);
        }
        return found;
    }

    /** Pushes onto {@code s}'s queue if it has room, and a reserved place when {@code limit > 0}. */
    private static boolean pushWithinLimit(WorkerSlot s, Runnable element, int limit) {
        return limit <= 0 ? s.queue.offer(element) : s.tryReserve(limit) && s.offerReserved(element);
    }

    /**
     * The waiting tasks, in the order a single worker would run them ({@link #sharedRunsFirst}).
     * Read as {@link #size()} reads: where moves start
     * (class jobs, worker queues), then where they end (the shared queue), after any move under
     * way has landed, and again if one ended meanwhile (up to {@value #SIZE_ATTEMPTS} times): a
     * task moving from a leaving worker's queue to the shared queue between the two reads would
     * otherwise be in neither, and {@code ThreadPoolExecutor.purge()} would skip it. A move that
     * outlasts every attempt shows its task twice rather than not at all.
     */
    List<Runnable> snapshot() {
        for (int attempt = 1; ; attempt++) {
            awaitNoTransit();
            long seen = queue.moves.get();
            List<Runnable> sources = new ArrayList<>();
            ClassScheduler cs = queue.classes;
            if (cs != null) {
                cs.addWaitingTo(sources);
            }
            for (WorkerSlot s : queue.slots) {
                for (Runnable e : s.queue) {
                    sources.add(TimedTask.unwrap(e));
                }
            }
            List<Runnable> out = new ArrayList<>(sources.size() + 8);
            List<Runnable> fromShared = new ArrayList<>();
            for (Runnable e : queue.shared) {
                fromShared.add(TimedTask.unwrap(e));
            }
            // In the order a single worker would run them (sharedRunsFirst).
            if (sharedRunsFirst()) {
                out.addAll(fromShared);
                out.addAll(sources);
            } else {
                out.addAll(sources);
                out.addAll(fromShared);
            }
            if (queue.replaced != null) {
                out.addAll(queue.replaced);
            }
            if (queue.moves.get() == seen || attempt == SIZE_ATTEMPTS) {
                return out;
            }
        }
    }

    /** {@link TurntableQueue#iterator()}: over a {@link #snapshot()}; its {@code remove} is the queue's. */
    Iterator<Runnable> iterator() {
        List<Runnable> snap = snapshot();
        return new Iterator<>() {
            private int next;
            private Runnable last;

            @Override
            public boolean hasNext() {
                return next < snap.size();
            }

            @Override
            public Runnable next() {
                if (next >= snap.size()) {
                    throw new NoSuchElementException();
                }
                last = snap.get(next++);
                return last;
            }

            @Override
            public void remove() {
                if (last == null) {
                    throw new IllegalStateException();
                }
                queue.remove(last);
                last = null;
            }
        };
    }


    /**
     * Waits until no task is on the move between queues. Moves are short and lock-free (a
     * poll and an offer, or a removal's re-queue), so this spins briefly; used by the rare
     * whole-queue operations only, never on the submit or take path.
     */
    private void awaitNoTransit() {
        spinUntilZero(queue.inTransit);
    }

    /**
     * Spins until no thread is between taking a task from the shared queue and counting it gone:
     * no other caller here ({@link #foreignSharedTakes}), no worker ({@code TurntableQueue.claimShared};
     * every slot, as a worker that took one may be leaving).
     */
    private void awaitNoSharedClaim() {
        spinUntilZero(foreignSharedTakes);
        for (WorkerSlot s : queue.slots) {
            while (s.claimingShared != 0) {
                Thread.onSpinWait();
            }
        }
    }

    /** Spins until {@code count} reads 0: for counts of short, lock-free steps under way. */
    private static void spinUntilZero(AtomicInteger count) {
        while (count.get() > 0) {
            Thread.onSpinWait();
        }
    }
}
