package dev.turntable.pool;

import static dev.turntable.pool.ChaosLedger.idOf;
import static dev.turntable.pool.ChaosRound.dumpThreads;
import static dev.turntable.pool.ChaosRound.head;
import static dev.turntable.pool.ChaosRound.stack;

import dev.turntable.pool.ChaosTasks.ChaosFailure;
import dev.turntable.pool.classes.ClassConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A chaos round's checks of the pool as a whole: liveness while it runs (in some rounds, once the
 * submitters are done and the settings left alone), and after termination that every worker
 * thread ends, no submitter is left in a put that should have been taken, nothing is left queued
 * or counted in a class, every task had exactly one fate ({@link ChaosLedger}), and
 * {@code getCompletedTaskCount()} = dispatches - restarts.
 */
final class ChaosChecks {

    private static final long QUIESCE_SECONDS = ChaosTest.QUIESCE_SECONDS;

    private final ChaosRound round;

    ChaosChecks(ChaosRound round) {
        this.round = round;
    }

    /**
     * Liveness: with the submitters done and the settings left alone, every accepted task runs
     * (or was dropped, removed or returned) while the pool keeps running: a task left in a
     * queue beside idle workers would otherwise only show as a late run at shutdown. Not for
     * tasks of a class with a 0% share, which wait by design: such classes are switched off.
     */
    void quiesce(List<Thread> changers) throws InterruptedException {
        if (!round.submittersDone.await(60, TimeUnit.SECONDS)) {
            return; // reported as stalled already
        }
        round.stopChangers(changers);
        ClassConfig c = round.queue.classConfig();
        if (c != null && c.normalisedPercents().containsValue(0)) {
            round.queue.setTaskClasses(null, null);
            round.count("quiesce: classes with a 0% share switched off");
        }
        round.count("quiesce rounds");
        // Slow progress is allowed (a parent on a pool's only worker may wait its full 20 ms for a
        // child that its class will not start meanwhile): a stall is no task ending for
        // QUIESCE_SECONDS, or far too long in all.
        long start = System.nanoTime();
        long progressAt = start;
        long lastDispatches = -1;
        List<Integer> open;
        for (;;) {
            open = round.ledger.unresolved();
            if (open.isEmpty() && round.queue.size() == 0 && round.pool.getActiveCount() == 0) {
                if (System.nanoTime() - start > TimeUnit.SECONDS.toNanos(5)) {
                    round.count("quiesce took over 5 s");
                }
                return;
            }
            long now = System.nanoTime();
            long d = round.pool.getCompletedTaskCount() + open.size() * 1_000_000L;
            if (d != lastDispatches) {
                lastDispatches = d;
                progressAt = now;
            }
            if (now - progressAt > TimeUnit.SECONDS.toNanos(QUIESCE_SECONDS)
                    || now - start > TimeUnit.SECONDS.toNanos(6 * QUIESCE_SECONDS)) {
                break;
            }
            LockSupport.parkNanos(1_000_000L); // Awaitility-style polling: the state has no latch of its own
        }
        round.count("QUIESCE STALL");
        round.fail("STALL: with the pool running and settings left alone, " + open.size() + " accepted tasks have not run "
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms after the last submission (the last"
                + " progress " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - progressAt) + " ms ago): "
                + head(open) + "; size " + round.queue.size() + " active " + round.pool.getActiveCount() + " " + round.describe()
                + "\n" + dumpThreads());
    }

    /**
     * After termination every worker thread ends (a thread stuck in the engine on its way out
     * would leak), and then no slot is left attached to a dead thread.
     */
    void threadsGone() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        for (Thread t : round.poolThreads) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left > 0) {
                t.join(left);
            }
            if (t.isAlive()) {
                round.fail("worker thread " + t.getName() + " still alive 10 s after termination: " + t.getState()
                        + "\n" + dumpThreads());
                return;
            }
        }
        for (WorkerInfo w : round.queue.workers()) {
            if (!w.state().equals("RETIRED") || w.queued() != 0 || w.running() != 0) {
                round.fail("after termination, with every worker thread gone, slot " + w);
            }
        }
    }

    /** After termination: submitters finish (rejected); one waiting in a put no one will take is interrupted. */
    void endSubmitters(List<Thread> subs) throws InterruptedException {
        // A hand-off put that begins after the pool terminated waits for ever (as with a
        // SynchronousQueue): once the pool has terminated, a submitter waiting in our queue
        // is interrupted. One whose put began well before shutdown() should have been taken
        // (a worker kept for it, or returned by shutdownNow): that is a failure.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!round.submittersDone.await(1, TimeUnit.MILLISECONDS)) {
            if (round.pool.isTerminated()) {
                for (int s = 0; s < subs.size(); s++) {
                    Thread t = subs.get(s);
                    if (t.isAlive() && LockSupport.getBlocker(t) == round.queue) {
                        round.count("submitter stranded in put after termination");
                        long began = round.putBeganNanos.get(s);
                        if (began != 0 && round.shutdownNanos - began > TimeUnit.MILLISECONDS.toNanos(10)) {
                            round.fail("a put that began " + TimeUnit.NANOSECONDS.toMicros(round.shutdownNanos - began)
                                    + " us before " + (round.config.endWithShutdownNow ? "shutdownNow()" : "shutdown()")
                                    + " waits after termination (" + t.getName() + ")\n" + dumpThreads());
                        }
                        t.interrupt();
                    }
                }
            }
            if (System.nanoTime() > deadline) {
                round.fail("submitters still running 30 s after termination: " + round.describe() + "\n" + dumpThreads());
                return;
            }
        }
    }

    void account(List<Runnable> unrun, boolean terminated) {
        Map<Integer, Integer> returned = new HashMap<>();
        Map<Runnable, Boolean> seen = new IdentityHashMap<>();
        for (Runnable r : unrun) {
            int id = idOf(r);
            if (id < 0) {
                round.fail("shutdownNow returned a foreign runnable " + r.getClass().getName() + " " + r);
                continue;
            }
            if (seen.put(r, Boolean.TRUE) != null) {
                round.fail("shutdownNow returned " + r + " twice");
            }
            returned.merge(id, 1, Integer::sum);
        }
        round.count("returned by shutdownNow", unrun.size());
        if (terminated) {
            List<Runnable> left = new ArrayList<>();
            round.queue.drainTo(left);
            if (!left.isEmpty()) {
                round.fail("left in the queue after termination: " + left.size() + " " + head(left));
            }
            int size = round.queue.size();
            if (size != 0) {
                round.fail("size() " + size + " after termination (drainTo found " + left.size() + ")");
            }
            Map<String, Integer> running = round.queue.getRunningTasksByClass();
            Map<String, Integer> waiting = round.queue.getWaitingTasksByClass();
            if (running.values().stream().anyMatch(v -> v != 0) || waiting.values().stream().anyMatch(v -> v != 0)) {
                round.fail("class counts after termination: running " + running + " waiting " + waiting);
            }
        }
        long totalDispatched = round.ledger.checkEveryTask(round, returned);
        if (terminated) {
            long completed = round.pool.getCompletedTaskCount();
            long restarted = round.queue.getRestartedTaskCount();
            if (completed != totalDispatched - restarted) {
                round.fail("getCompletedTaskCount() " + completed + " but " + totalDispatched + " dispatched and "
                        + restarted + " restarted");
            }
            round.count("tasks dispatched", totalDispatched);
            round.count("restarts (engine)", restarted);
            round.count("retired workers", round.queue.getRetiredWorkerCount());
        }
        for (Throwable t : round.uncaught) {
            if (!(t instanceof ChaosFailure)) {
                round.fail("uncaught in a worker: " + t + "\n" + stack(t));
            }
        }
        round.count("threads made", round.threadsMade.get());
        if (round.queue.slots.length > 64) {
            round.count("rounds with over 64 worker slots");
        }
    }
}
