package dev.turntable.pool;

import static dev.turntable.pool.testing.Waits.awaitLatch;
import static dev.turntable.pool.testing.Waits.eventually;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.turntable.pool.testing.PoolCleanup;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Builder settings that conflict or that ThreadPoolExecutor allows: each is refused with a message
 * naming the value and what is allowed, and changes nothing, or builds the pool it describes.
 */
class TurntableExecutorBuilderTest {

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();

    /**
     * A thread factory that throws after making a thread (a cap, no native threads left): build
     * throws what it threw, and the thread already started ends, where before it kept running
     * (non-daemon: a main program could never exit) with no pool left to shut it down.
     */
    @Test
    void aFactoryThatThrowsPartwayLeavesNoThreadRunning() {
        List<Thread> made = new CopyOnWriteArrayList<>();
        ThreadFactory capped = cappedAtOne(made);
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> TurntableExecutor.builder().workers(3).threadFactory(capped).build());
        assertEquals("thread cap reached", e.getMessage());
        assertEquals(1, made.size(), "one thread was made");
        eventually("the thread already started ends", () -> !made.get(0).isAlive());
    }

    /** A factory that makes one thread (added to {@code made}) and throws for every later one. */
    private static ThreadFactory cappedAtOne(List<Thread> made) {
        return r -> {
            if (!made.isEmpty()) {
                throw new IllegalStateException("thread cap reached");
            }
            Thread t = new Thread(r, "capped");
            made.add(t);
            return t;
        };
    }

    /** A subclass, as the class invites, whose shutdownNow uses a field of its own. */
    static final class RecordingPool extends TurntableExecutor {
        private final List<String> calls = new CopyOnWriteArrayList<>();

        RecordingPool(TurntableExecutor.Builder b) {
            super(b);
        }

        @Override
        public List<Runnable> shutdownNow() {
            calls.add("shutdownNow");
            return super.shutdownNow();
        }
    }

    /**
     * The same with such a subclass: its override would run before its fields exist. The
     * constructor stops the threads with ThreadPoolExecutor's own shutdownNow, so the factory's
     * exception comes out (not the override's NullPointerException) and the thread ends.
     */
    @Test
    void aFactoryThatThrowsPartwayLeavesNoThreadRunningUnderASubclass() {
        List<Thread> made = new CopyOnWriteArrayList<>();
        ThreadFactory capped = cappedAtOne(made);
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> new RecordingPool(TurntableExecutor.builder().workers(3).threadFactory(capped)));
        assertEquals("thread cap reached", e.getMessage());
        eventually("the thread already started ends", () -> !made.get(0).isAlive());
    }

    @Test
    void aSecondCapacityIsRefusedAndTheFirstStays() {
        TurntableExecutor.Builder bounded = TurntableExecutor.builder().workers(1).queueCapacity(10);
        assertState("queue capacity already set to queueCapacity(10); handOff() conflicts with it:"
                + " call only one of queueCapacity(n) or handOff()", bounded::handOff);
        assertState("queue capacity already set to queueCapacity(10); queueCapacity(20) conflicts",
                () -> bounded.queueCapacity(20));
        TurntableExecutor pool = cleanup.track(bounded.build());
        assertEquals(TurntableQueue.Capacity.BOUNDED, pool.getTurntableQueue().getCapacityMode());
        assertEquals(10, pool.getQueue().remainingCapacity());

        TurntableExecutor.Builder handOff = TurntableExecutor.builder().workers(1).handOff();
        assertState("queue capacity already set to handOff(); queueCapacity(10) conflicts",
                () -> handOff.queueCapacity(10));
        assertEquals(TurntableQueue.Capacity.HAND_OFF,
                cleanup.track(handOff.build()).getTurntableQueue().getCapacityMode());
    }

    @Test
    void aSecondCapacityOfTheQueueBuilderIsRefusedAndTheFirstStays() {
        TurntableQueueBuilder b = TurntableQueue.builder().bounded(10);
        assertState("queue capacity already set to bounded(10); handOff() conflicts with it:"
                + " call only one of unbounded(), bounded(n) or handOff()", b::handOff);
        assertState("queue capacity already set to bounded(10); unbounded() conflicts", b::unbounded);
        assertState("queue capacity already set to bounded(10); bounded(3) conflicts", () -> b.bounded(3));
        assertEquals(10, b.build().remainingCapacity());

        TurntableQueueBuilder h = TurntableQueue.builder().handOff();
        assertState("queue capacity already set to handOff(); bounded(10) conflicts", () -> h.bounded(10));
        assertEquals(TurntableQueue.Capacity.HAND_OFF, h.build().getCapacityMode());

        TurntableQueueBuilder u = TurntableQueue.builder().unbounded();
        assertState("queue capacity already set to unbounded(); handOff() conflicts", u::handOff);
        assertEquals(TurntableQueue.Capacity.UNBOUNDED, u.build().getCapacityMode());
    }

    @Test
    void aPoolOfNoCoreWorkersStartsThreadsAsTasksComeLikeACachedPool() {
        TurntableExecutor cached = cleanup.track(TurntableExecutor.builder().workers(0).maximumWorkers(2).handOff()
                .keepAlive(60, SECONDS).build());
        assertEquals(0, cached.getCorePoolSize());
        CountDownLatch both = cleanup.latch(2);
        CountDownLatch done = new CountDownLatch(2);
        for (int i = 0; i < 2; i++) {
            cached.execute(() -> { // two tasks that wait for each other: two threads
                both.countDown();
                awaitLatch(both, "the other task");
                done.countDown();
            });
        }
        awaitLatch(done, "both tasks of a workers(0) hand-off pool");

        // Unbounded: ThreadPoolExecutor starts a worker when a task is queued and none exists.
        TurntableExecutor lazy = cleanup.track(TurntableExecutor.builder().workers(0).maximumWorkers(1).build());
        CountDownLatch ran = new CountDownLatch(3);
        for (int i = 0; i < 3; i++) {
            lazy.execute(ran::countDown);
        }
        awaitLatch(ran, "three tasks of a workers(0) unbounded pool");
    }

    @Test
    void workersZeroNeedsAMaximumAndWeightsStillCountOnePerWorker() {
        assertArgument("workers 0 needs maximumWorkers(n) with n >= 1", () -> TurntableExecutor.builder().workers(0).build());
        assertArgument("workers -1 is not allowed: from 0", () -> TurntableExecutor.builder().workers(-1));
        assertArgument("workers is not set: call workers(n)", () -> TurntableExecutor.builder().maximumWorkers(2).build());
        assertArgument("[1, 2, 3] has 3 weights; this pool takes one per worker: 1 to 2 weights",
                () -> TurntableExecutor.builder().workers(0).maximumWorkers(2).weightsMillis(1, 2, 3).build());
        TurntableExecutor weighted = cleanup.track(TurntableExecutor.builder().workers(0).maximumWorkers(2)
                .weightsMillis(5).build());
        assertEquals(5, weighted.getTurntableQueue().getWorkerWeightsMillis()[0]);
    }

    private static void assertArgument(String expected, Executable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        assertContains(expected, e.getMessage());
    }

    private static void assertState(String expected, Executable call) {
        IllegalStateException e = assertThrows(IllegalStateException.class, call);
        assertContains(expected, e.getMessage());
    }

    private static void assertContains(String expected, String message) {
        if (message == null || !message.contains(expected)) {
            throw new AssertionError("expected '" + expected + "' in: " + message);
        }
    }
}
