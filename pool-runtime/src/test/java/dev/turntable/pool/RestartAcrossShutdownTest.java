package dev.turntable.pool;

import static dev.turntable.pool.testing.Waits.awaitIgnoringInterrupts;
import static dev.turntable.pool.testing.Waits.awaitLatch;
import static dev.turntable.pool.testing.Waits.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.testing.CountingThreadFactory;
import dev.turntable.pool.testing.ManualTicker;
import dev.turntable.pool.testing.PoolCleanup;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A restartable task that rebalancing stopped, while the pool shuts down: with {@code shutdown()}
 * it still runs to completion before the pool terminates; with {@code shutdownNow()} it counts as
 * a running task (interrupted, not returned, not run again) and leaves nothing behind in the queue.
 */
final class RestartAcrossShutdownTest {

    private static final String SHARES = "interactive:25;batch:75";
    private static final String MAP = "interactive-.*:interactive;batch-.*:batch";

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();

    /**
     * A batch task that runs until its gate opens. The one the pool stops records itself, then
     * holds its worker (ignoring interrupts) until the test lets it go, and says it is not complete.
     */
    static final class SlowToStop implements RestartableTask {
        final String id;
        final CountDownLatch gate;
        final CountDownLatch letGo;
        final AtomicReference<SlowToStop> stopped;
        final CountDownLatch sawStop;
        final AtomicInteger runs = new AtomicInteger();
        final AtomicInteger completions = new AtomicInteger();
        volatile boolean complete;
        volatile boolean throwWhenStopped;
        /** When set, isComplete() of the stopped task says it is asked, then waits for this latch. */
        volatile CountDownLatch isCompleteHeld;
        final CountDownLatch isCompleteAsked = new CountDownLatch(1);

        SlowToStop(String id, CountDownLatch gate, CountDownLatch letGo, AtomicReference<SlowToStop> stopped,
                   CountDownLatch sawStop) {
            this.id = id;
            this.gate = gate;
            this.letGo = letGo;
            this.stopped = stopped;
            this.sawStop = sawStop;
        }

        @Override
        public void run() {
            runs.incrementAndGet();
            try {
                if (gate.await(30, TimeUnit.SECONDS)) {
                    complete = true;
                    completions.incrementAndGet();
                }
            } catch (InterruptedException stop) {
                complete = false;
                if (stopped.compareAndSet(null, this)) {
                    sawStop.countDown();
                    awaitIgnoringInterrupts(letGo);
                    if (throwWhenStopped) {
                        throw new IllegalStateException(id + " gives up: its thread dies");
                    }
                }
            }
        }

        @Override
        public boolean isComplete() {
            CountDownLatch held = isCompleteHeld;
            if (held != null && stopped.get() == this) {
                isCompleteAsked.countDown();
                awaitIgnoringInterrupts(held);
            }
            return complete;
        }

        @Override
        public String toString() {
            return id;
        }
    }

    /**
     * What the tests share: four batch tasks on four workers, one interactive task, one stop. On a
     * {@link TurntableExecutor}, or on a plain ThreadPoolExecutor of your own that tells the queue
     * of its shutdown but not of its workers' exits.
     */
    private final class Scene {
        final ManualTicker ticker = new ManualTicker();
        final CountDownLatch batchGate = cleanup.latch(1);
        final CountDownLatch letGo = cleanup.latch(1);
        final CountDownLatch sawStop = new CountDownLatch(1);
        final AtomicReference<SlowToStop> stopped = new AtomicReference<>();
        final AtomicInteger interactiveRuns = new AtomicInteger();
        final List<SlowToStop> batch = new ArrayList<>();
        final ThreadPoolExecutor pool;
        final TurntableQueue q;

        Scene() throws InterruptedException {
            this(false, null);
        }

        /** @param dyingHolds with an own pool: a worker whose task threw stays alive until this opens */
        Scene(boolean ownPool, CountDownLatch dyingHolds) throws InterruptedException {
            if (ownPool) {
                q = TurntableQueue.builder().ticker(ticker).taskClasses(SHARES, MAP)
                        .rebalanceThreshold(20).rebalanceMinimumDurationMillis(1_000).build();
                CountingThreadFactory threads = new CountingThreadFactory("own");
                ThreadPoolExecutor own = new ThreadPoolExecutor(4, 4, 0, TimeUnit.MILLISECONDS, q, r -> {
                    Thread t = threads.newThread(r);
                    // The dying thread lingers in its handler (logging, say) while its replacement registers.
                    t.setUncaughtExceptionHandler((th, e) -> awaitIgnoringInterrupts(dyingHolds));
                    return t;
                }) {
                    @Override
                    public void shutdown() {
                        super.shutdown();
                        q.ownerShutDown();
                    }
                };
                own.prestartAllCoreThreads();
                pool = cleanup.track(own);
            } else {
                TurntableExecutor te = cleanup.track(TurntableExecutor.builder().workers(4).ticker(ticker)
                        .taskClasses(SHARES, MAP).rebalanceThreshold(20).rebalanceMinimumDurationMillis(1_000)
                        .threadFactory(new CountingThreadFactory("restart")).build());
                pool = te;
                q = te.getTurntableQueue();
            }
            for (int k = 0; k < 4; k++) {
                SlowToStop t = new SlowToStop("b" + k, batchGate, letGo, stopped, sawStop);
                t.throwWhenStopped = ownPool;
                batch.add(t);
            }
            TurntableExecutorClassesTest.submitAs("batch-1", pool, new ArrayList<>(batch));
            eventually("batch borrows all four workers", () -> pool.getActiveCount() == 4
                    && batch.stream().allMatch(t -> t.runs.get() == 1));
            TurntableExecutorClassesTest.submitAs("interactive-1", pool, List.of(interactiveRuns::incrementAndGet));
            q.housekeep(); // over the threshold: the clock starts
            ticker.advanceMillis(1_001);
            q.housekeep(); // over it for the minimum duration: stop one batch task
            awaitLatch(sawStop, "one batch task stopped");
            // The other three end; one of their workers runs the interactive task.
            batchGate.countDown();
            eventually("the other batch tasks and the interactive one ended",
                    () -> interactiveRuns.get() == 1 && pool.getActiveCount() == 1);
        }
    }

    @Test
    void shutdownRunsAStoppedTaskAgainEvenWhenItsWorkerIsTheLastOne() throws Exception {
        Scene scene = new Scene();
        SlowToStop t = scene.stopped.get();
        assertNotNull(t);
        assertEquals(1, scene.q.size(), "the stopped task, on its way back, counts as waiting");
        scene.pool.shutdown();
        // Idle workers would leave at once on shutdown, and the stopped task's worker, last to
        // go, would put it back after the pool had terminated; they wait for it instead.
        eventually("idle workers gone, or kept for the task on its way back",
                () -> scene.pool.getPoolSize() == 1 || scene.q.size() == 1);
        assertTrue(!scene.pool.isTerminated(), "not terminated while a stopped task is on its way back");
        scene.letGo.countDown();
        assertTrue(scene.pool.awaitTermination(30, TimeUnit.SECONDS), "terminated");
        assertEquals(1, t.completions.get(), "the stopped task was run again, to completion, before termination");
        assertEquals(2, t.runs.get());
        for (SlowToStop b : scene.batch) {
            assertEquals(1, b.completions.get(), b + " completed once");
        }
        assertEquals(0, scene.q.size(), "nothing left in the queue");
    }

    @Test
    void shutdownNowCountsAStoppedTaskStillInItsRunAsRunningAndLeavesNothingBehind() throws Exception {
        Scene scene = new Scene();
        SlowToStop t = scene.stopped.get();
        List<Runnable> unrun = scene.pool.shutdownNow();
        assertTrue(unrun.isEmpty(), "nothing was waiting; the stopped task was still in its run: " + unrun);
        scene.letGo.countDown();
        assertTrue(scene.pool.awaitTermination(30, TimeUnit.SECONDS), "terminated");
        assertEquals(1, t.runs.get(), "interrupted by shutdownNow like any running task: not run again");
        assertEquals(0, scene.q.size(), "the stopped task is not left counted in the queue");
        assertTrue(scene.q.getWaitingTasksByClass().values().stream().allMatch(v -> v == 0),
                "nor waiting in its class: " + scene.q.getWaitingTasksByClass());
        assertEquals(0, scene.q.getRestartedTaskCount(), "a task that will not run again is no restart");
        assertEquals(0, scene.q.getRunningTasksByClass().get("batch"), "nor running in its class");
    }

    /**
     * After shutdownNow, the stopped task's worker leaves the pool and then, on its thread's way
     * out, ends the task, asking the task whether it is complete; another worker leaving after
     * it terminates the pool meanwhile. Once terminated, the task counts as running in its
     * class no longer, however long the task takes to answer.
     */
    @Test
    void aStoppedTaskEndsWithThePoolEvenWhileItsWorkerIsStillEndingIt() throws Exception {
        Scene scene = new Scene();
        SlowToStop t = scene.stopped.get();
        CountDownLatch answer = cleanup.latch(1);
        t.isCompleteHeld = answer;
        CountDownLatch lastGo = cleanup.latch(1);
        CountDownLatch lastRunning = new CountDownLatch(1);
        TurntableExecutorClassesTest.submitAs("interactive-2", scene.pool, List.of(() -> {
            lastRunning.countDown();
            awaitIgnoringInterrupts(lastGo); // ignores shutdownNow's interrupt: this worker leaves last
        }));
        awaitLatch(lastRunning, "a second worker busy");
        scene.pool.shutdownNow();
        eventually("the idle workers gone", () -> scene.pool.getPoolSize() == 2);
        scene.letGo.countDown();
        awaitLatch(t.isCompleteAsked, "the stopped task's worker, ending it, asks whether it is complete");
        lastGo.countDown();
        assertTrue(scene.pool.awaitTermination(30, TimeUnit.SECONDS), "terminated");
        Map<String, Integer> running = scene.q.getRunningTasksByClass();
        answer.countDown();
        assertEquals(Map.of("interactive", 0, "batch", 0), running, "running by class once terminated");
        assertEquals(0, scene.q.size());
    }

    /**
     * A ThreadPoolExecutor of your own that reports no worker exits: the stopped task throws and
     * kills its thread, which lingers in its handler past its replacement's registration. Once
     * the pool shuts down, idle workers must still reap the dead thread, or the stopped task it
     * held counts in size() for good and the pool never terminates.
     */
    @Test
    void ownPoolReapsAWorkerThatDiedInAStoppedTaskAfterShutdown() throws Exception {
        CountDownLatch dyingHolds = cleanup.latch(1);
        Scene scene = new Scene(true, dyingHolds);
        SlowToStop t = scene.stopped.get();
        scene.letGo.countDown(); // the stopped task throws; its thread waits in the handler
        eventually("the replacement worker is up", () -> scene.pool.getPoolSize() == 4 && scene.q.workers().size() == 5);
        scene.pool.shutdown();
        dyingHolds.countDown(); // now it dies
        assertTrue(scene.pool.awaitTermination(30, TimeUnit.SECONDS), "terminated: size() " + scene.q.size());
        assertEquals(1, t.completions.get(), "the stopped task ran again, to completion");
        assertEquals(0, scene.q.size());
    }
}
