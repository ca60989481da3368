package dev.turntable.pool;

import dev.turntable.pool.classes.ClassConfig;
import dev.turntable.pool.classes.Requestor;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The jobs of a {@link ClassScheduler} and the tasks waiting in them: a job is the tasks of one
 * requestor from one submitting thread, oldest first, with its counts of waiting and running
 * tasks. Threads: submitters queue tasks ({@link #offer}); the running pass
 * ({@link ClassPass}) classifies jobs, takes their heads, puts back a head it could not place
 * and retires empty jobs; a worker ending a stopped restartable task puts it back
 * ({@link ClassEndings}); and any thread drains, removes, lists and counts the waiting tasks
 * (the queue's whole-queue operations, JMX).
 */
final class ClassJobs {

    /** One requestor's tasks from one submitting thread. */
    static final class Job {
        final String requestor;
        final long threadId;
        final ConcurrentLinkedDeque<Runnable> waiting = new ConcurrentLinkedDeque<>();
        final AtomicInteger waitingCount = new AtomicInteger();
        /** Started (dispatched to a worker) and not yet finished. */
        final AtomicInteger running = new AtomicInteger();
        /** Set by a pass that found the job empty, before it removes it; see {@link ClassJobs#offer}. */
        volatile boolean retired;
        /**
         * The job's place in its class's round robin: among jobs with as many running tasks, the
         * lowest turn starts first. A ticket of {@link ClassJobs#turns}, taken when the job is
         * made and again each time a pass starts one of its tasks ({@link ClassJobs#served}),
         * so a job that has waited since before another was last served goes before it, and a
         * new one joins the end of the round. Written by its maker (before the job is
         * published), by the pass, and by a drain taking one of its tasks; volatile, as the
         * collection side reads it in any thread to list the waiting tasks in the order they
         * would start.
         */
        volatile long turn;
        /** Pass-only: class index under {@link #classifiedBy}. */
        int classIndex;
        ClassConfig classifiedBy;

        Job(String requestor, long threadId, long turn) {
            this.requestor = requestor;
            this.threadId = threadId;
            this.turn = turn;
        }
    }

    /**
     * Sorts {@code list} into round-robin order, lowest {@link Job#turn} first, by the turns
     * read once before the sort: another thread may hand a job a new turn meanwhile (a pass, a
     * drain), and a sort whose keys change under it may throw ("Comparison method violates its
     * general contract"). Any thread; allocates one small object per job.
     */
    static void sortInTurn(List<Job> list) {
        int m = list.size();
        if (m < 2) {
            return;
        }
        TurnOf[] read = new TurnOf[m];
        for (int x = 0; x < m; x++) {
            Job j = list.get(x);
            read[x] = new TurnOf(j.turn, j);
        }
        java.util.Arrays.sort(read, java.util.Comparator.comparingLong(TurnOf::turn));
        for (int x = 0; x < m; x++) {
            list.set(x, read[x].job());
        }
    }

    private record TurnOf(long turn, Job job) {
    }

    private record JobKey(String requestor, long threadId) {
    }

    private volatile Requestor requestor = Requestor.THREAD_NAME;
    private volatile String poolName = "pool";

    private final ConcurrentHashMap<JobKey, Job> jobs = new ConcurrentHashMap<>();
    private final ThreadLocal<Job> lastJob = new ThreadLocal<>();
    private final AtomicInteger waitingTotal = new AtomicInteger();
    /**
     * Tickets for {@link Job#turn}: one per job made (rare: a submitting thread's job lives
     * while it has tasks waiting or running) and one per task a pass starts. Not per offer.
     */
    private final java.util.concurrent.atomic.AtomicLong turns = new java.util.concurrent.atomic.AtomicLong();

    void setRequestor(Requestor r) {
        requestor = r;
    }

    void setPoolName(String name) {
        poolName = name;
    }

    // ------------------------------------------------------------------ submit side

    /** Queues an offered element in its job; the caller runs a pass. Never blocks. */
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
        j = jobs.computeIfAbsent(new JobKey(req, tid), k -> new Job(k.requestor(), k.threadId(), turns.incrementAndGet()));
        lastJob.set(j);
        return j;
    }

    boolean hasWaiting() {
        return waitingTotal.get() > 0;
    }

    int waitingCount() {
        return Math.max(0, waitingTotal.get());
    }

    // ------------------------------------------------------------------ pass side

    /** Every job, live or about to be retired, in the job map's order. */
    Collection<Job> all() {
        return jobs.values();
    }

    /**
     * A task of {@code j} was started by the pass, or taken out by a drain or poll: the job goes
     * to the end of its class's round. Any thread; two at once (a pass, and a drain) may hand
     * out their tickets in either order, which only orders those two jobs either way.
     */
    void served(Job j) {
        j.turn = turns.incrementAndGet();
    }

    /** Every job, in round-robin order ({@link #sortInTurn}): a copy, for the collection side. */
    private List<Job> inTurnOrder() {
        List<Job> out = new java.util.ArrayList<>(jobs.values());
        sortInTurn(out);
        return out;
    }

    /** Pass only: removes {@code j}, which the pass found with nothing waiting or running, unless a task came meanwhile. */
    void retireIfEmpty(Job j) {
        j.retired = true;
        // Volatile write, then read the count: pairs with offer's increment-then-read of retired.
        if (j.waitingCount.get() > 0 || j.running.get() > 0) {
            j.retired = false;
            return;
        }
        jobs.remove(new JobKey(j.requestor, j.threadId), j);
    }

    /** Pass only: the pass took {@code j}'s head to start it as a classed task; it now runs in {@code j}. */
    void tookToStart(Job j) {
        j.waitingCount.decrementAndGet();
        j.running.incrementAndGet();
        waitingTotal.decrementAndGet();
    }

    /** Pass only: the pass took {@code j}'s head to hand it to the workers as a plain task (classes off). */
    void tookToFlush(Job j) {
        j.waitingCount.decrementAndGet();
        waitingTotal.decrementAndGet();
    }

    /** A task taken from the head of its job that could not be placed, or that was stopped, goes back there. */
    void putBack(Job j, Runnable e) {
        j.waitingCount.incrementAndGet();
        waitingTotal.incrementAndGet();
        j.waiting.addFirst(e);
    }

    // ------------------------------------------------------------------ collection side

    /**
     * Takes waiting tasks out (drainTo, shutdownNow): one from each job per round, jobs in
     * round-robin order, each job's oldest task first. Within a class that is the order passes
     * would start them if every job had as many running tasks; across classes it ignores the
     * plan (a drain does not know it). A single submitting thread's tasks come out in
     * submission order. Returns elements.
     */
    int drainWaiting(Collection<? super Runnable> c, int max) {
        int[] n = {0};
        inRounds(inTurnOrder(), j -> {
            if (n[0] >= max) {
                return false;
            }
            Runnable e = j.waiting.pollFirst();
            if (e == null) {
                return false;
            }
            j.waitingCount.decrementAndGet();
            waitingTotal.decrementAndGet();
            served(j); // a drain of one at a time (poll, drainTo's loop) goes round too
            c.add(e);
            n[0]++;
            return true;
        });
        return n[0];
    }

    /**
     * Goes round {@code order} (reordering it): each round asks every job still in it for one
     * task ({@code tookOne}), and a job that gives none leaves the round; ends when none is left.
     * O(tasks + jobs), where going over every job each round cost 1.2 s for 2,000 one-task jobs
     * beside one of 100,000 (shutdownNow drains under the executor's main lock). Any thread, on
     * a list of its own.
     */
    static void inRounds(List<Job> order, java.util.function.Predicate<Job> tookOne) {
        int live = order.size();
        while (live > 0) {
            int kept = 0;
            for (int x = 0; x < live; x++) {
                Job j = order.get(x);
                if (tookOne.test(j)) {
                    order.set(kept++, j);
                }
            }
            live = kept;
        }
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

    /** Adds the waiting tasks to {@code out} in the order {@link #drainWaiting} would take them. */
    void addWaitingTo(List<Runnable> out) {
        List<Job> order = inTurnOrder();
        List<java.util.Iterator<Runnable>> its = new java.util.ArrayList<>(order.size());
        for (Job j : order) {
            its.add(j.waiting.iterator());
        }
        int live = its.size();
        while (live > 0) {
            int kept = 0; // as in drainWaiting: a job with nothing left leaves the round
            for (int x = 0; x < live; x++) {
                java.util.Iterator<Runnable> it = its.get(x);
                if (it.hasNext()) {
                    out.add(TimedTask.unwrap(it.next()));
                    its.set(kept++, it);
                }
            }
            live = kept;
        }
    }

    /** Per class name of {@code c} (null: classes off, none): [waiting, running], in the configuration's class order. */
    Map<String, int[]> countsByClass(ClassConfig c) {
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
}
