package dev.turntable.pool;

import static dev.turntable.pool.testing.Waits.awaitGone;
import static dev.turntable.pool.testing.Waits.awaitLatch;
import static dev.turntable.pool.testing.Waits.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.testing.Blocker;
import dev.turntable.pool.testing.GatedQueue;
import dev.turntable.pool.testing.Hold;
import dev.turntable.pool.testing.PoolCleanup;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A claim counted in transit before it is made, which then finds nothing because another thread
 * took the task after the claimant looked, makes {@code size()} count a task that is not there
 * for an instant. A shut-down pool's last worker, leaving, reads {@code isEmpty()} once in
 * {@code tryTerminate}: reading "not empty" there it returns, and if {@code processWorkerExit}'s
 * {@code addWorker} then reads "empty" no worker is added, and nothing else would ever re-check:
 * the pool stayed SHUTDOWN for good, with no worker and nothing queued. The claimant must make the
 * owner re-check termination ({@code TurntableQueue.emptyClaimEnded}), once out of any lock.
 * {@link DirectRemoveTerminationTest} covers a removal's claim; this test a leaving worker's move
 * to the shared queue ({@code WorkerRegistry.moveToShared}).
 *
 * <p>As there, the engine replaces a {@link GatedQueue}, whose {@code size()} (which
 * {@code TurntableQueue.size()} reads just before the transit count) holds the last worker when
 * armed, as a preemption there would; and a {@link ClaimProbe} holds the claimant before it counts
 * its claim and after that claim came up empty. Each test checks that the pool terminated, and
 * that the claimant's re-check did it: had the last worker's own {@code tryTerminate} not been
 * misled, the test would no longer hold the window open.
 *
 * <p>{@code -DemptyClaimRounds=200} repeats each interleaving that many times.
 */
final class EmptyClaimTerminationTest {

    private static final int ROUNDS = Integer.getInteger("emptyClaimRounds", 3);

    private final PoolCleanup cleanup = new PoolCleanup();

    @AfterEach
    void stopPools() {
        cleanup.close();
    }

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

    /** A {@link TurntableExecutor} on a replaced {@link GatedQueue}, recording its threads and who terminated it. */
    private final class Scene {
        final GatedQueue gated = new GatedQueue();
        final List<Thread> threads = new CopyOnWriteArrayList<>();
        final AtomicReference<Thread> terminatedBy = new AtomicReference<>();
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
            ((TurntableQueueBuilder) f.get(b)).replacing(gated);
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

    private static ClaimProbe probe(Hold beforeCount, Hold claimedNothing) {
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
