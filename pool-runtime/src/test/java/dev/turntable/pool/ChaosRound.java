package dev.turntable.pool;

import static dev.turntable.pool.ChaosLedger.ACCEPTED;
import static dev.turntable.pool.ChaosLedger.CHILD;
import static dev.turntable.pool.ChaosLedger.ENDER;
import static dev.turntable.pool.ChaosLedger.FAILED;
import static dev.turntable.pool.ChaosLedger.PARENT;
import static dev.turntable.pool.ChaosLedger.PLAIN;
import static dev.turntable.pool.ChaosLedger.REJECTED;
import static dev.turntable.pool.ChaosLedger.RESTARTABLE;
import static dev.turntable.pool.ChaosLedger.SELF_INTERRUPT;
import static dev.turntable.pool.ChaosLedger.SPIN;
import static dev.turntable.pool.ChaosLedger.THROWS;
import static dev.turntable.pool.ChaosLedger.idOf;

import dev.turntable.pool.ChaosConfig.Handler;
import dev.turntable.pool.ChaosExecutor.IdCallable;
import dev.turntable.pool.ChaosExecutor.IdFuture;
import dev.turntable.pool.ChaosTasks.ChaosFailure;
import dev.turntable.pool.ChaosTasks.CompletedFuture;
import dev.turntable.pool.ChaosTasks.RTask;
import dev.turntable.pool.ChaosTasks.Task;
import dev.turntable.pool.ChaosConfig.Mode;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Queue;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/** One chaos round: its configuration, pool, threads, per-task accounting and checks. */
final class ChaosRound {

    final int index;
    final long seed;
    final List<String> failures = Collections.synchronizedList(new ArrayList<>());
    final ChaosConfig config;
    final ChaosCounts counts;
    final String cfg;
    final ChaosLedger ledger;
    volatile List<Thread> submitterThreads = List.of();

    final Queue<Throwable> uncaught = new ConcurrentLinkedQueue<>();
    final Set<Thread> poolThreads = ConcurrentHashMap.newKeySet();
    final AtomicInteger threadsMade = new AtomicInteger();
    final AtomicInteger topLevelSubmitted = new AtomicInteger();
    final CountDownLatch endTrigger = new CountDownLatch(1);
    final CountDownLatch submittersDone;
    volatile boolean shutdownIssued;
    volatile boolean stopIssued;
    volatile boolean chaosStop;
    /** Per submitter: when its current put began, if before shutdown was issued; else 0. */
    final java.util.concurrent.atomic.AtomicLongArray putBeganNanos;
    volatile long shutdownNanos;

    ChaosExecutor pool;
    TurntableQueue queue;

    ChaosRound(int index, long seed, double scale, ChaosCounts counts) {
        this.index = index;
        this.seed = seed;
        this.counts = counts;
        this.config = new ChaosConfig(seed, scale);
        this.ledger = new ChaosLedger(config.total * 2 + 16);
        submittersDone = new CountDownLatch(config.submitters);
        putBeganNanos = new java.util.concurrent.atomic.AtomicLongArray(config.submitters);
        cfg = config.toString();
    }

    void count(String what) {
        counts.count(what);
    }

    void count(String what, long n) {
        counts.count(what, n);
    }

    void fail(String what) {
        if (failures.size() < 200) {
            failures.add(what);
        }
    }

    /** A thread factory of this round's: its threads are known as pool threads, their deaths recorded. */
    ThreadFactory threadFactory() {
        return new Threads();
    }

    final class Threads implements ThreadFactory {
        @Override
        public Thread newThread(Runnable r) {
            Thread t = new Thread(r, "chaos-w-" + index + "-" + threadsMade.incrementAndGet());
            t.setDaemon(true);
            t.setUncaughtExceptionHandler((th, e) -> uncaught.add(e));
            poolThreads.add(t);
            return t;
        }
    }

    /** Which submitter this thread is (-1: not a submitter), for the blocking put's timing. */
    final ThreadLocal<Integer> submitterIndex = ThreadLocal.withInitial(() -> -1);

    /** A dummy future for execute, so that a parent can wait the same way. */
    Future<?> submitOne(Runnable task, boolean viaSubmit) {
        int id = idOf(task);
        Future<?> f = null;
        try {
            if (viaSubmit) {
                f = pool.submit(task);
                ledger.remember((Runnable) f);
            } else {
                pool.execute(task);
                f = CompletedFuture.INSTANCE;
                ledger.remember(task);
            }
            ledger.outcome.set(id, ACCEPTED);
        } catch (RejectedExecutionException e) {
            ledger.outcome.set(id, REJECTED);
            if (e.getCause() instanceof InterruptedException) {
                Thread.interrupted(); // meant for that one put
            }
        } catch (ChaosFailure e) {
            ledger.outcome.set(id, ACCEPTED); // CallerRuns ran a THROWS task here
        } catch (Throwable t) {
            ledger.outcome.set(id, FAILED);
            fail("submitting task " + id + " threw " + t + "\n" + stack(t));
        }
        return f;
    }

    // ---------------------------------------------------------------- the run

    void run() throws Exception {
        pool = new ChaosExecutor(this, config.builder(new Threads(), new ChaosRejectionHandler(this, config.handler)));
        queue = pool.getTurntableQueue();
        if (config.percents != null) {
            queue.addRebalanceListener(e -> { count("rebalances"); count("rebalance stops", e.tasksStopped().values().stream().mapToInt(Integer::intValue).sum()); });
            if (config.throwingListeners) {
                queue.addRebalanceListener(e -> {
                    throw new IllegalStateException("a rebalance listener that throws");
                });
            }
        }
        if (config.throwingListeners) {
            // listed first and last: neither may keep a worker from retiring, nor the next listener from hearing
            queue.addRetirementListener(w -> {
                throw new IllegalStateException("a retirement listener that throws");
            });
        }
        queue.addRetirementListener(w -> count("retirement notices"));
        if (config.throwingListeners) {
            queue.addRetirementListener(w -> {
                throw new Error("a retirement listener that throws an Error");
            });
        }
        count("rounds");
        count("mode " + config.mode);
        count("ending " + (config.endWithShutdownNow ? "shutdownNow" : "shutdown"));

        ChaosSubmitters feed = new ChaosSubmitters(this);
        List<Thread> subs = new ArrayList<>();
        for (int s = 0; s < config.submitters; s++) {
            int si = s;
            long subSeed = seed * 31 + s;
            Thread t = new Thread(() -> feed.submitter(si, new Random(subSeed)), "chaos-sub-" + s);
            t.setDaemon(true);
            subs.add(t);
        }
        List<Thread> changers = new ArrayList<>();
        for (int c = 0; c < (config.twoChangers ? 2 : 1); c++) {
            Thread t = new Thread(new ChaosChanger(this, new Random(seed * 17 + 5 + c), !config.twoChangers), "chaos-changer-" + c);
            t.setDaemon(true);
            changers.add(t);
            t.start();
        }
        if (config.taker) {
            Thread t = new Thread(feed::taker, "chaos-taker");
            t.setDaemon(true);
            changers.add(t); // stopped with the changers
            t.start();
        }
        submitterThreads = List.copyOf(subs);
        subs.forEach(Thread::start);

        long t0 = System.nanoTime();
        if (!endTrigger.await(60, TimeUnit.SECONDS)) {
            fail("submitters stalled: " + topLevelSubmitted.get() + " of " + config.submitters * config.perSubmitter
                    + " submitted after 60 s; " + describe() + "\n" + dumpThreads());
        }
        if (config.quiesce) {
            quiesce(changers);
        }
        List<Runnable> unrun = new ArrayList<>();
        long t1 = System.nanoTime();
        count("ms: submitting (and quiesce)", TimeUnit.NANOSECONDS.toMillis(t1 - t0));
        if (config.endFromWorker) {
            // The ending issued by a task of the pool's own, on a worker thread.
            // It may be rejected, dropped, taken back, or wait in a class with a 0% share: then,
            // or if it has not run within 2 s, the driver ends the round itself.
            int id = ledger.newId(ENDER);
            if (id >= 0) {
                submitOne(new Task(this, id), false);
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
                while (!ended.await(1, TimeUnit.MILLISECONDS) && System.nanoTime() < until
                        && ledger.outcome.get(id) == ACCEPTED && ledger.discarded.get(id) == 0 && ledger.victim.get(id) == 0
                        && ledger.removed.get(id) == 0) {
                    // polling: the outcomes have no latch of their own
                }
            }
            count(ended.getCount() == 0 ? "ended from a worker" : "ender did not run: ended from the driver");
        }
        end(); // nothing if the ender did it
        unrun.addAll(endList);
        boolean terminated = pool.awaitTermination(ChaosTest.TERMINATION_SECONDS, TimeUnit.SECONDS);
        if (!terminated) {
            count("TERMINATION HANG");
            fail("HANG: not terminated " + ChaosTest.TERMINATION_SECONDS + " s after "
                    + (config.endWithShutdownNow ? "shutdownNow" : "shutdown") + ": " + describe() + "\n" + dumpThreads());
            stopIssued = true;
            unrun.addAll(pool.shutdownNow());
            if (!pool.awaitTermination(ChaosTest.TERMINATION_SECONDS, TimeUnit.SECONDS)) {
                fail("HANG: not terminated even after a later shutdownNow: " + describe());
            }
        }
        long t2 = System.nanoTime();
        count("ms: termination", TimeUnit.NANOSECONDS.toMillis(t2 - t1));
        stopChangers(changers);
        endSubmitters(subs);
        count("ms: submitters' end", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t2));
        if (terminated) {
            threadsGone();
        }
        account(unrun, terminated);
    }

    final java.util.concurrent.atomic.AtomicBoolean endDone = new java.util.concurrent.atomic.AtomicBoolean();
    final CountDownLatch ended = new CountDownLatch(1);
    volatile List<Runnable> endList = List.of();

    /** The round's ending, once: from the driver, or from the ENDER task on a worker. */
    void end() {
        if (!endDone.compareAndSet(false, true)) {
            return;
        }
        shutdownNanos = System.nanoTime();
        shutdownIssued = true;
        try {
            if (config.endWithShutdownNow) {
                stopIssued = true;
                endList = pool.shutdownNow();
            } else {
                pool.shutdown();
            }
        } finally {
            ended.countDown();
        }
    }

    void stopChangers(List<Thread> changers) throws InterruptedException {
        chaosStop = true;
        for (Thread t : changers) {
            t.join(TimeUnit.SECONDS.toMillis(30));
            if (t.isAlive()) {
                fail("chaos thread stuck\n" + dumpThreads());
            }
        }
    }

    /**
     * Liveness: with the submitters done and the settings left alone, every accepted task runs
     * (or was dropped, removed or returned) while the pool keeps running: a task left in a
     * queue beside idle workers would otherwise only show as a late run at shutdown. Not for
     * tasks of a class with a 0% share, which wait by design: such classes are switched off.
     */
    void quiesce(List<Thread> changers) throws InterruptedException {
        if (!submittersDone.await(60, TimeUnit.SECONDS)) {
            return; // reported as stalled already
        }
        stopChangers(changers);
        dev.turntable.pool.classes.ClassConfig c = queue.classConfig();
        if (c != null && c.normalisedPercents().containsValue(0)) {
            queue.setTaskClasses(null, null);
            count("quiesce: classes with a 0% share switched off");
        }
        count("quiesce rounds");
        // Slow progress is allowed (a parent on a pool's only worker may wait its full 20 ms for a
        // child that its class will not start meanwhile): a stall is no task ending for
        // ChaosTest.QUIESCE_SECONDS, or far too long in all.
        long start = System.nanoTime();
        long progressAt = start;
        long lastDispatches = -1;
        List<Integer> open;
        for (;;) {
            open = ledger.unresolved();
            if (open.isEmpty() && queue.size() == 0 && pool.getActiveCount() == 0) {
                if (System.nanoTime() - start > TimeUnit.SECONDS.toNanos(5)) {
                    count("quiesce took over 5 s");
                }
                return;
            }
            long now = System.nanoTime();
            long d = pool.getCompletedTaskCount() + open.size() * 1_000_000L;
            if (d != lastDispatches) {
                lastDispatches = d;
                progressAt = now;
            }
            if (now - progressAt > TimeUnit.SECONDS.toNanos(ChaosTest.QUIESCE_SECONDS)
                    || now - start > TimeUnit.SECONDS.toNanos(6 * ChaosTest.QUIESCE_SECONDS)) {
                break;
            }
            LockSupport.parkNanos(1_000_000L); // Awaitility-style polling: the state has no latch of its own
        }
        count("QUIESCE STALL");
        fail("STALL: with the pool running and settings left alone, " + open.size() + " accepted tasks have not run "
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms after the last submission (the last"
                + " progress " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - progressAt) + " ms ago): "
                + head(open) + "; size " + queue.size() + " active " + pool.getActiveCount() + " " + describe()
                + "\n" + dumpThreads());
    }

    /**
     * After termination every worker thread ends (a thread stuck in the engine on its way out
     * would leak), and then no slot is left attached to a dead thread.
     */
    void threadsGone() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        for (Thread t : poolThreads) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left > 0) {
                t.join(left);
            }
            if (t.isAlive()) {
                fail("worker thread " + t.getName() + " still alive 10 s after termination: " + t.getState()
                        + "\n" + dumpThreads());
                return;
            }
        }
        for (WorkerInfo w : queue.workers()) {
            if (!w.state().equals("RETIRED") || w.queued() != 0 || w.running() != 0) {
                fail("after termination, with every worker thread gone, slot " + w);
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
        while (!submittersDone.await(1, TimeUnit.MILLISECONDS)) {
            if (pool.isTerminated()) {
                for (int s = 0; s < subs.size(); s++) {
                    Thread t = subs.get(s);
                    if (t.isAlive() && LockSupport.getBlocker(t) == queue) {
                        count("submitter stranded in put after termination");
                        long began = putBeganNanos.get(s);
                        if (began != 0 && shutdownNanos - began > TimeUnit.MILLISECONDS.toNanos(10)) {
                            fail("a put that began " + TimeUnit.NANOSECONDS.toMicros(shutdownNanos - began)
                                    + " us before " + (config.endWithShutdownNow ? "shutdownNow()" : "shutdown()")
                                    + " waits after termination (" + t.getName() + ")\n" + dumpThreads());
                        }
                        t.interrupt();
                    }
                }
            }
            if (System.nanoTime() > deadline) {
                fail("submitters still running 30 s after termination: " + describe() + "\n" + dumpThreads());
                return;
            }
        }
    }

    // ---------------------------------------------------------------- accounting

    void account(List<Runnable> unrun, boolean terminated) {
        Map<Integer, Integer> returned = new java.util.HashMap<>();
        Map<Runnable, Boolean> seen = new IdentityHashMap<>();
        for (Runnable r : unrun) {
            int id = idOf(r);
            if (id < 0) {
                fail("shutdownNow returned a foreign runnable " + r.getClass().getName() + " " + r);
                continue;
            }
            if (seen.put(r, Boolean.TRUE) != null) {
                fail("shutdownNow returned " + r + " twice");
            }
            returned.merge(id, 1, Integer::sum);
        }
        count("returned by shutdownNow", unrun.size());
        if (terminated) {
            List<Runnable> left = new ArrayList<>();
            queue.drainTo(left);
            if (!left.isEmpty()) {
                fail("left in the queue after termination: " + left.size() + " " + head(left));
            }
            int size = queue.size();
            if (size != 0) {
                fail("size() " + size + " after termination (drainTo found " + left.size() + ")");
            }
            Map<String, Integer> running = queue.getRunningTasksByClass();
            Map<String, Integer> waiting = queue.getWaitingTasksByClass();
            if (running.values().stream().anyMatch(v -> v != 0) || waiting.values().stream().anyMatch(v -> v != 0)) {
                fail("class counts after termination: running " + running + " waiting " + waiting);
            }
        }
        long totalDispatched = ledger.checkEveryTask(this, returned);
        if (terminated) {
            long completed = pool.getCompletedTaskCount();
            long restarted = queue.getRestartedTaskCount();
            if (completed != totalDispatched - restarted) {
                fail("getCompletedTaskCount() " + completed + " but " + totalDispatched + " dispatched and "
                        + restarted + " restarted");
            }
            count("tasks dispatched", totalDispatched);
            count("restarts (engine)", restarted);
            count("retired workers", queue.getRetiredWorkerCount());
        }
        for (Throwable t : uncaught) {
            if (!(t instanceof ChaosFailure)) {
                fail("uncaught in a worker: " + t + "\n" + stack(t));
            }
        }
        count("threads made", threadsMade.get());
        if (queue.slots.length > 64) {
            count("rounds with over 64 worker slots");
        }
    }

    String describe() {
        StringBuilder sb = new StringBuilder();
        sb.append(pool).append(" size ").append(queue.size()).append(" workers ");
        try {
            sb.append(queue.workers());
        } catch (RuntimeException e) {
            sb.append("(workers() threw ").append(e).append(')');
        }
        sb.append(" classes running ").append(queue.getRunningTasksByClass()).append(" waiting ")
                .append(queue.getWaitingTasksByClass());
        return sb.toString();
    }

    static String head(List<?> l) {
        return l.subList(0, Math.min(10, l.size())).toString();
    }

    static String stack(Throwable t) {
        java.io.StringWriter w = new java.io.StringWriter();
        t.printStackTrace(new java.io.PrintWriter(w));
        return w.toString();
    }

    static String dumpThreads() {
        StringBuilder sb = new StringBuilder("---- threads ----\n");
        for (ThreadInfo ti : ManagementFactory.getThreadMXBean().dumpAllThreads(true, true)) {
            sb.append('"').append(ti.getThreadName()).append("\" ").append(ti.getThreadState());
            if (ti.getLockName() != null) {
                sb.append(" on ").append(ti.getLockName());
            }
            if (ti.getLockOwnerName() != null) {
                sb.append(" owned by ").append(ti.getLockOwnerName());
            }
            sb.append('\n');
            for (StackTraceElement e : ti.getStackTrace()) {
                sb.append("    at ").append(e).append('\n');
            }
        }
        return sb.toString();
    }
}
