package dev.turntable.pool;

import static dev.turntable.pool.testing.NamedTask.recording;
import static dev.turntable.pool.testing.Waits.awaitLatch;
import static dev.turntable.pool.testing.Waits.eventually;
import static dev.turntable.pool.testing.Waits.holdDeafToInterrupts;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.turntable.pool.testing.PoolCleanup;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A single worker that dies in {@code beforeExecute} (ThreadPoolExecutor documents that this
 * ends it) skips the {@code afterExecute} that hands a dying worker's tasks on early; it makes
 * its own replacement in {@code processWorkerExit}, before its thread's loop ends. Its tasks go
 * to the shared queue as that replacement is made, so they run before anything submitted once
 * the replacement is up. The first test looks at the moment the replacement thread is made; the
 * other two submit inside the replacement's {@code Thread.start}, on the dying thread: before,
 * the tasks were still on the dead worker's queue, and the replacement ran the new task first.
 * JDK 21 and later start a pool's threads through a thread container, not through
 * {@code Thread.start()}, so those two run on JDK 17 only.
 */
final class BeforeExecuteDeathOrderTest {

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();
    private final List<String> ran = Collections.synchronizedList(new ArrayList<>());
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    private Runnable record(String name) {
        return recording(name, ran);
    }

    /**
     * A single-worker pool whose first task is refused in beforeExecute, with B and C queued
     * behind it. On the dying thread, with the pool: {@code whenReplacementMade} as the
     * replacement thread is made, and {@code inReplacementStart} (also given the replacement)
     * as it has started; either may be null.
     */
    private TurntableExecutor dyingPool(boolean stealing, Runnable b, Consumer<TurntableExecutor> whenReplacementMade,
            BiConsumer<TurntableExecutor, Thread> inReplacementStart) {
        AtomicInteger made = new AtomicInteger();
        AtomicReference<TurntableExecutor> poolRef = new AtomicReference<>();
        ThreadFactory factory = r -> {
            int n = made.incrementAndGet();
            if (n == 2 && whenReplacementMade != null) {
                whenReplacementMade.accept(poolRef.get());
            }
            Thread t = new Thread(r, "dies-in-before-" + n) {
                @Override
                public synchronized void start() {
                    super.start();
                    if (n == 2 && inReplacementStart != null) {
                        try {
                            inReplacementStart.accept(poolRef.get(), this);
                        } catch (Throwable e) {
                            failure.set(e);
                        }
                    }
                }
            };
            t.setDaemon(true);
            t.setUncaughtExceptionHandler((thread, e) -> { }); // the death is on purpose
            return t;
        };
        CountDownLatch inBeforeExecute = new CountDownLatch(1);
        CountDownLatch die = cleanup.latch(1);
        AtomicBoolean refuseNext = new AtomicBoolean(true);
        TurntableExecutor pool = cleanup.track(new TurntableExecutor(
                TurntableExecutor.builder().workers(1).taskStealing(stealing).threadFactory(factory)) {
            @Override
            protected void beforeExecute(Thread t, Runnable r) {
                if (refuseNext.compareAndSet(true, false)) {
                    inBeforeExecute.countDown();
                    holdDeafToInterrupts(die);
                    throw new IllegalStateException("beforeExecute refuses: the worker ends");
                }
            }
        });
        poolRef.set(pool);
        pool.execute(record("refused"));
        awaitLatch(inBeforeExecute, "the worker is in beforeExecute");
        pool.execute(b);
        pool.execute(record("C"));
        die.countDown();
        return pool;
    }

    @Test
    void theDeadWorkersTasksAreInTheSharedQueueWhenItsReplacementThreadIsMade() throws Exception {
        AtomicInteger sharedWhenReplacementMade = new AtomicInteger(-1);
        dyingPool(false, record("B"), p -> sharedWhenReplacementMade.set(p.getTurntableQueue().sharedCount.get()), null);
        eventually("B and C ran", () -> ran.size() == 2);
        assertEquals(2, sharedWhenReplacementMade.get(), "B and C were handed on before the replacement existed");
        assertEquals(List.of("B", "C"), ran);
    }

    private void submitFromAnotherThread(TurntableExecutor pool, String name) throws InterruptedException {
        Thread submitter = new Thread(() -> pool.execute(record(name)), "submitter");
        submitter.start();
        submitter.join(TimeUnit.SECONDS.toMillis(30));
    }

    private void assertRanInOrder(TurntableExecutor pool) throws InterruptedException {
        eventually("B, C and D ran", () -> ran.size() == 3);
        pool.shutdown();
        assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
        assertNull(failure.get());
        assertEquals(List.of("B", "C", "D"), ran, "D was submitted after B and C to a single-worker pool");
    }

    @Test
    void aTaskSubmittedOnceTheReplacementWaitsRunsAfterTheDeadWorkersTasks() throws Exception {
        assumeTrue(Runtime.version().feature() < 21, "the pool starts its threads without Thread.start() here");
        TurntableExecutor pool = dyingPool(false, record("B"), null, (p, replacement) -> {
            eventually("the replacement waits for work", () -> replacement.getState() == Thread.State.WAITING
                    || replacement.getState() == Thread.State.TIMED_WAITING);
            try {
                submitFromAnotherThread(p, "D");
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        assertRanInOrder(pool);
    }

    @Test
    void aTaskSubmittedWhileTheReplacementRunsTheFirstOfThemRunsAfterAllOfThem() throws Exception {
        assumeTrue(Runtime.version().feature() < 21, "the pool starts its threads without Thread.start() here");
        CountDownLatch bRunning = new CountDownLatch(1);
        CountDownLatch releaseB = cleanup.latch(1);
        Runnable b = () -> {
            ran.add("B");
            bRunning.countDown();
            awaitLatch(releaseB, "B is released");
        };
        TurntableExecutor pool = dyingPool(true, b, null, (p, replacement) -> {
            awaitLatch(bRunning, "the replacement runs B");
            try {
                submitFromAnotherThread(p, "D");
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            releaseB.countDown();
        });
        assertRanInOrder(pool);
    }
}
