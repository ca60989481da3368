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
        /** Pass-only: class index under {@link #classifiedBy}. */
        int classIndex;
        ClassConfig classifiedBy;

        Job(String requestor, long threadId) {
            this.requestor = requestor;
            this.threadId = threadId;
        }
    }

    private record JobKey(String requestor, long threadId) {
    }

    private volatile Requestor requestor = Requestor.THREAD_NAME;
    private volatile String poolName = "pool";

    private final ConcurrentHashMap<JobKey, Job> jobs = new ConcurrentHashMap<>();
    private final ThreadLocal<Job> lastJob = new ThreadLocal<>();
    private final AtomicInteger waitingTotal = new AtomicInteger();

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

    // ------------------------------------------------------------------ pass side

    /** Every job, live or about to be retired, in the job map's order. */
    Collection<Job> all() {
        return jobs.values();
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
     * Takes waiting tasks out (drainTo, shutdownNow), job by job in the job map's order, which
     * is its hash order, not the jobs' age; each job's oldest task first. Returns elements.
     */
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
