package dev.turntable.pool;

import static dev.turntable.pool.ChaosLedger.PARENT;
import static dev.turntable.pool.ChaosLedger.PLAIN;
import static dev.turntable.pool.ChaosLedger.RESTARTABLE;
import static dev.turntable.pool.ChaosLedger.SELF_INTERRUPT;
import static dev.turntable.pool.ChaosLedger.SPIN;
import static dev.turntable.pool.ChaosLedger.THROWS;
import static dev.turntable.pool.ChaosLedger.idOf;

import dev.turntable.pool.ChaosExecutor.IdCallable;
import dev.turntable.pool.ChaosTasks.RTask;
import dev.turntable.pool.ChaosTasks.Task;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * The application's two hands in a chaos round: submitters that send tiny tasks of every kind
 * ({@code execute}, {@code submit}, timed {@code invokeAll} and {@code invokeAny}) with bursts,
 * idle gaps, paced trickles, staggered starts and waves; and, in some rounds, a taker that keeps
 * taking recent tasks back (remove, poll, drainTo) while workers come and go. Each submitter
 * draws from its own seeded Random, the taker from another.
 */
final class ChaosSubmitters {

    private final ChaosRound round;

    ChaosSubmitters(ChaosRound round) {
        this.round = round;
    }

    /** Submitter {@code si}: its share of the round's top-level tasks, then it counts itself done. */
    void submitter(int si, Random r) {
        round.submitterIndex.set(si);
        try {
            if (round.config.staggerMicros > 0 && si > 0) {
                LockSupport.parkNanos(si * round.config.staggerMicros * 1_000L); // a schedule, not a wait for state
            }
            int afterShutdown = 0;
            for (int i = 0; i < round.config.perSubmitter; i++) {
                if (round.shutdownIssued && ++afterShutdown > 20) {
                    break; // a few submits race the ending; the rest would only be rejected
                }
                int k = r.nextInt(100);
                int taskKind = k < round.config.restartablePercent ? RESTARTABLE
                        : k < 58 ? PLAIN : k < 75 ? SPIN : k < 95 ? PARENT : k < 97 ? SELF_INTERRUPT : THROWS;
                int id = round.ledger.newId(taskKind);
                if (id < 0) {
                    break;
                }
                if (taskKind == RESTARTABLE) {
                    round.submitOne(new RTask(round, id), false);
                } else if (taskKind == PLAIN && r.nextInt(20) == 0) {
                    invoke(id, r);
                } else {
                    round.submitOne(new Task(round, id), r.nextInt(3) == 0);
                }
                if (round.topLevelSubmitted.incrementAndGet() >= round.config.endAt) {
                    round.endTrigger.countDown();
                }
                if (round.config.rebalanceFocus && i % 50 == 49) {
                    LockSupport.parkNanos(1_000_000L + r.nextInt(4_000_000)); // waves: a schedule, not a wait for state
                }
                if (round.config.trickleMicros > 0) {
                    LockSupport.parkNanos(r.nextInt(round.config.trickleMicros) * 1_000L); // pacing
                }
                int gap = r.nextInt(200);
                if (gap == 0) {
                    LockSupport.parkNanos(r.nextInt(3_000_000)); // an idle gap: workers park, time out
                } else if (gap < 10) {
                    Thread.yield();
                }
            }
        } catch (Throwable t) {
            round.fail("submitter " + si + " died: " + t + "\n" + ChaosRound.stack(t));
        } finally {
            round.submittersDone.countDown();
            if (round.submittersDone.getCount() == 0) {
                round.endTrigger.countDown();
            }
        }
    }

    /** invokeAll or invokeAny, timed (a task a Discard policy drops would keep the untimed ones waiting for good). */
    void invoke(int firstId, Random r) {
        List<IdCallable> batch = new ArrayList<>();
        batch.add(new IdCallable(new Task(round, firstId)));
        int more = r.nextInt(4);
        for (int i = 0; i < more; i++) {
            int id = round.ledger.newId(PLAIN);
            if (id < 0) {
                break;
            }
            batch.add(new IdCallable(new Task(round, id)));
        }
        boolean all = r.nextBoolean();
        try {
            if (all) {
                round.pool.invokeAll(batch, 1 + r.nextInt(50), TimeUnit.MILLISECONDS);
            } else {
                round.pool.invokeAny(batch, 1 + r.nextInt(50), TimeUnit.MILLISECONDS);
            }
            round.count(all ? "invokeAll" : "invokeAny");
        } catch (RejectedExecutionException | ExecutionException | TimeoutException e) {
            round.count((all ? "invokeAll " : "invokeAny ") + e.getClass().getSimpleName());
        } catch (InterruptedException e) {
            round.count("invoke interrupted");
        } catch (Throwable t) {
            round.fail("invoke threw " + t + "\n" + ChaosRound.stack(t));
        }
    }

    /** Takes recent tasks back, as an application may: remove(task), poll(), drainTo(c, n). */
    void taker() {
        Random r = new Random(round.seed * 13 + 7);
        try {
            while (!round.chaosStop) {
                int k = r.nextInt(10);
                if (k < 7) {
                    Runnable x = round.ledger.recent.get(r.nextInt(64));
                    if (x != null && round.pool.remove(x)) {
                        round.ledger.removed.incrementAndGet(idOf(x));
                        round.count("taker: removed");
                    }
                } else if (k < 9) {
                    Runnable x = round.queue.poll();
                    if (x != null) {
                        took(x, "taker: polled");
                    }
                } else {
                    List<Runnable> l = new ArrayList<>();
                    round.queue.drainTo(l, 1 + r.nextInt(3));
                    for (Runnable x : l) {
                        took(x, "taker: drained");
                    }
                }
                if (r.nextInt(4) == 0) {
                    LockSupport.parkNanos(r.nextInt(50_000)); // pacing
                }
            }
        } catch (Throwable t) {
            round.fail("taker died: " + t + "\n" + ChaosRound.stack(t));
        }
    }

    void took(Runnable x, String what) {
        int id = idOf(x);
        if (id < 0) {
            round.fail(what + " a foreign runnable " + x.getClass().getName() + " " + x);
        } else {
            round.ledger.removed.incrementAndGet(id);
            round.count(what);
        }
    }
}
