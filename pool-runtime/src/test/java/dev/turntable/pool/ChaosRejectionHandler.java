package dev.turntable.pool;

import static dev.turntable.pool.ChaosLedger.idOf;

import dev.turntable.pool.ChaosConfig.Handler;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The chaos round's rejection policies: our own copies of the JDK's (Abort, CallerRuns,
 * DiscardOldest, Discard) plus a blocking {@code getQueue().put(r)} and a timed offer, so that
 * what each runs, drops or takes is written in the round's ledger. The chaos thread swaps them
 * live.
 */
final class ChaosRejectionHandler implements RejectedExecutionHandler {

    /**
     * How deep this thread is in DiscardOldest's retries. Static: the chaos thread may swap in a
     * new handler between a retry and the rejection it meets, and the depth must carry over.
     */
    private static final ThreadLocal<Integer> DISCARD_OLDEST_DEPTH = ThreadLocal.withInitial(() -> 0);

    final Handler kind;
    private final ChaosRound round;
    private final ChaosLedger ledger;

    ChaosRejectionHandler(ChaosRound round, Handler kind) {
        this.round = round;
        this.ledger = round.ledger;
        this.kind = kind;
    }

    @Override
    public void rejectedExecution(Runnable r, ThreadPoolExecutor e) {
        int id = idOf(r);
        if (id < 0) {
            round.fail("rejection handler got a foreign runnable " + r.getClass().getName() + " " + r);
            throw new RejectedExecutionException("foreign");
        }
        round.count("handler " + kind);
        switch (kind) {
            case ABORT:
                throw new RejectedExecutionException("chaos: task " + id + " rejected");
            case CALLER_RUNS:
                if (!e.isShutdown()) {
                    ledger.callerRan.incrementAndGet(id);
                    r.run();
                } else {
                    ledger.discarded.incrementAndGet(id);
                }
                return;
            case DISCARD:
                ledger.discarded.incrementAndGet(id);
                return;
            case DISCARD_OLDEST:
                if (e.isShutdown()) {
                    ledger.discarded.incrementAndGet(id);
                    return;
                }
                int depth = DISCARD_OLDEST_DEPTH.get();
                if (depth >= 4) {
                    // The JDK's policy would recurse for as long as the pool stays full (a
                    // hand-off pool: until a worker turns idle); we give up and drop it.
                    round.count("DiscardOldest gave up (depth)");
                    ledger.discarded.incrementAndGet(id);
                    return;
                }
                Runnable old = e.getQueue().poll();
                if (old != null) {
                    int oldId = idOf(old);
                    if (oldId < 0) {
                        round.fail("DiscardOldest polled a foreign runnable " + old.getClass().getName() + " " + old);
                    } else {
                        ledger.victim.incrementAndGet(oldId);
                        round.count("DiscardOldest victims");
                    }
                }
                DISCARD_OLDEST_DEPTH.set(depth + 1);
                try {
                    e.execute(r);
                } finally {
                    DISCARD_OLDEST_DEPTH.set(depth);
                }
                return;
            case BLOCK_PUT:
                blockingPut(r, e);
                return;
            case TIMED_OFFER:
                if (e.isShutdown()) {
                    throw new RejectedExecutionException("shut down");
                }
                try {
                    if (!e.getQueue().offer(r, 1 + ThreadLocalRandom.current().nextInt(2_000),
                            TimeUnit.MICROSECONDS)) {
                        throw new RejectedExecutionException("timed out");
                    }
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new RejectedExecutionException("interrupted", ie);
                }
                if (e.isShutdown() && e.getQueue().remove(r)) {
                    throw new RejectedExecutionException("shut down during offer");
                }
                return;
            default:
                throw new AssertionError(kind);
        }
    }

    private void blockingPut(Runnable r, ThreadPoolExecutor e) {
        if (e.isShutdown()) {
            throw new RejectedExecutionException("shut down");
        }
        try {
            if (round.poolThreads.contains(Thread.currentThread())) {
                // A task's own child: a put could wait for ever on a pool whose every
                // worker is such a parent (the application's deadlock, not the pool's).
                if (!e.getQueue().offer(r, 5, TimeUnit.MILLISECONDS)) {
                    round.count("BLOCK_PUT timed offer from a worker gave up");
                    throw new RejectedExecutionException("timed out");
                }
            } else {
                int s = round.submitterIndex.get();
                if (s >= 0) {
                    round.putBeganNanos.set(s, round.shutdownIssued ? 0 : System.nanoTime());
                }
                round.count("BLOCK_PUT puts");
                try {
                    e.getQueue().put(r);
                } finally {
                    if (s >= 0) {
                        round.putBeganNanos.set(s, 0);
                    }
                }
            }
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            throw new RejectedExecutionException("interrupted", ie);
        }
        // As ThreadPoolExecutor.execute re-checks: a task queued into a pool shut down
        // meanwhile (perhaps terminated, with no worker left) is taken back if still there.
        if (e.isShutdown() && e.getQueue().remove(r)) {
            round.count("BLOCK_PUT taken back after shutdown");
            throw new RejectedExecutionException("shut down during put");
        }
    }
}
