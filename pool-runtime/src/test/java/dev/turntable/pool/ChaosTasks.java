package dev.turntable.pool;

import static dev.turntable.pool.ChaosLedger.CHILD;
import static dev.turntable.pool.ChaosLedger.ENDER;
import static dev.turntable.pool.ChaosLedger.PARENT;
import static dev.turntable.pool.ChaosLedger.SELF_INTERRUPT;
import static dev.turntable.pool.ChaosLedger.SPIN;
import static dev.turntable.pool.ChaosLedger.THROWS;

import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The tasks a chaos round sends: tiny ones of several kinds (plain, a ~50 µs spin, a parent that
 * submits a child and waits for it a bounded time, one that throws, one that returns with its
 * thread interrupted, the ender that issues the round's ending from a worker), and restartable
 * ones that rebalancing may stop. Each records its runs in the round's ledger.
 */
final class ChaosTasks {

    private ChaosTasks() {
    }

    /** Thrown by a THROWS task on purpose: its worker dies (execute) or its future fails (submit). */
    static final class ChaosFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ChaosFailure(int id) {
            super("chaos task " + id + " fails on purpose", null, false, false);
        }
    }

    /** A task of one of the kinds the ledger names (its kind is looked up by id when it runs). */
    static final class Task implements Runnable {
        final int id;
        private final ChaosRound round;
        private final ChaosLedger ledger;

        Task(ChaosRound round, int id) {
            this.id = id;
            this.round = round;
            this.ledger = round.ledger;
        }

        @Override
        public void run() {
            ledger.bodyRuns.incrementAndGet(id);
            switch (ledger.kind.get(id)) {
                case SPIN:
                    spin(50_000);
                    break;
                case PARENT:
                    parent();
                    break;
                case SELF_INTERRUPT:
                    Thread.currentThread().interrupt(); // returns with its thread interrupted
                    break;
                case ENDER:
                    round.end();
                    break;
                case THROWS:
                    throw new ChaosFailure(id);
                default:
                    break;
            }
        }

        private void parent() {
            int child = ledger.newId(CHILD);
            if (child < 0) {
                return;
            }
            Task c = new Task(round, child);
            boolean viaSubmit = ThreadLocalRandom.current().nextBoolean();
            Future<?> f = round.submitOne(c, viaSubmit);
            if (f == null) {
                return;
            }
            try {
                f.get(20, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (TimeoutException | ExecutionException
                    | CancellationException e) {
                // bounded wait: the child may still be queued, or was dropped by a policy
            }
        }

        @Override
        public String toString() {
            return "task-" + id;
        }
    }

    /** Runs its work in 5 chunks, stopping (incomplete) at an interrupt. */
    static final class RTask implements RestartableTask {
        final int id;
        private final ChaosRound round;
        private final ChaosLedger ledger;
        volatile boolean complete;

        RTask(ChaosRound round, int id) {
            this.id = id;
            this.round = round;
            this.ledger = round.ledger;
        }

        @Override
        public void run() {
            ledger.bodyRuns.incrementAndGet(id);
            if (ledger.completions.get(id) > 0) {
                ledger.ranAfterComplete.incrementAndGet(id);
            }
            complete = false;
            // Only a pool thread can be asked to stop; a submitter running it (CallerRuns) may
            // carry a stray interrupt of the chaos thread's.
            boolean stoppable = round.poolThreads.contains(Thread.currentThread());
            for (int chunk = 0; chunk < 5; chunk++) {
                if (stoppable && Thread.currentThread().isInterrupted()) {
                    ledger.incompleteAfterStop.set(id, round.stopIssued ? 1 : 0);
                    ledger.incompleteEndNanos.set(id, System.nanoTime());
                    return;
                }
                spin(round.config.restartableChunkMicros * 1_000L);
            }
            complete = true;
            ledger.incompleteEndNanos.set(id, 0);
            ledger.completions.incrementAndGet(id);
        }

        @Override
        public boolean isComplete() {
            return complete;
        }

        @Override
        public String toString() {
            return "rtask-" + id;
        }
    }

    /** A future for a task given to {@code execute}: a parent waits on nothing then. */
    static final class CompletedFuture implements Future<Object> {
        static final CompletedFuture INSTANCE = new CompletedFuture();

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            return false;
        }

        @Override
        public boolean isCancelled() {
            return false;
        }

        @Override
        public boolean isDone() {
            return true;
        }

        @Override
        public Object get() {
            return null;
        }

        @Override
        public Object get(long timeout, TimeUnit unit) {
            return null;
        }
    }

    static void spin(long nanos) {
        long end = System.nanoTime() + nanos;
        while (System.nanoTime() < end) {
            Thread.onSpinWait();
        }
    }
}
