package dev.turntable.pool;

import static dev.turntable.pool.testing.Waits.awaitGone;
import static dev.turntable.pool.testing.Waits.awaitLatch;
import static dev.turntable.pool.testing.Waits.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.testing.Blocker;
import dev.turntable.pool.testing.GatedQueue;
import dev.turntable.pool.testing.Hold;
import dev.turntable.pool.testing.PoolCleanup;
import dev.turntable.pool.testing.Waits;
import dev.turntable.pool.strategy.Statistic;
import dev.turntable.pool.strategy.WorkerChoiceStrategy;
import dev.turntable.pool.strategy.WorkerView;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A claim counted in transit before it is made, which then finds nothing because another thread
 * took the task after the claimant looked, makes {@code size()} count a task that is not there
 * for an instant. A shut-down pool's last worker, leaving, reads {@code isEmpty()} once in
 * {@code tryTerminate}: reading "not empty" there it returns, and if {@code processWorkerExit}'s
 * {@code addWorker} then reads "empty" no worker is added, and nothing else would ever re-check:
 * the pool stayed SHUTDOWN for good, with no worker and nothing queued. The claimant must make the
 * owner re-check termination ({@code TurntableQueue.emptyClaimEnded}), once out of any lock.
 * {@link DirectRemoveTerminationTest} covers a removal's claim; this test a leaving worker's move
 * to the shared queue ({@code WorkerRegistry.moveToShared}), a submitter's rescue of its task
 * ({@code WorkerRegistry.rescueToShared}), and a class pass's flush and start
 * ({@code ClassScheduler}), and that a rescue inside a pass leaves the re-check to the pass.
 *
 * <p>As there, the engine replaces a {@link GatedQueue}, whose {@code size()} (which
 * {@code TurntableQueue.size()} reads just before the transit count) holds the last worker when
 * armed, as a preemption there would; and a {@link ClaimProbe} holds the claimant before it counts
 * its claim and after that claim came up empty. Each test checks that the pool terminated, and
 * that the claimant's re-check did it: had the last worker's own {@code tryTerminate} not been
 * misled, the test would no longer hold the window open.
 *
 * <p>{@code -DemptyClaimRounds=200} repeats each interleaving that many times.
 *
 * <p>Why this file is long (over 500 lines): each of the five interleavings is a script of
 * holds and releases across three or four threads, and its javadoc says step by step why the
 * window is open; they share the scene, the holds and the verdict ({@code assertTerminatedBy}),
 * and read best side by side.
 */
final class EmptyClaimTerminationTest {

    private static final int ROUNDS = Integer.getInteger("emptyClaimRounds", 3);

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();

    /**
     * Two workers; {@code w} runs a blocker, {@code x} is idle. The pool shuts down: {@code x}
     * leaves the executor (its count drops), and only then, in its thread's last step
     * ({@code workerExiting}, after {@code processWorkerExit}), frees its slot and moves what waits
     * there to the shared queue. A task {@code t} landed on that slot after {@code x} had last
     * looked (a submitter that chose it while {@code x} was still attached, and whose own rescue
     * waits for the registration lock {@code x} holds). {@code x} sees it and is held before it
     * counts its claim; {@code w}, done with its blocker, steals {@code t} (the slot is free), runs
     * it, reads the queue empty and leaves as the last worker; held in {@code tryTerminate}'s
     * {@code isEmpty()}, it reads the transit count only after {@code x} counted the claim that
     * then found nothing, and goes on to {@code addWorker}'s read only after that count dropped.
     * {@code x} is no longer a worker of the executor, so no {@code tryTerminate} of its own is
     * to come: only its re-check can terminate the pool.
     */
    @Test
    void aLeavingWorkersMoveThatCameUpEmptyLetsThePoolTerminate() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            Scene scene = new Scene(2, null, null);
            TurntableQueue q = scene.q;
            eventually("both workers wait for work", () -> q.parkedWorkerCount() == 2);
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch gate = cleanup.latch(1);
            Blocker blocker = new Blocker("w's task", started, gate);
            scene.pool.execute(blocker);
            awaitLatch(started, "a worker runs the blocker");
            Thread w = blocker.runner();
            Thread x = scene.other(w);
            WorkerSlot xSlot = slotOf(q, x);

            GatedQueue gated = scene.gated;
            gated.arm(x);
            scene.pool.shutdown();     // x is idle: interrupted; w is busy: it stays for its task
            gated.awaitEntered();      // x: getTask's isEmpty() ...
            gated.arm(x);
            gated.open();              // ... reads 0: x leaves the executor; tryTerminate's isEmpty() ...
            gated.awaitEntered();
            gated.arm(x);
            gated.open();              // ... reads 0, w still counts; addWorker's isEmpty() ...
            gated.awaitEntered();      // ... held after it read x's slot, before the transit count
            AtomicBoolean ran = new AtomicBoolean();
            Runnable t = () -> ran.set(true);
            assertTrue(xSlot.queue.offer(t), "a late push onto x's slot (detached: x left its wait)");

            Hold beforeCount = new Hold("x saw the task on its slot", x);
            Hold claimedNothing = new Hold("x's counted claim found nothing", x);
            q.workerRegistry.moveProbe = probe(beforeCount, claimedNothing);
            // The late pusher's rescue: waits for the lock x holds, then finds nothing to move.
            Thread rescuer = new Thread(() -> q.signalPushed(xSlot), "rescuer");
            try {
                gated.open();              // x reads 0: no worker added; its thread reports the exit ...
                beforeCount.awaitHeld();   // ... and its move saw t: held before counting, lock held
                rescuer.start();
                eventually("the rescue waits for x's lock", () -> rescuer.getState() == Thread.State.BLOCKED);
                gated.arm(w);
                gate.countDown();          // w ends its blocker; getTask's isEmpty() (t counts) ...
                gated.awaitEntered();
                gated.arm(w);
                gated.open();              // ... 1: w steals t from x's free slot and runs it; isEmpty() ...
                gated.awaitEntered();
                gated.arm(w);
                gated.open();              // ... 0 (x's claim not counted yet): w leaves; tryTerminate's ...
                gated.awaitEntered();      // ... isEmpty(), held before the transit count
                beforeCount.release();     // x counts its claim, which finds the slot empty
                claimedNothing.awaitHeld();
                gated.arm(w);
                gated.open();              // tryTerminate reads 1: "not empty", returns; addWorker's ...
                gated.awaitEntered();      // ... isEmpty() held before the transit count
                claimedNothing.release();  // the count drops; x lets go of the lock (and re-checks)
                awaitGone(x);
                awaitGone(rescuer);
                gated.open();              // addWorker reads empty: no worker is added
                awaitGone(w);
            } finally {
                beforeCount.release();
                claimedNothing.release();
                gated.open();
                q.workerRegistry.moveProbe = null;
            }
            assertTrue(ran.get(), "w ran the task it stole");
            assertEquals(0, q.size());
            assertEquals(0, scene.pool.getPoolSize());
            // Nothing is left that could terminate the pool later: no worker, no move, no put.
            assertTrue(scene.pool.isTerminated(),
                    "shut down, no worker, queue empty: the pool must have terminated; " + scene.pool);
            assertSame(x, scene.terminatedBy.get(), "w's tryTerminate read x's count: only x's re-check"
                    + " could terminate the pool");
        }
    }

    private static final String MAP = "interactive-.*:interactive;batch-.*:batch";

    /**
     * A class pass flushing the jobs as classes are switched off ({@code ClassPass.flushAll})
     * sees a waiting task and is held before it counts its claim; meanwhile the application
     * removes that task ({@code getQueue().remove(task)}), and the pool's only worker, done with
     * its own task, reads the queue empty and leaves as the last worker, misled in
     * {@code tryTerminate} by the pass's count. The pass runs on the thread that changed the
     * setting (or on the housekeeper's, should its tick come first: either is no worker), so
     * only its re-check, once the pass is over, can terminate the pool.
     */
    @Test
    void aClassPassFlushThatCameUpEmptyLetsThePoolTerminate() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            Scene scene = new Scene(1, null, null);
            TurntableQueue q = scene.q;
            eventually("the worker waits for work", () -> q.parkedWorkerCount() == 1);
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch gate = cleanup.latch(1);
            Blocker blocker = new Blocker("w's task", started, gate);
            scene.pool.execute(blocker); // not classed: classes are still off
            awaitLatch(started, "the worker runs the blocker");
            Thread w = blocker.runner();
            q.setTaskClasses("interactive:100;batch:0", MAP);
            AtomicBoolean ran = new AtomicBoolean();
            Runnable t = () -> ran.set(true);
            submitAs("batch-1", scene.pool, t); // a 0% class: it waits in its job
            assertEquals(1, q.size());
            scene.pool.shutdown(); // the worker is busy: the pass it runs has no idle worker for t
            assertEquals(1, q.size(), "t still waits in its job");

            Hold beforeCount = new Hold("a pass saw t in its job");
            Hold claimedNothing = new Hold("the pass's counted claim found nothing");
            q.classes.claimProbe = probe(beforeCount, claimedNothing);
            Thread settings = new Thread(() -> q.setTaskClasses(null, null), "settings");
            try {
                settings.start();          // classes off: a pass flushes every job ...
                beforeCount.awaitHeld();   // ... and is held before it counts its claim on t
                assertTrue(q.remove(t), "the application removes t from the queue itself");
                scene.gated.arm(w);
                gate.countDown();          // the worker ends its task: getTask's isEmpty() ...
                lastWorkerMisledByTheClaim(scene.gated, w, beforeCount, claimedNothing);
                awaitGone(settings);
                assertTerminatedBy(scene, beforeCount.holder(), settings);
                scene.gated.open();        // addWorker: the pool is terminated, no worker is added
                awaitGone(w);
            } finally {
                beforeCount.release();
                claimedNothing.release();
                scene.gated.open();
                q.classes.claimProbe = null;
            }
            assertFalse(ran.get(), "t was removed, not run");
            assertEquals(0, q.size());
            assertEquals(0, scene.pool.getPoolSize());
        }
    }

    /**
     * A class pass starting a task on an idle worker ({@code ClassPass.startFrom}; here
     * after a settings change that gives the task's class the whole pool) sees the task and is
     * held before it counts its claim. The pool is shut down meanwhile (its worker, idle, asks
     * again every few ms), the application removes the task, and the worker reads the queue
     * empty and leaves as the last worker, misled in {@code tryTerminate} by the pass's count.
     * Only the pass's re-check can terminate the pool. (Should the worker's own pass, which it
     * runs before it parks, win the race to the job, it starts the task itself and the round
     * proves nothing: it is counted void; each has a window of microseconds against a park of
     * up to a second.)
     */
    @Test
    void aClassPassStartThatCameUpEmptyLetsThePoolTerminate() throws Exception {
        int voidRounds = 0;
        for (int round = 0; round < ROUNDS; round++) {
            Scene scene = new Scene(1, "interactive:100;batch:0", MAP);
            TurntableQueue q = scene.q;
            eventually("the worker waits for work", () -> q.parkedWorkerCount() == 1);
            Thread w = scene.threads.get(0);
            AtomicBoolean ran = new AtomicBoolean();
            Runnable t = () -> ran.set(true);
            submitAs("batch-1", scene.pool, t); // a 0% class: it waits in its job, the worker idle
            assertEquals(1, q.size());

            Hold beforeCount = new Hold("a pass saw t in its job");
            Hold claimedNothing = new Hold("the pass's counted claim found nothing");
            q.classes.claimProbe = probe(beforeCount, claimedNothing);
            Thread settings = new Thread(() -> q.setTaskClasses("interactive:0;batch:100", MAP), "settings");
            try {
                settings.start();          // batch gets the idle worker: a pass starts t ...
                beforeCount.awaitHeld();   // ... and is held before it counts its claim on t
                if (beforeCount.holder() == w) {
                    voidRounds++;          // the worker's own pass: let it start and run t
                    beforeCount.release();
                    awaitGone(settings);
                    eventually("the worker runs t", ran::get);
                    continue;
                }
                GatedQueue gated = scene.gated;
                gated.arm(w);
                scene.pool.shutdown();     // the idle worker is interrupted, then asks every few ms:
                gated.awaitEntered();      // getTask's isEmpty(), held after it read t's job ...
                assertTrue(q.remove(t), "the application removes t from the queue itself");
                gated.arm(w);
                gated.open();              // ... so it reads 1 and waits again (t is gone); getTask's ...
                lastWorkerMisledByTheClaim(gated, w, beforeCount, claimedNothing);
                awaitGone(settings);
                assertTerminatedBy(scene, beforeCount.holder(), settings);
                scene.gated.open();        // addWorker: the pool is terminated, no worker is added
                awaitGone(w);
            } finally {
                beforeCount.release();
                claimedNothing.release();
                scene.gated.open();
                q.classes.claimProbe = null;
            }
            assertFalse(ran.get(), "t was removed, not run");
            assertEquals(0, q.size());
            assertEquals(0, scene.pool.getPoolSize());
        }
        if (voidRounds > 0) {
            System.out.println("class pass start: " + voidRounds + " of " + ROUNDS + " rounds void (the worker's own pass won)");
        }
        assertTrue(voidRounds < Math.max(1, ROUNDS / 2), voidRounds + " of " + ROUNDS + " rounds void");
    }

    /**
     * The claimant is held before counting its claim on a task already gone, and the gate is
     * armed for the last worker {@code w}, on its way to {@code getTask}'s {@code isEmpty()}
     * (which no longer sees the task). {@code w} reads that as 0 and leaves; held in
     * {@code tryTerminate}'s {@code isEmpty()}, it reads the transit count after the claimant
     * counted the claim that found nothing, and is held again in {@code addWorker}'s read while
     * that count drops.
     */
    private static void lastWorkerMisledByTheClaim(GatedQueue gated, Thread w, Hold beforeCount, Hold claimedNothing) {
        gated.awaitEntered();      // getTask's isEmpty(), held before the transit count ...
        gated.arm(w);
        gated.open();              // ... reads 0: the worker leaves; tryTerminate's isEmpty() ...
        gated.awaitEntered();      // ... held before the transit count
        beforeCount.release();     // the claim is counted, and finds the job empty
        claimedNothing.awaitHeld();
        gated.arm(w);
        gated.open();              // tryTerminate reads 1: "not empty", returns; addWorker's isEmpty() ...
        gated.awaitEntered();      // ... held before the transit count
        claimedNothing.release();  // the count drops; the claimant re-checks once its pass is over
    }

    /**
     * The pool terminated, and {@code claimant} ran {@code terminated()}: the last worker's
     * {@code tryTerminate} read the claim's count, so only the claimant's re-check could.
     * When the claimant is {@code caller} (gone by now) its re-check is over; another (the
     * housekeeper) gets {@link Waits#LONG}.
     */
    private static void assertTerminatedBy(Scene scene, Thread claimant, Thread caller) throws InterruptedException {
        if (claimant != caller) {
            scene.pool.awaitTermination(Waits.LONG.toMillis(), TimeUnit.MILLISECONDS);
        }
        assertTrue(scene.pool.isTerminated(),
                "shut down, no worker, queue empty: the pool must have terminated; " + scene.pool);
        assertSame(claimant, scene.terminatedBy.get(), "the last worker's tryTerminate read the claim's count:"
                + " only the claimant's re-check could terminate the pool");
    }

    /** Submits {@code task} from a thread of that name (the requestor the class map reads). */
    private static void submitAs(String threadName, TurntableExecutor pool, Runnable task) {
        Thread submitter = new Thread(() -> pool.execute(task), threadName);
        submitter.start();
        awaitGone(submitter);
    }

    /**
     * A submitter's task landed on a slot whose owner had left (it chose the slot while the owner
     * was still there), and the submitter moves it to the shared queue itself
     * ({@code WorkerRegistry.rescueToShared}): it sees the task and is held before it counts its
     * claim. The last worker steals the task (the slot is free), runs it, reads the queue empty
     * and leaves, misled in {@code tryTerminate} by the rescue's count. The submitter is no
     * worker: only its re-check can terminate the pool.
     */
    @Test
    void aSubmittersRescueThatCameUpEmptyLetsThePoolTerminate() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            Scene scene = new Scene(2, null, null);
            TurntableQueue q = scene.q;
            eventually("both workers wait for work", () -> q.parkedWorkerCount() == 2);
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch gate = cleanup.latch(1);
            Blocker blocker = new Blocker("w's task", started, gate);
            scene.pool.execute(blocker);
            awaitLatch(started, "a worker runs the blocker");
            Thread w = blocker.runner();
            Thread x = scene.other(w);
            WorkerSlot xSlot = slotOf(q, x);
            scene.pool.shutdown();     // x is idle: it leaves, and frees its empty slot; w stays for its task
            awaitGone(x);
            AtomicBoolean ran = new AtomicBoolean();
            Runnable t = () -> ran.set(true);
            assertTrue(xSlot.queue.offer(t), "a late push onto x's free slot");

            Thread submitter = new Thread(() -> q.signalPushed(xSlot), "submitter"); // sees FREE: rescues
            Hold beforeCount = new Hold("the rescue saw t", submitter);
            Hold claimedNothing = new Hold("the rescue's counted claim found nothing", submitter);
            q.workerRegistry.moveProbe = probe(beforeCount, claimedNothing);
            GatedQueue gated = scene.gated;
            try {
                submitter.start();
                beforeCount.awaitHeld();   // held before counting its claim, the registration lock held
                gated.arm(w);
                gate.countDown();          // w ends its blocker; getTask's isEmpty() (t counts) ...
                gated.awaitEntered();
                gated.arm(w);
                gated.open();              // ... 1: w steals t from the free slot and runs it; getTask's ...
                lastWorkerMisledByTheClaim(gated, w, beforeCount, claimedNothing);
                awaitGone(submitter);
                assertTerminatedBy(scene, submitter, submitter);
                gated.open();
                awaitGone(w);
            } finally {
                beforeCount.release();
                claimedNothing.release();
                gated.open();
                q.workerRegistry.moveProbe = null;
            }
            assertTrue(ran.get(), "w ran the task it stole");
            assertEquals(0, q.size());
            assertEquals(0, scene.pool.getPoolSize());
        }
    }

    /**
     * A class pass starts a task on the only worker, whose slot is detached by the time the task
     * lands there (the worker, shut down, leaves its wait every few ms and comes back), so the
     * pass rescues the task itself; the worker, back, takes the task from its own queue between
     * the rescue's look and its claim. The rescue's claim came up empty while the pass's own
     * move of that task was still counted: a re-check there would wait in {@code remove} for
     * every counted move to end, its own too, for good. The pass must re-check once it is over:
     * the pass's thread returns, and the pool terminates. (Not a misled last worker: the worker
     * is still the executor's here, and terminates the pool itself.)
     */
    @Test
    void aRescueInsideAClassPassDoesNotWaitForThePassesOwnMove() throws Exception {
        int voidRounds = 0;
        for (int round = 0; round < ROUNDS; round++) {
            Scene scene = new Scene(1, "interactive:100;batch:0", MAP);
            TurntableQueue q = scene.q;
            eventually("the worker waits for work", () -> q.parkedWorkerCount() == 1);
            Thread w = scene.threads.get(0);
            AtomicBoolean ran = new AtomicBoolean();
            Runnable t = () -> ran.set(true);
            submitAs("batch-1", scene.pool, t); // a 0% class: it waits in its job, the worker idle
            q.setStrategy(HoldingStrategy.NAME);
            Thread settings = new Thread(() -> q.setTaskClasses("interactive:0;batch:100", MAP), "settings");
            scene.strategy.hold(settings);
            Hold beforeCount = new Hold("the pass's rescue saw t", settings);
            Hold claimedNothing = new Hold("the rescue's counted claim found nothing", settings);
            GatedQueue gated = scene.gated;
            try {
                settings.start();          // batch gets the idle worker: the pass takes t (counted) ...
                eventually("the pass chooses a worker for t", () -> scene.strategy.holding() || ran.get());
                if (!scene.strategy.holding()) {
                    voidRounds++;          // the worker's own pass won the race to the job and ran t
                    awaitGone(settings);
                    continue;
                }
                gated.arm(w);
                scene.pool.shutdown();     // the idle worker is interrupted: it leaves its wait (detached) ...
                gated.awaitEntered();      // ... held in getTask's isEmpty()
                q.workerRegistry.moveProbe = probe(beforeCount, claimedNothing);
                scene.strategy.release();  // t lands on the detached slot: the pass rescues it ...
                beforeCount.awaitHeld();   // ... held before counting its claim
                gated.open();              // the worker comes back: takes t from its own queue, runs it
                eventually("the worker runs t", ran::get);
                beforeCount.release();     // the rescue counts its claim, which finds nothing
                claimedNothing.awaitHeld();
                claimedNothing.release();
                awaitGone(settings);       // a re-check inside the pass would wait for its own move
                scene.pool.awaitTermination(Waits.LONG.toMillis(), TimeUnit.MILLISECONDS);
                assertTrue(scene.pool.isTerminated(), "the pool terminates: " + scene.pool);
                awaitGone(w);
            } finally {
                scene.strategy.release();
                beforeCount.release();
                claimedNothing.release();
                gated.open();
                q.workerRegistry.moveProbe = null;
            }
            assertEquals(0, q.size());
        }
        if (voidRounds > 0) {
            System.out.println("rescue in a pass: " + voidRounds + " of " + ROUNDS + " rounds void (the worker's own pass won)");
        }
        assertTrue(voidRounds < Math.max(1, ROUNDS / 2), voidRounds + " of " + ROUNDS + " rounds void");
    }

    /**
     * Always chooses worker 0; the one thread {@link #hold} names waits in its first choice
     * until {@link #release}.
     */
    static final class HoldingStrategy implements WorkerChoiceStrategy {
        static final String NAME = "HOLDING_FIRST_CHOICE";
        private volatile Thread target;
        private final CountDownLatch holding = new CountDownLatch(1);
        private final CountDownLatch release = new CountDownLatch(1);

        void hold(Thread t) {
            target = t;
        }

        boolean holding() {
            return holding.getCount() == 0;
        }

        void release() {
            release.countDown();
        }

        @Override
        public String name() {
            return NAME;
        }

        @Override
        public Set<Statistic> requiredStatistics() {
            return Set.of();
        }

        @Override
        public int choose(WorkerView workers, long nowNanos) {
            if (Thread.currentThread() == target) {
                target = null;
                holding.countDown();
                try {
                    release.await(Waits.LONG.toMillis(), TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return 0;
        }
    }

    /** A {@link TurntableExecutor} on a replaced {@link GatedQueue}, recording its threads and who terminated it. */
    private final class Scene {
        final GatedQueue gated = new GatedQueue();
        final List<Thread> threads = new CopyOnWriteArrayList<>();
        final AtomicReference<Thread> terminatedBy = new AtomicReference<>();
        final HoldingStrategy strategy = new HoldingStrategy();
        final TurntableExecutor pool;
        final TurntableQueue q;

        Scene(int workers, String classLoadPercents, String requestorMap) throws Exception {
            ThreadFactory named = r -> {
                Thread t = new Thread(r, "worker-" + threads.size());
                threads.add(t);
                return t;
            };
            TurntableExecutor.Builder b = TurntableExecutor.builder().workers(workers).threadFactory(named);
            if (classLoadPercents != null) {
                b.taskClasses(classLoadPercents, requestorMap);
            }
            // The builder has no public way to name a replaced queue: set it as the agent's would be.
            java.lang.reflect.Field f = TurntableExecutor.Builder.class.getDeclaredField("queue");
            f.setAccessible(true);
            ((TurntableQueueBuilder) f.get(b)).replacing(gated).registerStrategy(HoldingStrategy.NAME, () -> strategy);
            pool = cleanup.track(new TurntableExecutor(b) {
                @Override
                protected void terminated() {
                    terminatedBy.set(Thread.currentThread());
                    super.terminated();
                }
            });
            q = pool.getTurntableQueue();
        }

        Thread other(Thread w) {
            for (Thread t : threads) {
                if (t != w) {
                    return t;
                }
            }
            throw new AssertionError("no second worker");
        }
    }

    private static WorkerSlot slotOf(TurntableQueue q, Thread t) {
        for (WorkerSlot s : q.slots) {
            if (s.thread == t) {
                return s;
            }
        }
        throw new AssertionError(t.getName() + " holds no slot");
    }

    /** A seam that holds its claimant at each of the two edges (also {@link DirectRemoveTerminationTest}'s). */
    static ClaimProbe probe(Hold beforeCount, Hold claimedNothing) {
        return new ClaimProbe() {
            @Override
            public void beforeCount() {
                beforeCount.hold();
            }

            @Override
            public void claimedNothing() {
                claimedNothing.hold();
            }
        };
    }
}
