package dev.turntable.pool;

import static dev.turntable.pool.ChaosLedger.idOf;
import static dev.turntable.pool.ChaosRound.stack;

import dev.turntable.pool.ChaosConfig.Handler;
import dev.turntable.pool.ChaosConfig.Mode;
import dev.turntable.pool.ChaosExecutor.IdFuture;
import dev.turntable.pool.strategy.Measurement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A chaos thread: while the submitters run, it changes every live setter of the queue and of
 * ThreadPoolExecutor (sizes, keep-alive, core time-out, rejection handler, thread factory),
 * recycles workers, resets statistics, reads every view, removes, cancels and purges tasks,
 * interrupts submitters and workers, and tries invalid values, each checked as
 * {@link ChaosSetterChecks} says. Its actions are drawn from its own seeded Random; some draws
 * depend on what it reads back (the pool's current sizes, its slot count), so a replay repeats
 * the sequence only as far as the interleaving does.
 */
final class ChaosChanger extends ChaosSetterChecks implements Runnable {

    /** The refusal of keep-alive 0 while core threads may time out: another changer may switch that off meanwhile. */
    static final String KEEP_ALIVE_0_WITH_CORE_TIME_OUT = "setKeepAliveTime(0) while core threads may time out";

    final Random r;
    private final ChaosConfig config;
    private final ChaosLedger ledger;
    private final ChaosExecutor pool;
    private final TurntableQueue queue;
    private final ChaosClassChanges classChanges;

    /** Made once the round's pool is built. */
    ChaosChanger(ChaosRound round, Random r, boolean checked) {
        super(round, checked);
        this.r = r;
        this.config = round.config;
        this.ledger = round.ledger;
        this.pool = round.pool;
        this.queue = round.queue;
        this.classChanges = new ChaosClassChanges(round, r, checked);
    }

    @Override
    public void run() {
        try {
            while (!round.chaosStop) {
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
                    Measurement m = Measurement.values()[
                            r.nextInt(Measurement.values().length)];
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
                classChanges.classes();
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
                    expectRefused(KEEP_ALIVE_0_WITH_CORE_TIME_OUT, 0, () -> pool.getKeepAliveTime(TimeUnit.NANOSECONDS),
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
                ChaosRejectionHandler ch = new ChaosRejectionHandler(round, h);
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
                    classChanges.classesOneAtATime();
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
                    ThreadFactory f = round.threadFactory();
                    pool.setThreadFactory(f);
                    count("valid setThreadFactory");
                } else if (k == 1 || pool.allowsCoreThreadTimeOut()) {
                    // Not prestartAllCoreThreads while core threads time out: ThreadPoolExecutor's
                    // loop adds threads until the pool has its core size, and with a keep-alive
                    // shorter than a thread's start each one has timed out before the next is
                    // added, so the loop can go on for good, whatever the queue (a replay made
                    // 200,000 threads in 30 s, every one of them ending in a timed poll).
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
            List<Thread> ts = round.submitterThreads;
            if (!ts.isEmpty()) {
                ts.get(r.nextInt(ts.size())).interrupt();
                count("submitters interrupted");
            }
        } else {
            // a worker: as an application's stray interrupt, or a cancel(true) that lands late
            List<Thread> ws = new ArrayList<>(round.poolThreads);
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
}
