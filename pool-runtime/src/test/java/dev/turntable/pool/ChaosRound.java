package dev.turntable.pool;

import static dev.turntable.pool.ChaosLedger.ACCEPTED;
import static dev.turntable.pool.ChaosLedger.ENDER;
import static dev.turntable.pool.ChaosLedger.FAILED;
import static dev.turntable.pool.ChaosLedger.REJECTED;
import static dev.turntable.pool.ChaosLedger.idOf;

import dev.turntable.pool.ChaosTasks.ChaosFailure;
import dev.turntable.pool.ChaosTasks.CompletedFuture;
import dev.turntable.pool.ChaosTasks.Task;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * One chaos round's shared state: its configuration and ledger, the pool, the threads it made,
 * the flags of its ending, its failures; and the few operations that every part uses (submitting
 * one task, the ending, a description of the pool for a failure message). {@link ChaosTest} plays
 * the round; the parts are {@link ChaosSubmitters}, {@link ChaosChanger}, the tasks in
 * {@link ChaosTasks}, {@link ChaosRejectionHandler} and {@link ChaosChecks}.
 */
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
    final AtomicLongArray putBeganNanos;
    /** Which submitter this thread is (-1: not a submitter), for the blocking put's timing. */
    final ThreadLocal<Integer> submitterIndex = ThreadLocal.withInitial(() -> -1);
    volatile long shutdownNanos;
    final AtomicBoolean endDone = new AtomicBoolean();
    final CountDownLatch ended = new CountDownLatch(1);
    /** What shutdownNow() returned, if the round ended with it. */
    volatile List<Runnable> endList = List.of();

    ChaosExecutor pool;
    TurntableQueue queue;

    ChaosRound(int index, long seed, double scale, ChaosCounts counts) {
        this.index = index;
        this.seed = seed;
        this.counts = counts;
        this.config = new ChaosConfig(seed, scale);
        this.ledger = new ChaosLedger(config.total * 2 + 16);
        submittersDone = new CountDownLatch(config.submitters);
        putBeganNanos = new AtomicLongArray(config.submitters);
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

    /**
     * Submits one task ({@code submit} or {@code execute}) and records its outcome. For
     * {@code execute}, a dummy future, so that a parent can wait the same way; null if refused.
     */
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

    /** The pool as configured, with this round's listeners (some of which throw). */
    void buildPool() {
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
    }

    /**
     * The ending issued by a task of the pool's own, on a worker thread. It may be rejected,
     * dropped, taken back, or wait in a class with a 0% share: then, or if it has not run within
     * 2 s, the driver ends the round itself.
     */
    void endFromWorker() throws InterruptedException {
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
        StringWriter w = new StringWriter();
        t.printStackTrace(new PrintWriter(w));
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
