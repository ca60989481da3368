package dev.turntable.pool;

import static dev.turntable.pool.testing.Waits.awaitIgnoringInterrupts;
import static dev.turntable.pool.testing.Waits.awaitLatch;
import static dev.turntable.pool.testing.Waits.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.testing.PoolCleanup;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A pool with task classes, stopped by {@code shutdownNow()} just as its workers come back from
 * their tasks: once it has terminated, no task counts as running in its class, whichever thread
 * completed the termination. ThreadPoolExecutor lets a stopped pool's worker go without asking
 * the queue again, and the worker's thread tells the queue only on its way out; the last worker
 * to count itself out (or the caller of shutdownNow) may terminate the pool before another
 * worker's thread has got that far.
 */
final class ClassCountsAtTerminationTest {

    /** Rounds of the race; without the termination's own settling about 1 in 9 lost it. */
    private static final int ROUNDS = 50;

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();

    @Test
    void noClassTaskCountsAsRunningOnceThePoolHasTerminated() throws Exception {
        for (int round = 1; round <= ROUNDS; round++) {
            CountDownLatch tasksGo = cleanup.latch(1);
            CountDownLatch bothPastTheirTasks = new CountDownLatch(2);
            CountDownLatch hooksGo = cleanup.latch(1);
            List<Map<String, Integer>> atTermination = new CopyOnWriteArrayList<>();
            TurntableExecutor.Builder b = TurntableExecutor.builder().workers(2)
                    .taskClasses("a:50;b:50", "a-.*:a;b-.*:b");
            TurntableExecutor pool = cleanup.track(new TurntableExecutor(b) {
                @Override
                protected void afterExecute(Runnable r, Throwable t) {
                    super.afterExecute(r, t);
                    // The application's own bookkeeping after the task, as long as shutdownNow takes.
                    bothPastTheirTasks.countDown();
                    awaitIgnoringInterrupts(hooksGo);
                }

                @Override
                protected void terminated() {
                    super.terminated();
                    atTermination.add(getTurntableQueue().getRunningTasksByClass());
                }
            });
            TurntableExecutorClassesTest.submitAs("a-1", pool,
                    List.of(() -> awaitIgnoringInterrupts(tasksGo), () -> awaitIgnoringInterrupts(tasksGo)));
            eventually("both tasks running", () -> pool.getActiveCount() == 2);
            tasksGo.countDown();
            awaitLatch(bothPastTheirTasks, "both workers back from their tasks");
            assertEquals(List.of(), pool.shutdownNow(), "nothing was waiting");
            hooksGo.countDown();
            assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS), "terminated");
            assertEquals(List.of(Map.of("a", 0, "b", 0)), atTermination, "round " + round + ", in terminated()");
            assertEquals(Map.of("a", 0, "b", 0), pool.getTurntableQueue().getRunningTasksByClass(),
                    "round " + round + ", after awaitTermination");
            assertEquals(0, pool.getQueue().size(), "round " + round);
        }
    }
}
