package dev.turntable.pool;

import static dev.turntable.pool.TurntableExecutorClassesTest.occupyThenClassify;
import static dev.turntable.pool.TurntableExecutorClassesTest.submitAs;
import static dev.turntable.pool.testing.Waits.awaitLatch;
import static dev.turntable.pool.testing.Waits.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.testing.CountingThreadFactory;
import dev.turntable.pool.testing.PoolCleanup;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The order in which a class's jobs (a requestor's tasks from one thread) start, on a single
 * worker where each pass starts one task: jobs take turns in the order they came, each job's
 * tasks in submission order; and the order in which {@code shutdownNow} returns what waits.
 */
final class ClassJobOrderTest {

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();

    /**
     * With one worker, each pass starts one task and every job has none running: the tie used
     * to go to the job first in hash order, every time, until it ran dry (A0..A7, then B, then
     * C; a quiet submitter behind a flood waited for all of it). Jobs now take turns, in the
     * order they came.
     */
    @Test
    void oneWorkerServesTheJobsOfAClassInTurn() throws Exception {
        CountDownLatch blocker = cleanup.latch(1);
        TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(1)
                .threadFactory(new CountingThreadFactory("turns")).build());
        occupyThenClassify(pool, 1, () -> awaitLatch(blocker, "blocker"), "all:100", null);
        List<String> order = new CopyOnWriteArrayList<>();
        for (String job : List.of("A", "B", "C")) {
            List<Runnable> tasks = new ArrayList<>();
            for (int k = 0; k < 4; k++) {
                String id = job + k;
                tasks.add(() -> order.add(id));
            }
            submitAs("req-" + job, pool, tasks);
        }
        blocker.countDown();
        eventually("all ran", () -> order.size() == 12);
        assertEquals(List.of("A0", "B0", "C0", "A1", "B1", "C1", "A2", "B2", "C2", "A3", "B3", "C3"), order);
    }

    /**
     * A single worker, and submitters one after the other, the first one's name coming back on a
     * new thread (a job per requestor and thread): the tasks run in submission order (each
     * submitter gives one task; the jobs take turns in the order they came), and shutdownNow
     * returns what waits one task per job per round, the oldest job first.
     */
    @Test
    void aSingleWorkerRunsTheTasksOfSuccessiveSubmittersInSubmissionOrder() throws Exception {
        for (String[] names : new String[][] {{"main-A", "main-B"}, {"main-B", "main-A"}, {"req-1", "req-2"}, {"req-2", "req-1"}}) {
            CountDownLatch blocker = cleanup.latch(1);
            TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(1)
                    .threadFactory(new CountingThreadFactory("order")).build());
            occupyThenClassify(pool, 1, () -> awaitLatch(blocker, "blocker"), "all:100", null);
            List<String> order = new CopyOnWriteArrayList<>();
            submitAs(names[0], pool, List.of(() -> order.add("open")));
            submitAs(names[1], pool, List.of(() -> order.add("write")));
            submitAs(names[0], pool, List.of(() -> order.add("close")));
            blocker.countDown();
            eventually("all ran", () -> order.size() == 3);
            assertEquals(List.of("open", "write", "close"), order, "submitters " + List.of(names));
        }
        CountDownLatch blocker = cleanup.latch(1);
        TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(1)
                .threadFactory(new CountingThreadFactory("order")).build());
        occupyThenClassify(pool, 1, () -> awaitLatch(blocker, "blocker"), "all:100", null);
        List<Runnable> submitted = new ArrayList<>();
        List<String> ran = new CopyOnWriteArrayList<>();
        for (String name : List.of("x-1", "x-2", "x-1")) {
            int first = submitted.size();
            List<Runnable> tasks = List.of(() -> ran.add("t" + first), () -> ran.add("t" + (first + 1))); // distinct tasks
            submitted.addAll(tasks);
            submitAs(name, pool, tasks);
        }
        List<Runnable> unrun = pool.shutdownNow();
        assertEquals(List.of(submitted.get(0), submitted.get(2), submitted.get(4), submitted.get(1),
                submitted.get(3), submitted.get(5)), unrun, "one from each job per round, the oldest job first");
        blocker.countDown();
        assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
        assertEquals(List.of(), ran, "returned, not run");
    }
}
