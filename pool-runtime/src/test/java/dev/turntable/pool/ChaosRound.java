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
            Thread t = new Thread(new Chaos(new Random(seed * 17 + 5 + c), !config.twoChangers), "chaos-changer-" + c);
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

    // ---------------------------------------------------------------- chaos thread

    final class Chaos implements Runnable {
        final Random r;
        final boolean checked;

        Chaos(Random r, boolean checked) {
            this.r = r;
            this.checked = checked;
        }

        @Override
        public void run() {
            try {
                while (!chaosStop) {
                    act();
                    if (config.chaosPauseMicros > 0) {
                        LockSupport.parkNanos(r.nextInt(config.chaosPauseMicros) * 1_000L); // pacing, not waiting for state
                    } else {
                        Thread.yield();
                    }
                }
            } catch (Throwable t) {
                fail("chaos thread died: " + t + "\n" + stack(t));
            }
        }

        boolean invalid() {
            return r.nextInt(4) == 0;
        }

        void act() {
            int a = r.nextInt(28);
            if (config.rebalanceFocus && (a == 11 || a == 12 || a == 13 || a == 14 || a == 21)) {
                a = 27; // the class settings stay put: each change starts the rebalancing's clock over
            }
            count("chaos actions");
            switch (a) {
                case 0: {
                    if (invalid()) {
                        String bad = "NO_SUCH_STRATEGY_" + r.nextInt(100);
                        expectRefused("setStrategy", bad, queue::getStrategy, () -> pool.setStrategy(bad));
                    } else {
                        String s = config.strategies.get(r.nextInt(config.strategies.size()));
                        valid("setStrategy", s, queue::getStrategy, () -> pool.setStrategy(s));
                    }
                    break;
                }
                case 1: {
                    boolean on = r.nextBoolean();
                    valid("setTaskStealing", on, queue::isTaskStealing, () -> pool.setTaskStealing(on));
                    break;
                }
                case 2: {
                    if (invalid()) {
                        expectRefused("setMeasurement", null, queue::getMeasurement, () -> queue.setMeasurement(null));
                    } else {
                        dev.turntable.pool.strategy.Measurement m = dev.turntable.pool.strategy.Measurement.values()[
                                r.nextInt(dev.turntable.pool.strategy.Measurement.values().length)];
                        valid("setMeasurement", m, queue::getMeasurement, () -> queue.setMeasurement(m));
                    }
                    break;
                }
                case 3: {
                    boolean on = r.nextBoolean();
                    valid("setMedian", on, queue::isMedian, () -> queue.setMedian(on));
                    break;
                }
                case 4: {
                    boolean on = r.nextInt(3) == 0;
                    valid("setLatencyHistograms", on, queue::isLatencyHistograms, () -> queue.setLatencyHistograms(on));
                    break;
                }
                case 5: {
                    if (invalid()) {
                        long[] w = randomWeights();
                        int at = r.nextInt(w.length);
                        long bad = new long[] {0, -1, -1000, 60_001, Long.MAX_VALUE}[r.nextInt(5)];
                        w[at] = bad;
                        expectRefused("setWorkerWeightsMillis", bad, this::weightsPrefix,
                                () -> queue.setWorkerWeightsMillis(w));
                    } else {
                        long[] w = r.nextInt(5) == 0 ? null : randomWeights();
                        call("setWorkerWeightsMillis", () -> queue.setWorkerWeightsMillis(w));
                    }
                    break;
                }
                case 6: {
                    if (invalid()) {
                        int bad = -1 - r.nextInt(5);
                        expectRefused("setMaxLifetimeTasks", bad, queue::getMaxLifetimeTasks,
                                () -> pool.setMaxLifetimeTasks(bad));
                    } else {
                        int t = r.nextInt(3) == 0 ? 0 : 1 + r.nextInt(r.nextBoolean() ? 5 : 200);
                        valid("setMaxLifetimeTasks", t, queue::getMaxLifetimeTasks, () -> pool.setMaxLifetimeTasks(t));
                    }
                    break;
                }
                case 7: {
                    int n = queue.slots.length;
                    int i = invalid() ? (r.nextBoolean() ? -1 - r.nextInt(3) : n + r.nextInt(3)) : r.nextInt(Math.max(1, n));
                    try {
                        pool.recycleWorker(i);
                        count("recycleWorker done");
                        if (i < 0 || i >= n) {
                            fail("recycleWorker(" + i + ") accepted, with " + n + " slots");
                        }
                    } catch (IllegalArgumentException e) {
                        count("recycleWorker refused");
                        if (e.getMessage() == null || !e.getMessage().contains(String.valueOf(i))) {
                            fail("recycleWorker(" + i + ") refused without naming the index: " + e.getMessage());
                        }
                    }
                    break;
                }
                case 8: {
                    if (invalid()) {
                        int bad = -1 - r.nextInt(5);
                        expectRefused("setMaxConcurrentTasks", bad, queue::getMaxConcurrentTasks,
                                () -> queue.setMaxConcurrentTasks(bad));
                    } else {
                        int t = r.nextInt(3) == 0 ? 1 + r.nextInt(4) : 0;
                        valid("setMaxConcurrentTasks", t, queue::getMaxConcurrentTasks, () -> queue.setMaxConcurrentTasks(t));
                    }
                    break;
                }
                case 9: {
                    if (invalid()) {
                        long bad = r.nextBoolean() ? -1 - r.nextInt(5) : TurntableQueue.MAX_DURATION_MILLIS + 1;
                        expectRefused("setHeartbeatTimeoutMillis", bad, queue::getHeartbeatTimeoutMillis,
                                () -> queue.setHeartbeatTimeoutMillis(bad));
                    } else {
                        long ms = new long[] {0, 1, 2, 10, 60_000}[r.nextInt(5)];
                        valid("setHeartbeatTimeoutMillis", ms, queue::getHeartbeatTimeoutMillis,
                                () -> queue.setHeartbeatTimeoutMillis(ms));
                    }
                    break;
                }
                case 10: {
                    if (invalid()) {
                        long bad = r.nextBoolean() ? -1 - r.nextInt(5) : TurntableQueue.MAX_DURATION_MILLIS + 1;
                        expectRefused("setWorkerSelectTimeoutMillis", bad, queue::getWorkerSelectTimeoutMillis,
                                () -> queue.setWorkerSelectTimeoutMillis(bad));
                    } else {
                        long ms = new long[] {0, 1, 5, 20}[r.nextInt(4)];
                        valid("setWorkerSelectTimeoutMillis", ms, queue::getWorkerSelectTimeoutMillis,
                                () -> queue.setWorkerSelectTimeoutMillis(ms));
                    }
                    break;
                }
                case 11:
                case 12: {
                    classes();
                    break;
                }
                case 13: {
                    if (invalid()) {
                        int bad = r.nextBoolean() ? -1 - r.nextInt(5) : 201 + r.nextInt(100);
                        expectRefused("setRebalanceThreshold", bad, queue::getRebalanceThreshold,
                                () -> queue.setRebalanceThreshold(bad));
                    } else {
                        int t = r.nextBoolean() ? 0 : 1 + r.nextInt(60);
                        valid("setRebalanceThreshold", t, queue::getRebalanceThreshold, () -> queue.setRebalanceThreshold(t));
                    }
                    break;
                }
                case 14: {
                    if (invalid()) {
                        long bad = r.nextBoolean() ? -1 - r.nextInt(5) : TurntableQueue.MAX_DURATION_MILLIS + 1;
                        expectRefused("setRebalanceMinimumDurationMillis", bad, queue::getRebalanceMinimumDurationMillis,
                                () -> queue.setRebalanceMinimumDurationMillis(bad));
                    } else {
                        long ms = r.nextInt(4);
                        valid("setRebalanceMinimumDurationMillis", ms, queue::getRebalanceMinimumDurationMillis,
                                () -> queue.setRebalanceMinimumDurationMillis(ms));
                    }
                    break;
                }
                case 15: {
                    call("resetStatistics", queue::resetStatistics);
                    break;
                }
                case 16: {
                    int mx = pool.getMaximumPoolSize();
                    if (invalid()) {
                        int bad = r.nextBoolean() ? -1 - r.nextInt(3) : mx + 1 + r.nextInt(3);
                        expectRefused("setCorePoolSize", bad, pool::getCorePoolSize, () -> pool.setCorePoolSize(bad));
                    } else {
                        int c = r.nextInt(mx + 1);
                        if (c == 0 && config.mode == Mode.HAND_OFF && r.nextBoolean()) {
                            c = 1;
                        }
                        int cc = c;
                        valid("setCorePoolSize", cc, pool::getCorePoolSize, () -> pool.setCorePoolSize(cc));
                    }
                    break;
                }
                case 17: {
                    int c = pool.getCorePoolSize();
                    if (invalid()) {
                        int bad = r.nextBoolean() ? 0 : Math.max(1, c) - 1 - r.nextInt(2);
                        if (bad >= Math.max(1, c)) {
                            bad = 0;
                        }
                        int bb = bad;
                        expectRefused("setMaximumPoolSize", bb, pool::getMaximumPoolSize, () -> pool.setMaximumPoolSize(bb));
                    } else {
                        int m = Math.max(1, c) + r.nextInt(config.wide ? 80 : 4);
                        valid("setMaximumPoolSize", m, pool::getMaximumPoolSize, () -> pool.setMaximumPoolSize(m));
                    }
                    break;
                }
                case 18: {
                    long ka = pool.getKeepAliveTime(TimeUnit.NANOSECONDS);
                    if (invalid()) {
                        long bad = -1 - r.nextInt(5);
                        expectRefused("setKeepAliveTime", bad, () -> pool.getKeepAliveTime(TimeUnit.NANOSECONDS),
                                () -> pool.setKeepAliveTime(bad, TimeUnit.MILLISECONDS));
                    } else if (invalid() && pool.allowsCoreThreadTimeOut()) {
                        // 0 with core time-out on: refused, naming the 0 and the rule
                        expectRefused("setKeepAliveTime", 0, () -> pool.getKeepAliveTime(TimeUnit.NANOSECONDS),
                                () -> pool.setKeepAliveTime(0, TimeUnit.MILLISECONDS));
                    } else {
                        long us = pool.allowsCoreThreadTimeOut() ? 1 + r.nextInt(50_000)
                                : r.nextInt(3) == 0 ? 0 : 1 + r.nextInt(50_000);
                        valid("setKeepAliveTime", TimeUnit.MICROSECONDS.toNanos(us),
                                () -> pool.getKeepAliveTime(TimeUnit.NANOSECONDS),
                                () -> pool.setKeepAliveTime(us, TimeUnit.MICROSECONDS));
                    }
                    break;
                }
                case 19: {
                    boolean on = r.nextBoolean();
                    if (on && pool.getKeepAliveTime(TimeUnit.NANOSECONDS) == 0) {
                        refusedAnyMessage("allowCoreThreadTimeOut(true) with keep-alive 0", pool::allowsCoreThreadTimeOut,
                                () -> pool.allowCoreThreadTimeOut(true));
                    } else {
                        valid("allowCoreThreadTimeOut", on, pool::allowsCoreThreadTimeOut, () -> pool.allowCoreThreadTimeOut(on));
                    }
                    break;
                }
                case 20: {
                    Handler h = config.mode == Mode.HAND_OFF && r.nextBoolean() ? Handler.BLOCK_PUT
                            : Handler.values()[r.nextInt(Handler.values().length)];
                    ChaosRejectionHandler ch = new ChaosRejectionHandler(ChaosRound.this, h);
                    pool.setRejectedExecutionHandler(ch);
                    if (checked && pool.getRejectedExecutionHandler() != ch) {
                        fail("setRejectedExecutionHandler did not take");
                    }
                    count("handler set " + h);
                    break;
                }
                case 21: {
                    int which = r.nextInt(3);
                    if (which == 1) {
                        if (invalid()) {
                            expectRefused("setPoolName", null, () -> "unchanged", () -> queue.setPoolName(null));
                        } else {
                            String n = "chaos-pool-" + r.nextInt(3);
                            call("setPoolName", () -> queue.setPoolName(n));
                        }
                        break;
                    }
                    if (which == 2) {
                        classesOneAtATime();
                        break;
                    }
                    if (invalid()) {
                        String bad = "BOGUS_" + r.nextInt(10);
                        expectRefused("setRequestor", bad, queue::getRequestor, () -> queue.setRequestor(bad));
                    } else {
                        String s = new String[] {"THREAD_NAME", "TASK_CLASS", "POOL_NAME"}[r.nextInt(3)];
                        valid("setRequestor", s, queue::getRequestor, () -> queue.setRequestor(s));
                    }
                    break;
                }
                case 22: {
                    // a quick look at every read-only view, racing everything else
                    call("views", () -> {
                        queue.workers();
                        queue.workerLifetimes();
                        queue.size();
                        queue.peek();
                        queue.toArray();
                        queue.getRunningTasksByClass();
                        queue.getWaitingTasksByClass();
                        queue.collectedStatistics();
                        pool.getCompletedTaskCount();
                        pool.getTaskCount();
                        pool.getActiveCount();
                        if (queue.isLatencyHistograms()) {
                            queue.runTimeSnapshot();
                            queue.waitTimeSnapshot();
                        }
                    });
                    break;
                }
                case 23: {
                    removeOrCancel();
                    break;
                }
                case 25: {
                    int k = r.nextInt(3);
                    if (k == 0) {
                        ThreadFactory f = new Threads();
                        pool.setThreadFactory(f);
                        count("valid setThreadFactory");
                    } else if (k == 1) {
                        call("prestartCoreThread", pool::prestartCoreThread);
                    } else {
                        call("prestartAllCoreThreads", pool::prestartAllCoreThreads);
                    }
                    break;
                }
                case 24: {
                    if (config.interrupts) {
                        interruptSomeone();
                    }
                    break;
                }
                default: {
                    // nothing this time: lets the pool run a stretch with the current settings
                    break;
                }
            }
        }

        void interruptSomeone() {
            if (r.nextBoolean() || config.restartablePercent > 0) {
                List<Thread> ts = submitterThreads;
                if (!ts.isEmpty()) {
                    ts.get(r.nextInt(ts.size())).interrupt();
                    count("submitters interrupted");
                }
            } else {
                // a worker: as an application's stray interrupt, or a cancel(true) that lands late
                List<Thread> ws = new ArrayList<>(poolThreads);
                ws.removeIf(t -> !t.isAlive());
                if (!ws.isEmpty()) {
                    ws.get(r.nextInt(ws.size())).interrupt();
                    count("workers interrupted");
                }
            }
        }

        void removeOrCancel() {
            Runnable x = ledger.recent.get(r.nextInt(64));
            int k = r.nextInt(4);
            if (k == 3) {
                if (config.realPurge) {
                    ledger.realPurgeCalled = true;
                    call("purge", pool::purge);
                } else {
                    // as purge() does, but knowing what it took
                    for (Object o : queue.toArray()) {
                        if (o instanceof Future && ((Future<?>) o).isCancelled() && pool.remove((Runnable) o)) {
                            ledger.removed.incrementAndGet(idOf(o));
                            count("cancelled futures purged (our purge)");
                        }
                    }
                }
                return;
            }
            if (x == null) {
                return;
            }
            int id = idOf(x);
            if (k == 0 && x instanceof IdFuture) {
                if (((IdFuture<?>) x).cancel(r.nextBoolean())) {
                    count("futures cancelled");
                }
                return;
            }
            try {
                if (pool.remove(x)) {
                    ledger.removed.incrementAndGet(id);
                    count("tasks removed");
                }
            } catch (Throwable t) {
                fail("remove(" + x + ") threw " + t + "\n" + stack(t));
            }
        }

        /** setClassLoadPercents and setRequestorMap, each keeping the other half. */
        void classesOneAtATime() {
            dev.turntable.pool.classes.ClassConfig before = queue.classConfig();
            if (r.nextBoolean()) {
                String p = r.nextInt(6) == 0 ? null : ChaosConfig.PERCENTS[r.nextInt(ChaosConfig.PERCENTS.length)];
                try {
                    queue.setClassLoadPercents(p);
                    count("valid setClassLoadPercents");
                    if (config.mode == Mode.HAND_OFF && p != null) {
                        fail("setClassLoadPercents(" + p + ") accepted on a hand-off pool");
                    }
                } catch (IllegalArgumentException e) {
                    // refused: on hand-off, or the kept map names a class these shares lack
                    // (all our maps name a and b, which all our shares have) 
                    if (config.mode != Mode.HAND_OFF || p == null) {
                        fail("setClassLoadPercents(" + p + ") refused: " + e.getMessage() + " (classes were " + before + ")");
                    }
                    count("invalid setClassLoadPercents");
                }
            } else {
                String m = ChaosConfig.MAPS[r.nextInt(ChaosConfig.MAPS.length)];
                try {
                    queue.setRequestorMap(m);
                    count("valid setRequestorMap");
                    if (before == null && checked) {
                        fail("setRequestorMap(" + m + ") accepted with classes off");
                    }
                } catch (IllegalArgumentException e) {
                    if (queue.classConfig() != null && before != null && checked) {
                        fail("setRequestorMap(" + m + ") refused with classes on: " + e.getMessage());
                    }
                    count("invalid setRequestorMap");
                }
            }
        }

        void classes() {
            int k = r.nextInt(10);
            if (config.mode == Mode.HAND_OFF) {
                if (k < 8) {
                    String p = ChaosConfig.PERCENTS[r.nextInt(ChaosConfig.PERCENTS.length)];
                    expectRefused("setTaskClasses on hand-off", p, queue::classConfig,
                            () -> queue.setTaskClasses(p, ChaosConfig.MAPS[0]));
                } else {
                    call("setTaskClasses(null) on hand-off", () -> queue.setTaskClasses(null, null));
                }
                return;
            }
            if (k < 2) {
                call("setTaskClasses off", () -> queue.setTaskClasses(null, null));
                if (checked && queue.classConfig() != null) {
                    fail("classes still on after setTaskClasses(null, null)");
                }
            } else if (k < 6) {
                String p = ChaosConfig.PERCENTS[r.nextInt(ChaosConfig.PERCENTS.length)];
                String m = ChaosConfig.MAPS[r.nextInt(ChaosConfig.MAPS.length)];
                call("setTaskClasses", () -> queue.setTaskClasses(p, m));
                count("classes on");
            } else if (k < 8) {
                String bad = BAD_PERCENTS[r.nextInt(BAD_PERCENTS.length)];
                String named = bad.substring(bad.lastIndexOf('|') + 1);
                String text = bad.substring(0, bad.lastIndexOf('|'));
                expectRefused("setTaskClasses", named, queue::classConfig,
                        () -> queue.setTaskClasses(text, ChaosConfig.MAPS[0]));
            } else {
                String bad = BAD_MAPS[r.nextInt(BAD_MAPS.length)];
                String named = bad.substring(bad.lastIndexOf('|') + 1);
                String text = bad.substring(0, bad.lastIndexOf('|'));
                expectRefused("setTaskClasses (map)", named, queue::classConfig,
                        () -> queue.setTaskClasses(ChaosConfig.PERCENTS[0], text));
            }
        }

        long[] randomWeights() {
            long[] w = new long[1 + r.nextInt(6)];
            for (int i = 0; i < w.length; i++) {
                w[i] = 1 + r.nextInt(30);
            }
            return w;
        }

        /** The configured weights as far as both readings reach (slots may be added between them). */
        Object weightsPrefix() {
            return new WeightsView(queue.getWorkerWeightsMillis());
        }

        void call(String what, Runnable action) {
            try {
                action.run();
                count("valid " + what);
            } catch (Throwable t) {
                fail(what + " threw " + t + "\n" + stack(t));
            }
        }

        void valid(String what, Object value, Supplier<Object> getter, Runnable action) {
            try {
                action.run();
                count("valid " + what);
            } catch (IllegalArgumentException e) {
                if (!checked && (what.equals("setCorePoolSize") || what.equals("setMaximumPoolSize")
                        || what.startsWith("setKeepAliveTime") || what.equals("allowCoreThreadTimeOut"))) {
                    count("racing changers: " + what + " refused"); // the other changer moved the bound
                    return;
                }
                fail(what + "(" + value + ") threw " + e + "\n" + stack(e));
                return;
            } catch (Throwable t) {
                fail(what + "(" + value + ") threw " + t + "\n" + stack(t));
                return;
            }
            if (!checked) {
                return;
            }
            Object now = getter.get();
            if (!Objects.equals(now, value)) {
                fail(what + "(" + value + ") then the getter reads " + now);
            }
        }

        void expectRefused(String what, Object bad, Supplier<Object> getter, Runnable action) {
            Object before = getter.get();
            try {
                action.run();
                if (!checked && stateDependent(what)) {
                    count("racing changers: " + what + " accepted"); // the other changer moved the bound
                } else {
                    fail(what + "(" + bad + ") was accepted");
                }
            } catch (IllegalArgumentException e) {
                count("invalid " + what);
                String msg = e.getMessage();
                if (msg == null || !msg.contains(String.valueOf(bad))) {
                    fail(what + "(" + bad + ") refused without naming the value: " + msg);
                }
            } catch (Throwable t) {
                fail(what + "(" + bad + ") threw " + t + " instead of IllegalArgumentException\n" + stack(t));
            }
            Object after = getter.get();
            if (checked && !sameConfig(before, after)) {
                fail(what + "(" + bad + ") refused but changed the setting: " + before + " -> " + after);
            }
        }

        boolean stateDependent(String what) {
            return what.equals("setCorePoolSize") || what.equals("setMaximumPoolSize");
        }

        void refusedAnyMessage(String what, Supplier<Object> getter, Runnable action) {
            Object before = getter.get();
            try {
                action.run();
                if (!checked) {
                    count("racing changers: " + what + " accepted");
                } else {
                    fail(what + " was accepted");
                }
            } catch (IllegalArgumentException e) {
                count("invalid " + what);
            } catch (Throwable t) {
                fail(what + " threw " + t + " instead of IllegalArgumentException");
            }
            Object after = getter.get();
            if (checked && !sameConfig(before, after)) {
                fail(what + " refused but changed the setting: " + before + " -> " + after);
            }
        }
    }

    /** Weights compared over the workers both readings have (a slot added in between gets the default). */
    static final class WeightsView {
        final long[] w;

        WeightsView(long[] w) {
            this.w = w;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof WeightsView)) {
                return false;
            }
            long[] v = ((WeightsView) o).w;
            int n = Math.min(w.length, v.length);
            return Arrays.equals(Arrays.copyOf(w, n), Arrays.copyOf(v, n));
        }

        @Override
        public int hashCode() {
            return 0;
        }

        @Override
        public String toString() {
            return Arrays.toString(w);
        }
    }

    static boolean sameConfig(Object a, Object b) {
        if (a instanceof dev.turntable.pool.classes.ClassConfig && b instanceof dev.turntable.pool.classes.ClassConfig) {
            // same object if nothing was configured; else compare what they say
            dev.turntable.pool.classes.ClassConfig x = (dev.turntable.pool.classes.ClassConfig) a;
            dev.turntable.pool.classes.ClassConfig y = (dev.turntable.pool.classes.ClassConfig) b;
            return x == y || (x.classLoadPercentsText().equals(y.classLoadPercentsText())
                    && x.requestorMapText().equals(y.requestorMapText()));
        }
        return Objects.equals(a, b);
    }

    /** text|what the message must name */
    static final String[] BAD_PERCENTS = {"a:75;b:x|x", "a:-5;b:25|-5", "a:0;b:0|a:0;b:0", "a:75;a:25|a", "a75|a75", "a:1000001|1000001"};
    static final String[] BAD_MAPS = {"chaos-[:a|chaos-[", "chaos-sub-.*:zz|zz", "nocolon|nocolon"};

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
