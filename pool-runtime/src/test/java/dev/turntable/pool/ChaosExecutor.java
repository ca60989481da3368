package dev.turntable.pool;

import static dev.turntable.pool.ChaosLedger.ACCEPTED;
import static dev.turntable.pool.ChaosLedger.REJECTED;
import static dev.turntable.pool.ChaosLedger.idOf;

import dev.turntable.pool.ChaosTasks.ChaosFailure;
import dev.turntable.pool.ChaosTasks.Task;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RunnableFuture;

/**
 * The chaos round's pool: a TurntableExecutor that records in the round's ledger each task it
 * dispatches and each task's outcome at the door, and wraps our tasks in futures that carry
 * their ids (so that what submit, invokeAll and invokeAny queue can be told apart).
 */
final class ChaosExecutor extends TurntableExecutor {

    private final ChaosRound round;
    private final ChaosLedger ledger;

    ChaosExecutor(ChaosRound round, TurntableExecutor.Builder b) {
        super(b);
        this.round = round;
        this.ledger = round.ledger;
    }

    @Override
    protected void beforeExecute(Thread t, Runnable r) {
        int id = idOf(r);
        if (id < 0) {
            round.fail("beforeExecute got a foreign runnable " + r.getClass().getName() + " " + r);
        } else {
            ledger.dispatched.incrementAndGet(id);
        }
        super.beforeExecute(t, r);
    }

    @Override
    protected <T> RunnableFuture<T> newTaskFor(Runnable runnable, T value) {
        if (runnable instanceof Task) {
            return new IdFuture<>(ledger, ((Task) runnable).id, Executors.callable(runnable, value));
        }
        return super.newTaskFor(runnable, value);
    }

    @Override
    protected <T> RunnableFuture<T> newTaskFor(Callable<T> callable) {
        if (callable instanceof IdCallable) {
            @SuppressWarnings("unchecked")
            Callable<T> c = callable;
            return new IdFuture<>(ledger, ((IdCallable) callable).task.id, c);
        }
        return super.newTaskFor(callable);
    }

    /**
     * Every way in (execute, submit, invokeAll, invokeAny, a handler's retry) records its
     * task's outcome here: invokeAll and invokeAny do not say which of their tasks they
     * had queued when one is rejected.
     */
    @Override
    public void execute(Runnable command) {
        int id = idOf(command);
        try {
            super.execute(command);
        } catch (RejectedExecutionException e) {
            if (id >= 0) {
                ledger.outcome.set(id, REJECTED);
            }
            throw e;
        } catch (ChaosFailure e) {
            if (id >= 0) {
                ledger.outcome.set(id, ACCEPTED); // CallerRuns ran a THROWS task here
            }
            throw e;
        }
        if (id >= 0) {
            ledger.outcome.set(id, ACCEPTED);
        }
    }

    /** A task given to invokeAll or invokeAny. */
    static final class IdCallable implements Callable<Object> {
        final Task task;

        IdCallable(Task task) {
            this.task = task;
        }

        @Override
        public Object call() {
            task.run();
            return task.id;
        }
    }

    static final class IdFuture<T> extends FutureTask<T> {
        final int id;
        private final ChaosLedger ledger;

        IdFuture(ChaosLedger ledger, int id, Callable<T> c) {
            super(c);
            this.id = id;
            this.ledger = ledger;
            ledger.asFuture.set(id, 1);
        }

        /** Cancelled by the chaos thread, or by invokeAll/invokeAny at their timeout: purge may take it unseen. */
        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            boolean c = super.cancel(mayInterruptIfRunning);
            if (c) {
                ledger.cancelled.set(id, 1);
            }
            return c;
        }

        @Override
        public String toString() {
            return "future-" + id;
        }
    }
}
