package dev.turntable.pool;

import static dev.turntable.pool.testing.Waits.awaitGone;
import static dev.turntable.pool.testing.Waits.awaitLatch;
import static dev.turntable.pool.testing.Waits.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.testing.CountingThreadFactory;
import dev.turntable.pool.testing.ManualTicker;
import dev.turntable.pool.testing.PoolCleanup;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Task classes on a real pool: shares held under load, loans of idle capacity, rebalancing with
 * an injected clock, restartable tasks, and every task run to completion exactly once.
 */
final class TurntableExecutorClassesTest {

    private static final String SHARES = "interactive:75;batch:25";
    private static final String MAP = "interactive-.*:interactive;batch-.*:batch";

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();

    /** Running tasks per class, as the tasks themselves see it, and completions per task id. */
    static final class Board {
        final Map<String, AtomicInteger> running = new ConcurrentHashMap<>();
        final Map<String, AtomicInteger> completions = new ConcurrentHashMap<>();
        final List<String> startOrder = new CopyOnWriteArrayList<>();

        int running(String cls) {
            return running.computeIfAbsent(cls, k -> new AtomicInteger()).get();
        }

        void enter(String cls, String id) {
            running.computeIfAbsent(cls, k -> new AtomicInteger()).incrementAndGet();
            startOrder.add(id);
        }

        void leave(String cls) {
            running.get(cls).decrementAndGet();
        }

        void completed(String id) {
            completions.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
        }
    }

    /** A task that holds its worker until the gate opens. */
    static Runnable gated(Board board, String cls, String id, CountDownLatch gate) {
        return () -> {
            board.enter(cls, id);
            try {
                awaitLatch(gate, id);
                board.completed(id);
            } finally {
                board.leave(cls);
            }
        };
    }

    /**
     * A restartable task: runs until its gate opens; when the pool interrupts it, it stops early
     * and says it is not complete, so the pool runs it again later.
     */
    static final class RestartableGated implements RestartableTask {
        final Board board;
        final String cls;
        final String id;
        final CountDownLatch gate;
        final AtomicInteger runs = new AtomicInteger();
        volatile boolean complete;

        RestartableGated(Board board, String cls, String id, CountDownLatch gate) {
            this.board = board;
            this.cls = cls;
            this.id = id;
            this.gate = gate;
        }

        @Override
        public void run() {
            runs.incrementAndGet();
            board.enter(cls, id);
            try {
                if (gate.await(30, TimeUnit.SECONDS)) {
                    complete = true;
                    board.completed(id);
                }
            } catch (InterruptedException stopped) {
                complete = false; // the pool wants the worker back: stop, run again later
            } finally {
                board.leave(cls);
            }
        }

        @Override
        public boolean isComplete() {
            return complete;
        }
    }

    /** Submits from a thread with the given name, so that its name is the tasks' requestor. */
    static void submitAs(String threadName, java.util.concurrent.Executor pool, List<Runnable> tasks) throws InterruptedException {
        Thread t = new Thread(() -> tasks.forEach(pool::execute), threadName);
        t.start();
        awaitGone(t);
    }

    private TurntableExecutor classedPool(ManualTicker ticker, int threshold, CountDownLatch blockersGate, Board board)
            throws InterruptedException {
        return classedPool(TurntableExecutor.builder(), ticker, threshold, blockersGate);
    }

    private TurntableExecutor classedPool(TurntableExecutor.Builder builder, ManualTicker ticker, int threshold,
                                          CountDownLatch blockersGate) throws InterruptedException {
        TurntableExecutor pool = cleanup.track(builder.workers(4).ticker(ticker)
                .rebalanceThreshold(threshold).rebalanceMinimumDurationMillis(1_000)
                .threadFactory(new CountingThreadFactory("cls")).build());
        occupyThenClassify(pool, 4, () -> awaitLatch(blockersGate, "blockers"), SHARES, MAP);
        return pool;
    }

    /**
     * A pool of {@code workers} on {@code ticker}, threads named {@code threadPrefix}, closed by
     * {@code cleanup}: each worker is held by a task that waits for {@code gate} (none when it is
     * null) while classes are switched on ({@link #occupyThenClassify}), so that what is
     * submitted next waits for the plan.
     */
    static TurntableExecutor classedPool(PoolCleanup cleanup, int workers, ManualTicker ticker, String threadPrefix,
                                         CountDownLatch gate, String shares, String map) {
        TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(workers).ticker(ticker)
                .threadFactory(new CountingThreadFactory(threadPrefix)).build());
        Runnable blocker = gate == null ? () -> { } : () -> awaitLatch(gate, "blocker");
        occupyThenClassify(pool, workers, blocker, shares, map);
        return pool;
    }

    /**
     * Occupies each of {@code pool}'s {@code workers} with {@code blocker} and waits until all
     * run it, then switches classes on: what is submitted next is offered while no worker is
     * idle, and is started by the plan, not by arrival order.
     */
    static void occupyThenClassify(TurntableExecutor pool, int workers, Runnable blocker, String shares, String map) {
        CountDownLatch busy = new CountDownLatch(workers);
        for (int k = 0; k < workers; k++) {
            pool.execute(() -> {
                busy.countDown();
                blocker.run();
            });
        }
        awaitLatch(busy, "all " + workers + " workers busy");
        pool.getTurntableQueue().setTaskClasses(shares, map);
    }

    @Test
    void bothClassesFloodedRunThreeInteractiveAndOneBatch() throws Exception {
        Board board = new Board();
        CountDownLatch blockers = cleanup.latch(1);
        CountDownLatch gate = cleanup.latch(1);
        TurntableExecutor pool = classedPool(new ManualTicker(), 0, blockers, board);
        List<Runnable> batch = new ArrayList<>();
        List<Runnable> interactive = new ArrayList<>();
        for (int k = 0; k < 8; k++) {
            batch.add(gated(board, "batch", "b" + k, gate));
            interactive.add(gated(board, "interactive", "i" + k, gate));
        }
        submitAs("batch-1", pool, batch);
        submitAs("interactive-1", pool, interactive);
        TurntableQueue q = pool.getTurntableQueue();
        assertEquals(Map.of("interactive", 8, "batch", 8), q.getWaitingTasksByClass());

        blockers.countDown();

        eventually("3 interactive + 1 batch running", () -> board.running("interactive") == 3 && board.running("batch") == 1);
        assertEquals(Map.of("interactive", 3, "batch", 1), q.getRunningTasksByClass());
        assertEquals(Map.of("interactive", 5, "batch", 7), q.getWaitingTasksByClass());
        gate.countDown();
        eventually("all ran", () -> board.completions.size() == 16);
        board.completions.forEach((id, n) -> assertEquals(1, n.get(), id));
    }

    /**
     * The sequence: batch alone borrows all four workers; interactive arrives; with
     * rebalancing on and restartable batch tasks, once the spread has lasted the minimum duration
     * the three most recent batch tasks are stopped and interactive gets its three workers; every
     * task still completes exactly once, counts once, and a bounded queue ends with all its room.
     */
    @Test
    void batchBorrowsEverythingThenRebalancingGivesInteractiveItsShareBack() throws Exception {
        Board board = new Board();
        ManualTicker ticker = new ManualTicker();
        CountDownLatch blockers = cleanup.latch(1);
        CountDownLatch batchGate = cleanup.latch(1);
        CountDownLatch interactiveGate = cleanup.latch(1);
        TurntableExecutor pool = classedPool(TurntableExecutor.builder().queueCapacity(100), ticker, 20, blockers);
        TurntableQueue q = pool.getTurntableQueue();
        List<Rebalance> rebalances = new CopyOnWriteArrayList<>();
        q.addRebalanceListener(rebalances::add);

        List<RestartableGated> batch = batchHoldsAllFourThenInteractiveComes(pool, board, blockers, batchGate,
                interactiveGate);
        q.housekeep(); // first look over the threshold: the clock starts
        ticker.advanceMillis(999);
        q.housekeep();
        assertEquals(0, board.running("interactive"), "no rebalance before the minimum duration");
        assertEquals(4, board.running("batch"));
        assertTrue(rebalances.isEmpty());

        ticker.advanceMillis(2);
        q.housekeep();

        eventually("interactive gets its 3 workers", () -> board.running("interactive") == 3 && board.running("batch") == 1);
        assertEquals(1, rebalances.size());
        assertEquals(Map.of("batch", 3), rebalances.get(0).tasksToStop());
        assertEquals(Map.of("batch", 3), rebalances.get(0).tasksStopped());

        interactiveGate.countDown();
        batchGate.countDown();
        eventually("every task completed", () -> board.completions.size() == 12);
        board.completions.forEach((id, n) -> assertEquals(1, n.get(), id + " completed more than once"));
        int reruns = 0;
        for (RestartableGated t : batch) {
            reruns += t.runs.get() - 1;
        }
        assertEquals(3, reruns, "the three stopped batch tasks ran again");
        eventually("nothing left", () -> q.getWaitingTasksByClass().values().stream().allMatch(v -> v == 0)
                && q.getRunningTasksByClass().values().stream().allMatch(v -> v == 0));
        // The executor counts 19 runs; a dashboard wants 16 tasks: 4 blockers, 6 batch, 6 interactive.
        eventually("every run counted by the executor", () -> pool.getActiveCount() == 0);
        assertEquals(3, q.getRestartedTaskCount());
        assertEquals(16, pool.getCompletedTaskCount(), "a restarted task counts once");
        assertEquals(16, pool.getTaskCount(), "a restarted task counts once");
        assertEquals(100, q.remainingCapacity(), "a restarted task holds its place again, and gives it back once");
    }

    /**
     * A rebalance the housekeeper starts (the minimum duration passed with nothing else
     * happening) calls the application's listeners on the housekeeper's thread, which serves every
     * application's pools and keeps none of their class loaders: they still see the context class
     * loader of the thread that built the pool, as they would on the application's own threads
     * (a listener that uses ServiceLoader in a packaged application needs it).
     */
    @Test
    void aRebalanceTheHousekeeperStartsSeesThePoolBuildersContextClassLoader() throws Exception {
        Board board = new Board();
        ManualTicker ticker = new ManualTicker();
        CountDownLatch blockers = cleanup.latch(1);
        CountDownLatch batchGate = cleanup.latch(1);
        CountDownLatch interactiveGate = cleanup.latch(1);
        ClassLoader application = new ClassLoader(getClass().getClassLoader()) { };
        Thread me = Thread.currentThread();
        ClassLoader mine = me.getContextClassLoader();
        TurntableExecutor pool;
        me.setContextClassLoader(application);
        try {
            pool = classedPool(TurntableExecutor.builder().queueCapacity(100), ticker, 20, blockers);
        } finally {
            me.setContextClassLoader(mine);
        }
        TurntableQueue q = pool.getTurntableQueue();
        List<ClassLoader> seen = new CopyOnWriteArrayList<>();
        q.addRebalanceListener(r -> seen.add(Thread.currentThread().getContextClassLoader()));
        batchHoldsAllFourThenInteractiveComes(pool, board, blockers, batchGate, interactiveGate);

        asTheHousekeeper(q); // first look over the threshold: the clock starts
        ticker.advanceMillis(1_001);
        asTheHousekeeper(q);

        eventually("the housekeeper rebalanced", () -> seen.size() == 1);
        assertSame(application, seen.get(0));
        interactiveGate.countDown();
        batchGate.countDown();
        eventually("every task completed", () -> board.completions.size() == 12);
    }

    /**
     * Six restartable batch tasks take all four workers once the blockers go, then six
     * interactive tasks arrive (and wait: the shares say 3 of 4 are theirs, rebalancing not yet).
     */
    private List<RestartableGated> batchHoldsAllFourThenInteractiveComes(TurntableExecutor pool, Board board,
            CountDownLatch blockers, CountDownLatch batchGate, CountDownLatch interactiveGate) throws Exception {
        List<RestartableGated> batch = new ArrayList<>();
        for (int k = 0; k < 6; k++) {
            batch.add(new RestartableGated(board, "batch", "b" + k, batchGate));
        }
        submitAs("batch-1", pool, new ArrayList<>(batch));
        blockers.countDown();
        eventually("batch alone borrows all 4", () -> board.running("batch") == 4);
        List<Runnable> interactive = new ArrayList<>();
        for (int k = 0; k < 6; k++) {
            interactive.add(gated(board, "interactive", "i" + k, interactiveGate));
        }
        submitAs("interactive-1", pool, interactive);
        return batch;
    }

    /** One look of the housekeeper at {@code q}, on a thread made as the housekeeper's is. */
    private static void asTheHousekeeper(TurntableQueue q) throws InterruptedException {
        Thread t = ServiceThreads.newThread("housekeeper-look", () -> Housekeeper.visit(q));
        t.start();
        awaitGone(t);
    }

    /**
     * Without restartable tasks nothing is interrupted: each batch task that ends gives its worker
     * to interactive, until interactive has its three (the minimum duration plus one task length).
     */
    /**
     * "batch-1" submits 8 batch tasks, each held by a gate of its own, while the blockers hold
     * all 4 workers; then the blockers end and batch borrows all 4. Returns the 8 gates.
     */
    private List<CountDownLatch> batchBorrowsAllFour(TurntableExecutor pool, Board board, CountDownLatch blockers)
            throws InterruptedException {
        List<CountDownLatch> gates = new ArrayList<>();
        List<Runnable> batch = new ArrayList<>();
        for (int k = 0; k < 8; k++) {
            CountDownLatch g = cleanup.latch(1);
            gates.add(g);
            batch.add(gated(board, "batch", "b" + k, g));
        }
        submitAs("batch-1", pool, batch);
        blockers.countDown();
        eventually("batch borrows all 4", () -> board.running("batch") == 4);
        return gates;
    }

    @Test
    void plainTasksHandBackWorkersAsTheyEnd() throws Exception {
        Board board = new Board();
        CountDownLatch blockers = cleanup.latch(1);
        CountDownLatch interactiveGate = cleanup.latch(1);
        TurntableExecutor pool = classedPool(new ManualTicker(), 20, blockers, board);
        List<CountDownLatch> batchGates = batchBorrowsAllFour(pool, board, blockers);
        List<Runnable> interactive = new ArrayList<>();
        for (int k = 0; k < 8; k++) {
            interactive.add(gated(board, "interactive", "i" + k, interactiveGate));
        }
        submitAs("interactive-1", pool, interactive);
        for (int ended = 1; ended <= 3; ended++) {
            batchGates.get(ended - 1).countDown();
            int expect = ended;
            eventually(ended + " batch task(s) ended", () -> board.running("interactive") == expect
                    && board.running("batch") == 4 - expect);
        }
        batchGates.get(3).countDown(); // batch at its entitlement now: its next task follows
        eventually("batch keeps one", () -> board.running("batch") == 1 && board.running("interactive") == 3);
        interactiveGate.countDown();
        batchGates.forEach(CountDownLatch::countDown);
        eventually("all ran", () -> board.completions.size() == 16);
        board.completions.forEach((id, n) -> assertEquals(1, n.get(), id));
    }

    /**
     * A rebalance holds a class whose tasks cannot be stopped, so that the workers they free go
     * to the class that waits. Once no other class waits, the held class borrows idle workers
     * again: it used to stay held until back within its entitlement, leaving workers idle
     * beside its own waiting tasks for as long as its long tasks ran.
     */
    @Test
    void aHeldClassBorrowsIdleWorkersAgainOnceNoOtherClassWaits() throws Exception {
        Board board = new Board();
        ManualTicker ticker = new ManualTicker();
        CountDownLatch blockers = cleanup.latch(1);
        CountDownLatch interactiveGate = cleanup.latch(1);
        TurntableExecutor pool = classedPool(TurntableExecutor.builder(), ticker, 20, blockers);
        TurntableQueue q = pool.getTurntableQueue();
        List<Rebalance> rebalances = new CopyOnWriteArrayList<>();
        q.addRebalanceListener(rebalances::add);
        List<CountDownLatch> batchGates = batchBorrowsAllFour(pool, board, blockers);
        submitAs("interactive-1", pool, List.of(gated(board, "interactive", "i0", interactiveGate),
                gated(board, "interactive", "i1", interactiveGate)));
        q.housekeep(); // over the threshold: the clock starts
        ticker.advanceMillis(1_001);
        q.housekeep();
        eventually("a rebalance", () -> rebalances.size() == 1);
        assertEquals(Map.of("batch", 2), rebalances.get(0).tasksToStop(), "two workers for interactive's two tasks");
        assertEquals(Map.of("batch", 0), rebalances.get(0).tasksStopped(), "plain tasks are not stopped: batch is held");
        // While batch is held, no new rebalance: even at a minimum duration of 0, where each
        // pass used to rebalance (and notify) again.
        q.setRebalanceMinimumDurationMillis(0);
        for (int k = 0; k < 5; k++) {
            ticker.advanceMillis(10);
            q.housekeep();
        }
        assertEquals(1, rebalances.size(), "one rebalance while its hold lasts: " + rebalances);
        batchGates.get(0).countDown();
        batchGates.get(1).countDown();
        eventually("interactive on the two freed workers", () -> board.running("interactive") == 2 && board.running("batch") == 2);
        interactiveGate.countDown();
        eventually("interactive done; batch, with nobody else waiting, borrows the idle workers again",
                () -> board.running("interactive") == 0 && board.running("batch") == 4);
        batchGates.forEach(CountDownLatch::countDown);
        eventually("all ran", () -> board.completions.size() == 10);
        board.completions.forEach((id, n) -> assertEquals(1, n.get(), id));
    }

    @Test
    void oneFloodingSubmitterDoesNotStarveAnotherOfItsClass() throws Exception {
        Board board = new Board();
        CountDownLatch blockers = cleanup.latch(1);
        CountDownLatch gate = cleanup.latch(1);
        TurntableExecutor pool = classedPool(new ManualTicker(), 0, blockers, board);
        List<Runnable> flood = new ArrayList<>();
        for (int k = 0; k < 20; k++) {
            flood.add(gated(board, "batch", "flood" + k, gate));
        }
        submitAs("batch-flood", pool, flood);
        submitAs("batch-quiet", pool, List.of(gated(board, "batch", "quiet0", gate)));
        blockers.countDown();
        eventually("4 started", () -> board.startOrder.size() == 4);
        assertTrue(board.startOrder.contains("quiet0"), "jobs start round robin: " + board.startOrder);
        gate.countDown();
        eventually("all ran", () -> board.completions.size() == 21);
    }

    @Test
    void drainingAndShutdownNowReturnWaitingTasks() throws Exception {
        Board board = new Board();
        CountDownLatch blockers = cleanup.latch(1);
        CountDownLatch gate = cleanup.latch(1);
        TurntableExecutor pool = classedPool(new ManualTicker(), 0, blockers, board);
        List<Runnable> tasks = new ArrayList<>();
        for (int k = 0; k < 5; k++) {
            tasks.add(gated(board, "batch", "b" + k, gate));
        }
        submitAs("batch-1", pool, tasks);
        assertEquals(5, pool.getQueue().size());
        assertTrue(pool.remove(tasks.get(2)), "remove finds a task waiting in its class");
        assertEquals(4, pool.getQueue().size());
        List<Runnable> unrun = pool.shutdownNow();
        assertEquals(4, unrun.size(), "shutdownNow returns the tasks still waiting in their classes");
        assertTrue(unrun.contains(tasks.get(0)) && !unrun.contains(tasks.get(2)));
        blockers.countDown();
    }

    /** ThreadPoolExecutor runs what was submitted before shutdown: a 0% class must not keep it alive. */
    @Test
    void shutdownRunsTasksWaitingInAClassThatCannotStartAndTerminates() throws Exception {
        Board board = new Board();
        CountDownLatch blockers = cleanup.latch(1);
        TurntableExecutor pool = classedPool(new ManualTicker(), 0, blockers, board);
        pool.getTurntableQueue().setTaskClasses("interactive:100;batch:0", MAP);
        CountDownLatch open = new CountDownLatch(0);
        submitAs("batch-1", pool, List.of(gated(board, "batch", "b0", open), gated(board, "batch", "b1", open)));
        blockers.countDown();
        eventually("blockers done", () -> pool.getActiveCount() == 0);
        assertEquals(0, board.completions.size(), "a 0% class does not start while the pool runs");
        pool.shutdown();
        assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS), "terminated after running what was submitted");
        assertEquals(2, board.completions.size());
    }

    @Test
    void badClassSettingsAreRefusedAndChangeNothing() throws Exception {
        TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(2).build());
        TurntableQueue q = pool.getTurntableQueue();
        q.setTaskClasses(SHARES, MAP);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> q.setClassLoadPercents("a:-1"));
        assertTrue(e.getMessage().contains("-1"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> q.setRequestorMap("(bad:interactive"));
        assertThrows(IllegalArgumentException.class, () -> q.setRequestorMap("x:nosuchclass"));
        assertThrows(IllegalArgumentException.class, () -> q.setRebalanceThreshold(-1));
        assertThrows(IllegalArgumentException.class, () -> q.setRebalanceMinimumDurationMillis(-1));
        assertThrows(IllegalArgumentException.class, () -> q.setRequestor("NOBODY"));
        assertEquals(Map.of("interactive", 75, "batch", 25), q.getClassLoadPercents());
        assertEquals(Map.of("interactive-.*", "interactive", "batch-.*", "batch"), q.getRequestorMap());
        assertEquals(0, q.getRebalanceThreshold());
        assertEquals("THREAD_NAME", q.getRequestor());
        TurntableQueue handOff = TurntableQueue.builder().handOff().build();
        assertThrows(IllegalArgumentException.class, () -> handOff.setTaskClasses(SHARES, MAP));
        // A requestor map with classes off would be dropped unread: the builders refuse it as the setter does.
        for (org.junit.jupiter.api.function.Executable mapWithoutClasses : List.<org.junit.jupiter.api.function.Executable>of(
                () -> TurntableQueue.builder().taskClasses("", "x-.*:a"),
                () -> TurntableExecutor.builder().taskClasses(null, "x-.*:a"),
                () -> q.setTaskClasses(" ", "x-.*:a"))) {
            assertTrue(assertThrows(IllegalArgumentException.class, mapWithoutClasses).getMessage()
                    .contains("requestor-map 'x-.*:a' needs task classes"));
        }
        assertEquals(Map.of("interactive", 75, "batch", 25), q.getClassLoadPercents(), "unchanged");
    }

    @Test
    void switchingClassesOffStartsEverythingWaiting() throws Exception {
        Board board = new Board();
        CountDownLatch blockers = cleanup.latch(1);
        CountDownLatch gate = cleanup.latch(1);
        TurntableExecutor pool = classedPool(new ManualTicker(), 0, blockers, board);
        // a 0% class never starts; switching classes off releases its tasks
        pool.getTurntableQueue().setTaskClasses("interactive:100;batch:0", MAP);
        List<Runnable> tasks = new ArrayList<>();
        for (int k = 0; k < 3; k++) {
            tasks.add(gated(board, "batch", "b" + k, gate));
        }
        submitAs("batch-1", pool, tasks);
        blockers.countDown();
        eventually("blockers gone", () -> pool.getActiveCount() == 0);
        assertEquals(0, board.running("batch"), "a 0% class is not started");
        pool.getTurntableQueue().setTaskClasses(null, null);
        gate.countDown();
        eventually("all ran once classes were off", () -> board.completions.size() == 3);
    }
}
