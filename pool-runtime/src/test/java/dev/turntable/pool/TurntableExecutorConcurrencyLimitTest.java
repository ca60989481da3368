package dev.turntable.pool;

import static dev.turntable.pool.TurntableExecutorLifetimeTest.awaitAllWorkersUp;
import static dev.turntable.pool.testing.Waits.awaitGone;
import static dev.turntable.pool.testing.Waits.awaitLatch;
import static dev.turntable.pool.testing.Waits.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.strategy.Statistic;
import dev.turntable.pool.strategy.WorkerChoiceStrategy;
import dev.turntable.pool.strategy.WorkerView;
import dev.turntable.pool.testing.CountingThreadFactory;
import dev.turntable.pool.testing.PoolCleanup;
import dev.turntable.pool.testing.Waits;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The per-worker concurrency limit ({@code max-concurrent-tasks}) as a user of the pool sees it:
 * a submit that finds every worker at the limit waits, then meets the rejection policy; and no
 * worker ever holds more than the limit, queued plus running, whether submitters race for its
 * last places or it steals or serves the shared queue while they fill its own. Every task runs
 * exactly once or reaches the rejection handler.
 */
final class TurntableExecutorConcurrencyLimitTest {

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();

    private TurntableExecutor pool(TurntableExecutor.Builder b) {
        return cleanup.track(b.build());
    }

    /** Two workers, one task each at most, both held until the returned latch opens. */
    private TurntableExecutor twoWorkersAtTheirLimit(long selectTimeoutMillis, CountDownLatch release) {
        TurntableExecutor pool = pool(TurntableExecutor.builder().workers(2).maxConcurrentTasks(1)
                .workerSelectTimeoutMillis(selectTimeoutMillis).threadFactory(new CountingThreadFactory("conc")));
        CountDownLatch started = new CountDownLatch(2);
        for (int k = 0; k < 2; k++) {
            pool.execute(() -> {
                started.countDown();
                awaitLatch(release, "release");
            });
        }
        awaitLatch(started, "both workers busy");
        return pool;
    }

    @Test
    void withEveryWorkerAtItsConcurrencyLimitASubmitWaitsThenTheRejectionPolicyApplies() {
        CountDownLatch release = cleanup.latch(1);
        TurntableExecutor pool = twoWorkersAtTheirLimit(50, release);
        assertThrows(RejectedExecutionException.class, () -> pool.execute(() -> { }));
        assertEquals(2, pool.getPoolSize());
    }

    @Test
    void aSubmitWaitingForAWorkerIsPlacedWhenOneFreesUp() throws Exception {
        CountDownLatch release = cleanup.latch(1);
        TurntableExecutor pool = twoWorkersAtTheirLimit(30_000, release);
        CountDownLatch third = new CountDownLatch(1);
        Thread submitter = new Thread(() -> pool.execute(third::countDown));
        submitter.start();
        eventually("the submitter is waiting", () -> submitter.getState() == Thread.State.TIMED_WAITING);
        assertEquals(1, third.getCount(), "not run while every worker is at its limit");
        release.countDown();
        awaitLatch(third, "the waiting task ran once a worker freed up");
        awaitGone(submitter);
        eventually("all three completed, none rejected", () -> pool.getCompletedTaskCount() == 3);
    }

    /**
     * Submitters racing for the last places on a worker. Each round, {@value #RACE_SUBMITTERS}
     * threads leave a spin gate together and submit {@value #RACE_TASKS_PER_SUBMITTER} tasks each
     * (more than the pool takes) into a pool whose tasks all block until the round ends: no worker
     * finishes or steals anything while they race, so what each worker holds once every submit has
     * returned is the most it held in that round. No worker may hold more than the limit, queued
     * plus running; every task either runs exactly once or reaches the rejection handler (no
     * select wait: a submit that finds every worker at the limit is refused at once). LEAST_USED,
     * the default, sends racing submitters to the same worker, which is what makes the race likely.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void racingSubmittersNeverPutAWorkerOverItsConcurrencyLimit(int limit) throws Exception {
        int workers = 2;
        int rounds = 400;
        int total = rounds * RACE_SUBMITTERS * RACE_TASKS_PER_SUBMITTER;
        TurntableQueueTest.Runs runs = new TurntableQueueTest.Runs(total);
        Refusals refusals = new Refusals(total);
        CountingThreadFactory threads = new CountingThreadFactory("race");
        TurntableExecutor pool = pool(TurntableExecutor.builder().workers(workers).maxConcurrentTasks(limit)
                .workerSelectTimeoutMillis(0).taskStealing(false).threadFactory(threads)
                .rejectionHandler(refusals));
        TurntableQueue q = pool.getTurntableQueue();
        awaitAllWorkersUp(pool, workers);

        CyclicBarrier roundStart = new CyclicBarrier(RACE_SUBMITTERS + 1);
        CyclicBarrier roundEnd = new CyclicBarrier(RACE_SUBMITTERS + 1);
        AtomicInteger atGate = new AtomicInteger();
        AtomicReference<CountDownLatch> roundGate = new AtomicReference<>();
        List<Thread> submitters = new ArrayList<>();
        for (int t = 0; t < RACE_SUBMITTERS; t++) {
            int me = t;
            Thread submitter = new Thread(() -> {
                try {
                    for (int round = 0; round < rounds; round++) {
                        roundStart.await(Waits.LONG.toMillis(), TimeUnit.MILLISECONDS);
                        // A spin gate rather than the barrier alone: a barrier wakes its parked
                        // threads one after another, microseconds apart, and the race is narrower.
                        atGate.incrementAndGet();
                        while (atGate.get() < (round + 1) * RACE_SUBMITTERS) {
                            Thread.onSpinWait();
                        }
                        CountDownLatch gate = roundGate.get();
                        for (int k = 0; k < RACE_TASKS_PER_SUBMITTER; k++) {
                            pool.execute(runs.gated(((round * RACE_SUBMITTERS) + me) * RACE_TASKS_PER_SUBMITTER + k, gate));
                        }
                        roundEnd.await(Waits.LONG.toMillis(), TimeUnit.MILLISECONDS);
                    }
                } catch (Exception e) {
                    throw new AssertionError("submitter " + me, e);
                }
            }, "race-submitter-" + t);
            submitter.setDaemon(true);
            submitters.add(submitter);
            submitter.start();
        }

        int mostHeld = 0;
        int overLimitRounds = 0;
        String firstOverLimit = null;
        for (int round = 0; round < rounds; round++) {
            CountDownLatch gate = cleanup.latch(1);
            roundGate.set(gate);
            int firstOfRound = round * RACE_SUBMITTERS * RACE_TASKS_PER_SUBMITTER;
            roundStart.await(Waits.LONG.toMillis(), TimeUnit.MILLISECONDS);
            roundEnd.await(Waits.LONG.toMillis(), TimeUnit.MILLISECONDS); // every submit of the round returned
            // A worker woken for tasks it has not taken yet reads queued = n, running = 0, and
            // while it takes one (running is raised, then the queue polled) that task counts
            // twice. Look once each worker is inside one of this round's (blocking) tasks, or
            // has nothing at all.
            eventually("every worker with tasks is inside one", () -> q.workers().stream()
                    .allMatch(w -> ranOne(runs, firstOfRound, w.threadName()) || w.queued() + w.running() == 0));
            boolean overLimit = false;
            for (WorkerInfo w : q.workers()) {
                int held = w.queued() + w.running();
                mostHeld = Math.max(mostHeld, held);
                if (held > limit) {
                    overLimit = true;
                    if (firstOverLimit == null) {
                        firstOverLimit = "round " + round + ": worker " + w.index() + " queued " + w.queued()
                                + " running " + w.running();
                    }
                }
            }
            overLimitRounds += overLimit ? 1 : 0;
            gate.countDown();
            long refusedSoFar = refusals.total.get(); // every submit of the round has returned
            long submittedSoFar = (long) (round + 1) * RACE_SUBMITTERS * RACE_TASKS_PER_SUBMITTER;
            eventually("the round's accepted tasks ran", () -> pool.getCompletedTaskCount() == submittedSoFar - refusedSoFar
                    && q.workers().stream().allMatch(w -> w.running() == 0 && w.queued() == 0));
        }
        for (Thread submitter : submitters) {
            submitter.join(Waits.LONG.toMillis());
        }

        assertTrue(mostHeld <= limit, "a worker held up to " + mostHeld + " tasks, limit " + limit + ", in "
                + overLimitRounds + " of " + rounds + " rounds; first: " + firstOverLimit);
        refusals.assertEachRanOnceOrWasRefused(runs);
        assertTrue(refusals.total.get() > 0, "the limit never refused a task: the rounds did not reach it");
        assertTrue(threads.uncaught().isEmpty(), "a task failed: " + threads.uncaught());
    }

    /**
     * A worker that takes a task from the shared queue (which it serves first) while submitters
     * fill its own queue. Each round the pool's one worker is parked with nothing queued; the test
     * thread offers one task the strategy places on no worker, which goes to the shared queue and
     * wakes the worker, and at once the limit's worth of tasks for the worker itself, which land
     * while the worker is still waking up (tens of microseconds against well under one per
     * offer). A worker that takes the shared task without a place on itself then runs it with its
     * queue full: one over. Tasks block until the round ends; no select wait (a submit that finds
     * the worker full is refused), and every task either runs exactly once or is refused.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void aWorkerServingTheSharedQueueNeverGoesOverItsConcurrencyLimit(int limit) {
        int rounds = 150;
        int perRound = 1 + limit; // one for the shared queue, then the limit's worth for the worker
        int total = rounds * perRound;
        TurntableQueueTest.Runs runs = new TurntableQueueTest.Runs(total);
        Refusals refusals = new Refusals(total);
        CountingThreadFactory threads = new CountingThreadFactory("shared");
        TurntableExecutor pool = pool(TurntableExecutor.builder().workers(1).maxConcurrentTasks(limit)
                .workerSelectTimeoutMillis(0).registerStrategy("TARGETED", Targeted::new).strategy("TARGETED")
                .threadFactory(threads)
                .rejectionHandler(refusals));
        TurntableQueue q = pool.getTurntableQueue();
        awaitAllWorkersUp(pool, 1);

        int overLimitRounds = 0;
        String firstOverLimit = null;
        int queueFullFirst = 0;
        for (int round = 0; round < rounds; round++) {
            eventually("the worker is parked", threads::allLiveThreadsParked);
            CountDownLatch gate = cleanup.latch(1);
            int first = round * perRound;
            Targeted.TARGET.set(WorkerChoiceStrategy.NONE);
            try {
                pool.execute(runs.gated(first, gate)); // no worker chosen: the shared queue
            } finally {
                Targeted.TARGET.remove();
            }
            for (int k = 1; k < perRound; k++) {
                pool.execute(runs.gated(first + k, gate)); // worker 0
            }
            // Every submit has returned. Look once the worker is inside one of the round's
            // (blocking) tasks: while it moves a task from its queue to itself, the task counts twice.
            eventually("the worker is inside one of the round's tasks",
                    () -> ranOne(runs, first, first + perRound, q.workers().get(0).threadName()));
            WorkerInfo w = q.workers().get(0);
            if (w.queued() + w.running() > limit) {
                overLimitRounds++;
                if (firstOverLimit == null) {
                    firstOverLimit = "round " + round + ": queued " + w.queued() + " running " + w.running();
                }
            }
            if (runs.runner(first) == null) {
                queueFullFirst++; // the worker saw the shared task with its queue full, and left it
            }
            gate.countDown();
            awaitRoundDone(pool, q, (long) (round + 1) * perRound - refusals.total.get());
        }

        assertWithinLimitAndEachRanOnce(overLimitRounds, rounds, limit, firstOverLimit, runs, refusals, threads);
        // Otherwise the worker woke before its queue filled in every round, and took the shared
        // task first within the limit: the race this test is about never happened.
        org.junit.jupiter.api.Assumptions.assumeTrue(queueFullFirst > 0,
                "in no round did the worker's queue fill before it woke");
    }

    /**
     * A worker that steals while a submitter fills its own queue: the submitter has reserved its
     * places on the idle worker and not pushed yet (preempted between the two, say) when the
     * worker, woken for a task queued behind a busy worker's, steals that task. The window is a
     * few instructions wide, so the test thread plays that submitter step by step: it holds the
     * limit's worth of places on worker 1 ({@link WorkerSlot#tryReserve}, a submitter's first
     * step), queues a task behind worker 0's blocked one (which wakes worker 1 to steal it), and
     * pushes into its places ({@link WorkerSlot#offerReserved}, the second step) once worker 1 has
     * either started the stolen task or is up and running without it. A thief that steals without
     * a place on itself then runs the stolen task with its queue full: one over.
     */
    @ParameterizedTest
    @ValueSource(ints = {2, 3})
    void aWorkerStealingWhileItsPlacesAreHeldNeverGoesOverItsConcurrencyLimit(int limit) {
        int rounds = 100;
        int perRound = 2 + limit; // worker 0's blocking task, the task to steal, the limit's worth for worker 1
        int total = rounds * perRound;
        TurntableQueueTest.Runs runs = new TurntableQueueTest.Runs(total);
        Refusals refusals = new Refusals(total);
        CountingThreadFactory threads = new CountingThreadFactory("steal");
        TurntableExecutor pool = pool(TurntableExecutor.builder().workers(2).maxConcurrentTasks(limit)
                .workerSelectTimeoutMillis(0).registerStrategy("TARGETED", Targeted::new).strategy("TARGETED")
                .taskStealing(true).threadFactory(threads)
                .rejectionHandler(refusals));
        TurntableQueue q = pool.getTurntableQueue();
        awaitAllWorkersUp(pool, 2);
        WorkerSlot thief = q.slots[1];

        int overLimitRounds = 0;
        String firstOverLimit = null;
        for (int round = 0; round < rounds; round++) {
            eventually("both workers are parked", threads::allLiveThreadsParked);
            CountDownLatch gate = cleanup.latch(1);
            int first = round * perRound;
            pool.execute(runs.gated(first, gate)); // worker 0 (the strategy's default target)
            eventually("worker 0 is inside its task", () -> runs.runner(first) != null);
            Thread thiefThread = thief.thread;
            for (int k = 0; k < limit; k++) {
                assertTrue(thief.tryReserve(limit), "worker 1 is idle and empty: every place is free");
            }
            pool.execute(runs.gated(first + 1, gate)); // queued behind worker 0's task: wakes worker 1
            eventually("worker 1 stole the task, or is up without it", () -> runs.runner(first + 1) != null
                    || thiefThread.getState() == Thread.State.RUNNABLE);
            for (int k = 2; k < perRound; k++) {
                assertTrue(thief.offerReserved(runs.gated(first + k, gate)), "worker 1's queue has room");
            }
            eventually("worker 1 is inside one of the round's tasks",
                    () -> ranOne(runs, first, first + perRound, thiefThread.getName()));
            for (WorkerInfo w : q.workers()) {
                if (w.queued() + w.running() > limit) {
                    overLimitRounds++;
                    if (firstOverLimit == null) {
                        firstOverLimit = "round " + round + ": worker " + w.index() + " queued " + w.queued()
                                + " running " + w.running();
                    }
                    break;
                }
            }
            gate.countDown();
            awaitRoundDone(pool, q, (long) (round + 1) * perRound - refusals.total.get());
        }

        assertWithinLimitAndEachRanOnce(overLimitRounds, rounds, limit, firstOverLimit, runs, refusals, threads);
    }

    /** Waits until {@code completed} tasks have completed and no task is waiting or running anywhere. */
    private static void awaitRoundDone(TurntableExecutor pool, TurntableQueue q, long completed) {
        eventually("the round's accepted tasks ran", () -> pool.getCompletedTaskCount() == completed && q.isEmpty()
                && q.workers().stream().allMatch(w -> w.running() == 0 && w.queued() == 0));
    }

    private static void assertWithinLimitAndEachRanOnce(int overLimitRounds, int rounds, int limit, String firstOverLimit,
            TurntableQueueTest.Runs runs, Refusals refusals, CountingThreadFactory threads) {
        assertEquals(0, overLimitRounds, "a worker held more than " + limit + " tasks in " + overLimitRounds
                + " of " + rounds + " rounds; first: " + firstOverLimit);
        refusals.assertEachRanOnceOrWasRefused(runs);
        assertTrue(threads.uncaught().isEmpty(), "a task failed: " + threads.uncaught());
    }

    /** The pool's rejection handler here: counts each refused task, by its index, and in all. */
    private static final class Refusals implements RejectedExecutionHandler {
        final AtomicIntegerArray byTask;
        final AtomicInteger total = new AtomicInteger();

        Refusals(int tasks) {
            byTask = new AtomicIntegerArray(tasks);
        }

        @Override
        public void rejectedExecution(Runnable r, ThreadPoolExecutor executor) {
            byTask.incrementAndGet(((TurntableQueueTest.Runs.Task) r).index);
            total.incrementAndGet();
        }

        void assertEachRanOnceOrWasRefused(TurntableQueueTest.Runs runs) {
            for (int id = 0; id < runs.size(); id++) {
                assertEquals(1, runs.runs(id) + byTask.get(id), "task " + id + " ran " + runs.runs(id)
                        + " time(s) and was refused " + byTask.get(id) + " time(s)");
            }
        }
    }

    /** Whether one of the tasks {@code from} (inclusive) to {@code to} started on {@code thread}. */
    private static boolean ranOne(TurntableQueueTest.Runs runs, int from, int to, String thread) {
        for (int i = from; i < to; i++) {
            if (thread.equals(runs.runnerName(i))) {
                return true;
            }
        }
        return false;
    }

    /**
     * Chooses the worker the submitting thread names in {@link #TARGET} (worker 0 unless set), or
     * none if it names {@code NONE} or that worker is not available (at the limit, say).
     */
    private static final class Targeted implements WorkerChoiceStrategy {
        static final ThreadLocal<Integer> TARGET = ThreadLocal.withInitial(() -> 0);

        @Override
        public String name() {
            return "TARGETED";
        }

        @Override
        public Set<Statistic> requiredStatistics() {
            return Set.of();
        }

        @Override
        public int choose(WorkerView workers, long nowNanos) {
            int t = TARGET.get();
            return t >= 0 && t < workers.count() && workers.isAvailable(t) ? t : NONE;
        }
    }

    private static final int RACE_SUBMITTERS = 4;
    private static final int RACE_TASKS_PER_SUBMITTER = 4;

    /** Whether one of the round's tasks (those from {@code firstOfRound} on) started on {@code thread}. */
    private static boolean ranOne(TurntableQueueTest.Runs runs, int firstOfRound, String thread) {
        return ranOne(runs, firstOfRound, firstOfRound + RACE_SUBMITTERS * RACE_TASKS_PER_SUBMITTER, thread);
    }
}
