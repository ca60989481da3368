package dev.turntable.pool;

import static dev.turntable.pool.testing.NamedTask.recording;
import static dev.turntable.pool.testing.Waits.awaitIgnoringInterrupts;
import static dev.turntable.pool.testing.Waits.awaitLatch;
import static dev.turntable.pool.testing.Waits.eventually;
import static dev.turntable.pool.testing.Waits.holdDeafToInterrupts;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.testing.PoolCleanup;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A submit in the instant a single worker's death has lowered the pool's worker count, before
 * its replacement is counted: ThreadPoolExecutor hands the task to a new core thread, which runs
 * it ahead of the tasks the dead worker left. The test holds the pool's {@code mainLock} (read by
 * reflection: its own surefire execution opens {@code java.util.concurrent}) so that the dying
 * worker stops inside {@code processWorkerExit} right after the count dropped, and submits there.
 * Here the worker dies in {@code beforeExecute}, which skips the {@code afterExecute} that hands
 * a dying worker's tasks on early, so they are still on its own queue. The first test failed 3 of
 * 3 runs while {@link TurntableExecutor#execute} queued a task only when tasks waited in the
 * shared queue; the second, in which the replacement is made by the submit rather than by the
 * dying worker, failed until a thread registering in a single-worker pool handed on the tasks
 * of the one the pool had counted out.
 */
final class DeathWindowInternalsTest {

    /** ThreadPoolExecutor's {@code ctl}: the low 29 bits count the workers. */
    private static final int COUNT_MASK = (1 << 29) - 1;

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();
    private final List<String> ran = Collections.synchronizedList(new ArrayList<>());

    private Runnable record(String name) {
        return recording(name, ran);
    }

    private static Object internal(ThreadPoolExecutor pool, String field) throws ReflectiveOperationException {
        Field f = ThreadPoolExecutor.class.getDeclaredField(field);
        f.setAccessible(true);
        return f.get(pool);
    }

    /**
     * A single-worker pool whose first task's beforeExecute holds until {@link #die} opens and
     * then throws, which ends the worker; its threads are quiet about it, and the second one
     * made (the replacement) is kept.
     */
    private final class Dying {
        final CountDownLatch inBeforeExecute = new CountDownLatch(1);
        final CountDownLatch die = cleanup.latch(1);
        final AtomicReference<Thread> worker = new AtomicReference<>();
        final AtomicReference<Thread> replacement = new AtomicReference<>();

        TurntableExecutor pool(boolean stealing) {
            AtomicBoolean refuseNext = new AtomicBoolean(true);
            AtomicInteger made = new AtomicInteger();
            ThreadFactory quiet = r -> {
                Thread t = new Thread(r, "death-window-" + made.incrementAndGet());
                if (made.get() == 2) {
                    replacement.set(t);
                }
                t.setDaemon(true);
                t.setUncaughtExceptionHandler((thread, e) -> { }); // the death is on purpose
                return t;
            };
            return cleanup.track(new TurntableExecutor(
                    TurntableExecutor.builder().workers(1).taskStealing(stealing).threadFactory(quiet)) {
                @Override
                protected void beforeExecute(Thread t, Runnable r) {
                    if (refuseNext.compareAndSet(true, false)) {
                        worker.set(t);
                        inBeforeExecute.countDown();
                        holdDeafToInterrupts(die);
                        throw new IllegalStateException("beforeExecute refuses: the worker ends, as ThreadPoolExecutor documents");
                    }
                }
            });
        }
    }

    @Test
    void aSubmitWhileTheDeadWorkerIsUncountedRunsAfterTheTasksItLeft() throws Exception {
        Dying dying = new Dying();
        TurntableExecutor pool = dying.pool(true);
        pool.execute(record("refused"));
        awaitLatch(dying.inBeforeExecute, "the worker is in beforeExecute");
        pool.execute(record("B"));
        pool.execute(record("C"));

        ReentrantLock mainLock = (ReentrantLock) internal(pool, "mainLock");
        AtomicInteger ctl = (AtomicInteger) internal(pool, "ctl");
        Thread submitter;
        mainLock.lock();
        try {
            dying.die.countDown();
            Thread worker = dying.worker.get();
            eventually("the dying worker waits for mainLock in processWorkerExit", () -> mainLock.hasQueuedThread(worker));
            assertEquals(0, ctl.get() & COUNT_MASK, "the pool counts no worker now");
            submitter = new Thread(() -> pool.execute(record("D")), "death-window-submitter");
            submitter.start();
            // ThreadPoolExecutor's own path (addWorker) and ours (prestartCoreThread) both wait here.
            eventually("the submit reaches the pool's lock", () -> mainLock.hasQueuedThread(submitter));
        } finally {
            mainLock.unlock();
        }
        submitter.join(TimeUnit.SECONDS.toMillis(30));
        eventually("B, C and D ran", () -> ran.size() == 3);
        pool.shutdown();
        assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
        assertEquals(List.of("B", "C", "D"), ran, "D was submitted after B and C to a single-worker pool");
    }

    @ParameterizedTest(name = "task stealing {0}")
    @ValueSource(booleans = {false, true})
    void aTaskSubmittedOnceAReplacementMadeByASubmitterIsUpRunsAfterTheDeadWorkersTasks(boolean stealing) throws Exception {
        Dying dying = new Dying();
        TurntableExecutor pool = dying.pool(stealing);
        pool.execute(record("refused"));
        awaitLatch(dying.inBeforeExecute, "the worker is in beforeExecute");
        CountDownLatch bRunning = new CountDownLatch(1);
        CountDownLatch releaseB = cleanup.latch(1);
        pool.execute(() -> {
            ran.add("B");
            bRunning.countDown();
            awaitIgnoringInterrupts(releaseB);
        });
        pool.execute(record("C"));

        ReentrantLock mainLock = (ReentrantLock) internal(pool, "mainLock");
        AtomicInteger ctl = (AtomicInteger) internal(pool, "ctl");
        mainLock.lock(); // held by this thread: the submit below makes the replacement here, re-entrantly
        try {
            dying.die.countDown();
            Thread worker = dying.worker.get();
            eventually("the dying worker waits for mainLock in processWorkerExit", () -> mainLock.hasQueuedThread(worker));
            assertEquals(0, ctl.get() & COUNT_MASK, "the pool counts no worker now");
            pool.execute(record("D")); // queued behind B and C; its prestartCoreThread makes the replacement
            assertEquals(1, ctl.get() & COUNT_MASK, "the replacement is counted: the dying worker will make none");
            eventually("the replacement is made", () -> dying.replacement.get() != null);
            Thread r = dying.replacement.get();
            if (stealing) {
                awaitLatch(bRunning, "the replacement runs B");
            } else {
                eventually("the replacement waits for work", () -> r.getState() == Thread.State.WAITING
                        || r.getState() == Thread.State.TIMED_WAITING);
            }
            pool.execute(record("E"));
            releaseB.countDown();
            eventually("the replacement ran what it could reach while the dying worker is held", () -> pool.getTurntableQueue()
                    .workers().stream().filter(w -> r.getName().equals(w.threadName())).allMatch(w -> w.queued() == 0 && w.running() == 0));
        } finally {
            mainLock.unlock();
        }
        eventually("B, C, D and E ran", () -> ran.size() == 4);
        pool.shutdown();
        assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
        assertEquals(List.of("B", "C", "D", "E"), ran, "submitted in that order to a single-worker pool");
    }
}
