package dev.turntable.pool;

import static dev.turntable.pool.TurntableQueueTest.awaitAttached;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.strategy.FairShare;
import dev.turntable.pool.strategy.Statistic;
import dev.turntable.pool.strategy.WorkerChoiceStrategy;
import dev.turntable.pool.strategy.WorkerView;
import dev.turntable.pool.testing.CountingThreadFactory;
import dev.turntable.pool.testing.PoolCleanup;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * FAIR_SHARE with task stealing on (the default) among tiny tasks, which the workers time in a
 * 1-in-16 sample: a long task left untimed publishes no start. It used to read as just started
 * for its whole run, so FAIR_SHARE kept giving its worker every task that tied with the other,
 * busy worker, and those waited behind it until the other ran out of work and stole them. Now
 * the submitters date such a task when one of them reads the clock (a sampled 1 in 16 choices),
 * and from then on it ages like a timed one.
 */
class FairShareUntimedLongTaskTest {

    private static final int WORKERS = 2;

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();

    /** FAIR_SHARE itself, counting its choices while {@link #recording}. */
    static final class RecordingFairShare implements WorkerChoiceStrategy {
        static final String NAME = "RECORDING_FAIR_SHARE";
        private final FairShare fairShare = new FairShare();
        final AtomicIntegerArray chosen = new AtomicIntegerArray(WORKERS);
        volatile boolean recording;

        @Override
        public String name() {
            return NAME;
        }

        @Override
        public Set<Statistic> requiredStatistics() {
            return fairShare.requiredStatistics();
        }

        @Override
        public boolean usesClock() {
            return true;
        }

        @Override
        public boolean needsClock(WorkerView workers) {
            return fairShare.needsClock(workers);
        }

        @Override
        public int choose(WorkerView workers, long nowNanos) {
            int i = fairShare.choose(workers, nowNanos);
            if (recording && i >= 0) {
                chosen.incrementAndGet(i);
            }
            return i;
        }
    }

    @Test
    void anUntimedLongTaskAgesOnceASubmitterSeesItAndGetsNoMoreTasks() throws Exception {
        RecordingFairShare strategy = new RecordingFairShare();
        TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(WORKERS)
                .registerStrategy(RecordingFairShare.NAME, () -> strategy).strategy(RecordingFairShare.NAME)
                .threadFactory(new CountingThreadFactory("fair-untimed")).build());
        TurntableQueue queue = pool.getTurntableQueue();
        awaitAttached(queue, WORKERS);
        AtomicInteger ran = new AtomicInteger();
        int submitted = runTiny(pool, ran, 20_000); // both workers learn that tasks here take nanoseconds

        // A long task amid a stream of tiny ones, until one is left untimed by the sample (15 in
        // 16 are, once the worker samples; one taken after a park starts with the wake-up's clock
        // read, and a timed one ends the sampling for a few dozen tasks, so warm up again).
        CountDownLatch hold = null;
        WorkerSlot longSlot = null;
        for (int attempt = 0; attempt < 40 && longSlot == null; attempt++) {
            CountDownLatch release = cleanup.latch(1);
            for (int i = 0; i < 1_000; i++) {
                pool.execute(ran::incrementAndGet);
            }
            submitted += 1_000;
            AtomicReference<Thread> runner = new AtomicReference<>();
            CountDownLatch started = new CountDownLatch(1);
            pool.execute(() -> {
                runner.set(Thread.currentThread());
                started.countDown();
                awaitQuietly(release);
                ran.incrementAndGet();
            });
            submitted++;
            assertTrue(started.await(30, TimeUnit.SECONDS), "the long task started");
            WorkerSlot s = slotOf(queue, runner.get());
            if (s.runningSinceNanos == WorkerView.START_UNKNOWN) {
                longSlot = s;
                hold = release;
            } else {
                release.countDown(); // timed: its age is known anyway, which is not this case
                submitted += runTiny(pool, ran, 2_000);
            }
        }
        assertTrue(longSlot != null, "40 long tasks in a row were timed: the workers never sampled");
        int longWorker = longSlot.index;
        WorkerView view = new SlotView(queue, false);
        int beforeLong = submitted - 1;
        await().atMost(Duration.ofSeconds(30)).until(() -> ran.get() >= beforeLong); // the stream ran out

        // Batches of tiny tasks keep the other worker busy, each run to the end before the next
        // (so its queue stays short, and only the long task can make its worker look busier);
        // a submitter that reads the clock dates the long one.
        while (view.runningSinceNanos(longWorker) == WorkerView.START_UNKNOWN) {
            assertTrue(submitted < 1_000_000, "no submitter dated the long task in a million choices");
            submitted += runBatch(pool, ran, submitted);
        }
        long seenSinceNanos = view.runningSinceNanos(longWorker);
        // Age it 50 ms, longer than the other worker is likely to be preempted (its task would
        // look that old too), and past every run time in its worker's window (a tiny task
        // preempted for milliseconds may be one): only then is its remaining time certain to
        // read as at least its age.
        long ageNanos;
        while ((ageNanos = System.nanoTime() - seenSinceNanos) < TimeUnit.MILLISECONDS.toNanos(50)
                || view.remainingTimeNanos(longWorker, ageNanos) >= 0) {
            assertTrue(ageNanos < TimeUnit.SECONDS.toNanos(20), "the window still holds a run time over 20 s");
            submitted += runBatch(pool, ran, submitted);
        }
        assertEquals(seenSinceNanos, view.runningSinceNanos(longWorker), "the first date stays while the task runs");

        strategy.recording = true;
        int recorded = 0;
        for (int b = 0; b < 200; b++) {
            int n = runBatch(pool, ran, submitted);
            submitted += n;
            recorded += n;
        }
        strategy.recording = false;
        // Still a candidate (not taken out as stuck, say): FAIR_SHARE passed it over, nothing else.
        assertTrue(view.isAvailable(longWorker), "the long task's worker stayed available");
        int toLong = strategy.chosen.get(longWorker);
        // Read as just started, the long task's worker tied with the busy other one whenever
        // their queues matched, and won whenever the other had one more queued: about half.
        assertEquals(0, toLong, "a task 50 ms old among tasks of nanoseconds got " + toLong + " of " + recorded
                + " tasks (per worker: " + strategy.chosen + ")");

        hold.countDown();
        int all = submitted;
        await().atMost(Duration.ofSeconds(30)).until(() -> ran.get() == all);
        assertEquals(all, ran.get(), "every task ran once");
    }

    private static final int BATCH = 10;

    /**
     * Submits {@value #BATCH} tiny tasks at once and waits (spinning: a few microseconds) until
     * every task submitted so far but the long one has run; returns {@value #BATCH}.
     */
    private static int runBatch(TurntableExecutor pool, AtomicInteger ran, int submittedBefore) {
        for (int i = 0; i < BATCH; i++) {
            pool.execute(ran::incrementAndGet);
        }
        int target = submittedBefore + BATCH - 1;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (ran.get() < target) {
            assertTrue(System.nanoTime() < deadline, "a batch of tiny tasks did not run in 30 s");
            Thread.onSpinWait();
        }
        return BATCH;
    }

    /** Submits {@code n} tiny tasks and waits until they have all run; returns {@code n}. */
    private static int runTiny(TurntableExecutor pool, AtomicInteger ran, int n) {
        int target = ran.get() + n;
        for (int i = 0; i < n; i++) {
            pool.execute(ran::incrementAndGet);
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> ran.get() >= target);
        return n;
    }

    private static WorkerSlot slotOf(TurntableQueue queue, Thread t) {
        for (WorkerSlot s : queue.slots) {
            if (s.thread == t) {
                return s;
            }
        }
        throw new AssertionError("no slot for " + t);
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
