package dev.turntable.pool;

import static dev.turntable.pool.testing.Waits.eventually;
import static java.util.concurrent.TimeUnit.MINUTES;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.testing.CountingThreadFactory;
import dev.turntable.pool.testing.Params;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A million tiny tasks from four submitting threads while those submitters keep switching the
 * worker choice strategy (and, in one variant, task stealing): every task must run exactly once.
 * Sized to finish well within a minute for the whole class on a two-core machine.
 */
@Tag("stress")
class TurntableExecutorStressTest {

    private static final int TASKS = 1_000_000;
    private static final int SUBMITTERS = 4;
    private static final int WORKERS = 4;
    private static final int SWITCH_EVERY = 300;
    private static final int TOGGLE_STEALING_EVERY = 1_000;

    private final CountingThreadFactory threads = new CountingThreadFactory("stress");
    private TurntableExecutor pool;

    @AfterEach
    void stopPool() throws InterruptedException {
        if (pool != null && !pool.isTerminated()) {
            pool.shutdownNow();
            pool.awaitTermination(1, MINUTES);
        }
    }

    @Test
    void aMillionTasksWhileTheStrategyKeepsChanging() throws Exception {
        pool = TurntableExecutor.builder().workers(WORKERS).threadFactory(threads).build();
        Outcome outcome = run(pool, false);
        outcome.assertEveryTaskRanExactlyOnce();
        assertEquals(TASKS, pool.getCompletedTaskCount());
        assertEquals(0, outcome.callerRuns.sum());
    }

    @Test
    void aMillionTasksThroughABoundedQueueWithCallerRuns() throws Exception {
        LongAdder callerRuns = new LongAdder();
        RejectedExecutionHandler callerRunsCounted = new ThreadPoolExecutor.CallerRunsPolicy() {
            @Override
            public void rejectedExecution(Runnable r, ThreadPoolExecutor e) {
                callerRuns.increment();
                super.rejectedExecution(r, e);
            }
        };
        pool = TurntableExecutor.builder()
                .workers(WORKERS)
                .queueCapacity(1024)
                .rejectionHandler(callerRunsCounted)
                .threadFactory(threads)
                .build();
        Outcome outcome = run(pool, false);
        outcome.assertEveryTaskRanExactlyOnce();
        assertEquals(TASKS - callerRuns.sum(), pool.getCompletedTaskCount(),
                "every task not run by a submitter is completed by the pool");
        assertEquals(callerRuns.sum(), outcome.callerRuns.sum(), "tasks run on submitters = rejections");
    }

    @Test
    void aMillionTasksWhileTheStrategyAndTaskStealingKeepChanging() throws Exception {
        pool = TurntableExecutor.builder().workers(WORKERS).threadFactory(threads).build();
        Outcome outcome = run(pool, true);
        outcome.assertEveryTaskRanExactlyOnce();
        assertEquals(TASKS, pool.getCompletedTaskCount());
    }

    /** Workers retire every 1,000 tasks (one at a time) while strategies switch: nothing lost or doubled. */
    @Test
    void aMillionTasksWhileWorkersKeepRetiring() throws Exception {
        pool = TurntableExecutor.builder().workers(WORKERS).maxLifetimeTasks(1_000).threadFactory(threads).build();
        TurntableQueue queue = pool.getTurntableQueue();
        long[] retiredWhileRunning = new long[1];
        // Counted before shutdown: ThreadPoolExecutor replaces no worker that ends once it has
        // shut down with an empty queue, so a retirement in that instant has no new thread.
        Outcome outcome = run(pool, false, o -> {
            eventually("every task ran", () -> o.ran.sum() == TASKS);
            // One new thread per retirement. A worker that reached its limit with the last task
            // may still retire after it (at its next poll), so the count is taken from the very
            // reading that matched: read again afterwards, it could be one retirement ahead of
            // its replacement thread.
            eventually("a replacement thread for every retirement so far", () -> {
                long retiredNow = queue.getRetiredWorkerCount();
                retiredWhileRunning[0] = retiredNow;
                return threads.created() == WORKERS + retiredNow;
            });
        });
        outcome.assertEveryTaskRanExactlyOnce();
        assertEquals(TASKS, pool.getCompletedTaskCount());
        long retired = retiredWhileRunning[0];
        assertTrue(retired >= TASKS / 1_001 - WORKERS, "only " + retired + " retirements");
        assertEquals(List.of(), threads.uncaught(), "retirement reached the application");
    }

    /**
     * {@code max-concurrent-tasks} on, with stealing toggled and worker queues smaller than the
     * limit (a reserved place whose queue is full sends its task to the shared queue): every
     * path by which a worker takes a task from outside its own queue, which it may do only into a
     * place reserved on itself, under load. Nothing lost, doubled or left waiting; a submit that
     * finds every worker full past the select timeout runs on its submitter.
     */
    @Test
    void aMillionTasksUnderAConcurrencyLimitWhileStealingKeepsChanging() throws Exception {
        pool = TurntableExecutor.builder().workers(WORKERS).maxConcurrentTasks(4).workerQueueCapacity(2)
                .rejectionHandler(new ThreadPoolExecutor.CallerRunsPolicy()).threadFactory(threads).build();
        Outcome outcome = run(pool, true);
        outcome.assertEveryTaskRanExactlyOnce();
        assertEquals(TASKS - outcome.callerRuns.sum(), pool.getCompletedTaskCount(),
                "every task not run by a submitter is completed by the pool");
    }

    /**
     * Task classes on, and switched off and on again every 20,000 submissions, while strategies
     * switch: every task held in a class or started by the plan still runs exactly once.
     */
    @Test
    void aMillionTasksThroughTaskClassesSwitchedOnAndOff() throws Exception {
        pool = TurntableExecutor.builder().workers(WORKERS).threadFactory(threads)
                .taskClasses("interactive:75;batch:25", "stress-submitter-[01]:interactive;stress-submitter-[23]:batch")
                .build();
        toggleClassesEvery = 20_000;
        Outcome outcome = run(pool, false);
        outcome.assertEveryTaskRanExactlyOnce();
        assertEquals(TASKS, pool.getCompletedTaskCount());
    }

    private volatile int toggleClassesEvery;

    private static final class Outcome {
        final AtomicIntegerArray slots = new AtomicIntegerArray(TASKS);
        final LongAdder ran = new LongAdder();
        final LongAdder callerRuns = new LongAdder();

        void assertEveryTaskRanExactlyOnce() {
            List<String> wrong = new ArrayList<>();
            int wrongCount = 0;
            for (int i = 0; i < TASKS; i++) {
                int n = slots.get(i);
                if (n != 1) {
                    wrongCount++;
                    if (wrong.size() < 20) {
                        wrong.add("task " + i + " ran " + n + "x");
                    }
                }
            }
            assertEquals(List.of(), wrong, wrongCount + " tasks did not run exactly once");
            assertEquals(TASKS, ran.sum());
        }
    }

    /** Submits TASKS tasks from SUBMITTERS threads that also switch strategy, then shuts down and waits. */
    private Outcome run(TurntableExecutor pool, boolean toggleStealing) throws Exception {
        return run(pool, toggleStealing, o -> { });
    }

    /** @param beforeShutdown checks made once every submitter is done, before the pool shuts down */
    private Outcome run(TurntableExecutor pool, boolean toggleStealing, java.util.function.Consumer<Outcome> beforeShutdown)
            throws Exception {
        Outcome outcome = new Outcome();
        List<String> names = Params.STRATEGIES;
        CyclicBarrier startTogether = new CyclicBarrier(SUBMITTERS);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> submitters = new ArrayList<>();
        int perSubmitter = TASKS / SUBMITTERS;
        for (int s = 0; s < SUBMITTERS; s++) {
            int first = s * perSubmitter;
            int offset = s;
            Thread submitter = new Thread(() -> {
                try {
                    startTogether.await();
                    int switches = offset;
                    for (int i = first; i < first + perSubmitter; i++) {
                        int slot = i;
                        pool.execute(() -> {
                            outcome.slots.incrementAndGet(slot);
                            outcome.ran.increment();
                            if (!threads.made(Thread.currentThread())) {
                                outcome.callerRuns.increment();
                            }
                        });
                        int sent = i - first + 1;
                        if (sent % SWITCH_EVERY == 0) {
                            pool.setStrategy(names.get(switches++ % names.size()));
                        }
                        if (toggleStealing && sent % TOGGLE_STEALING_EVERY == 0) {
                            pool.setTaskStealing(!pool.isTaskStealing());
                        }
                        if (offset == 0 && toggleClassesEvery > 0 && sent % toggleClassesEvery == 0) {
                            TurntableQueue q = pool.getTurntableQueue();
                            if (q.classConfig() == null) {
                                q.setTaskClasses("interactive:75;batch:25",
                                        "stress-submitter-[01]:interactive;stress-submitter-[23]:batch");
                            } else {
                                q.setTaskClasses(null, null);
                            }
                        }
                    }
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            }, "stress-submitter-" + s);
            submitters.add(submitter);
            submitter.start();
        }
        for (Thread submitter : submitters) {
            submitter.join(MINUTES.toMillis(2));
            assertTrue(!submitter.isAlive(), submitter.getName() + " is stuck");
        }
        if (failure.get() != null) {
            throw new AssertionError("a submitter failed", failure.get());
        }
        beforeShutdown.accept(outcome);
        pool.shutdown();
        assertTrue(pool.awaitTermination(2, MINUTES),
                () -> "pool did not terminate; " + outcome.ran.sum() + " of " + TASKS + " ran, queue "
                        + pool.getQueue().size());
        return outcome;
    }
}
