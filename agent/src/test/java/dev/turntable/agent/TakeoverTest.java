package dev.turntable.agent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.agent.CreationSite.Frame;
import dev.turntable.pool.TurntableQueue;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class TakeoverTest {

    private final AtomicInteger seen = new AtomicInteger();

    private Takeover takeover(String agentArgs) {
        OptionsParser.Result r = OptionsParser.parse(agentArgs, new Properties());
        assertEquals(List.of(), r.messages());
        return new Takeover(r.options(), new PoolRegistry(), seen::incrementAndGet);
    }

    private static CreationSite site(String cls, String method) {
        return CreationSite.of(List.of(new Frame(ThreadPoolExecutor.class.getName(), "<init>", ThreadPoolExecutor.class),
                new Frame(cls, method, null)));
    }

    @Test
    void anApplicationPoolWithAnEmptyLinkedBlockingQueueIsManaged() {
        Takeover t = takeover("strategy=ROUND_ROBIN,task-stealing=false");
        Takeover.Decision d = t.decide(site("com.acme.Orders", "start"), new LinkedBlockingQueue<Runnable>(), 4, 4);
        assertTrue(d.record().managed());
        assertEquals("Orders.start", d.record().name());
        assertEquals("com.acme.Orders.start", d.record().creationSite());
        TurntableQueue q = d.queue();
        assertNotNull(q);
        assertEquals("ROUND_ROBIN", q.getStrategy());
        assertFalse(q.isTaskStealing());
        assertEquals(TurntableQueue.Capacity.UNBOUNDED, q.getCapacityMode());
        assertEquals(1, seen.get());
    }

    @Test
    void aManagedPoolIsHandedOnAsItsConstructorReturnsAndItsRejectionsCounted() {
        OptionsParser.Result r = OptionsParser.parse(null, new Properties());
        List<String> handed = new java.util.ArrayList<>();
        Takeover t = new Takeover(r.options(), new PoolRegistry(), seen::incrementAndGet,
                (pool, record) -> handed.add(record.name()));
        Takeover.Decision managed = t.decide(site("com.acme.Orders", "start"), new LinkedBlockingQueue<Runnable>(), 2, 2);
        Takeover.Decision unmanaged = t.decide(site("com.acme.Orders", "prio"),
                new java.util.concurrent.PriorityBlockingQueue<Runnable>(), 2, 2);
        ThreadPoolExecutor pool = new ThreadPoolExecutor(2, 2, 0, TimeUnit.MILLISECONDS, managed.queue());
        ThreadPoolExecutor other = new ThreadPoolExecutor(2, 2, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>());
        try {
            t.onConstructed(pool, managed.record());
            t.onConstructed(other, unmanaged.record());
            t.onConstructed(pool, managed.record()); // a second constructor return of the same pool
            assertEquals(List.of("Orders.start"), handed);
            t.onRejected(pool);
            t.onRejected(other);
            assertEquals(1, managed.record().rejections().sum());
            assertNull(unmanaged.record().rejections());
        } finally {
            pool.shutdownNow();
            other.shutdownNow();
        }
    }

    @Test
    void capacityIsKept() {
        Takeover t = takeover(null);
        TurntableQueue bounded = t.decide(site("com.acme.A", "a"), new ArrayBlockingQueue<Runnable>(7), 1, 2).queue();
        assertEquals(TurntableQueue.Capacity.BOUNDED, bounded.getCapacityMode());
        assertEquals(7, bounded.remainingCapacity());
        TurntableQueue handOff = t.decide(site("com.acme.A", "b"), new SynchronousQueue<Runnable>(), 0, Integer.MAX_VALUE).queue();
        assertEquals(TurntableQueue.Capacity.HAND_OFF, handOff.getCapacityMode());
        assertEquals(0, handOff.remainingCapacity());
    }

    @Test
    void optionsReachTheEngine() {
        Takeover t = takeover("measurement=CPU_TIME,median=true,weights=500;250");
        TurntableQueue q = t.decide(site("com.acme.A", "a"), new LinkedBlockingQueue<Runnable>(), 2, 2).queue();
        assertEquals("CPU_TIME", q.getMeasurement().name());
        assertTrue(q.isMedian());
        assertEquals(500, q.getWorkerWeightsMillis()[0]);
        assertEquals(250, q.getWorkerWeightsMillis()[1]);
    }

    @Test
    void workerLimitsReachTheEngineAndRetirementOnlyWhereTheAdviceIsInstalled() {
        String args = "max-lifetime-tasks=50,max-concurrent-tasks=3,heartbeat-timeout-ms=2500,worker-select-timeout-ms=40";
        OptionsParser.Result r = OptionsParser.parse(args, new Properties());
        assertEquals(List.of(), r.messages());

        Takeover advised = new Takeover(r.options(), new PoolRegistry(), seen::incrementAndGet, (p, rec) -> { },
                Retirement.installed()::supported);
        TurntableQueue q = advised.decide(site("com.acme.A", "a"), new LinkedBlockingQueue<Runnable>(), 2, 2).queue();
        assertEquals(50, q.getMaxLifetimeTasks());
        assertTrue(q.isRetirementSupported(), "the runWorker advice swallows the signal: workers may retire");
        assertEquals(3, q.getMaxConcurrentTasks());
        assertEquals(2500, q.getHeartbeatTimeoutMillis());
        assertEquals(40, q.getWorkerSelectTimeoutMillis());

        Retirement missing = new Retirement("ThreadPoolExecutor has no runWorker(Worker)");
        missing.adviceInstalled();
        Takeover unadvised = new Takeover(r.options(), new PoolRegistry(), seen::incrementAndGet, (p, rec) -> { },
                missing::supported);
        TurntableQueue plain = unadvised.decide(site("com.acme.A", "b"), new LinkedBlockingQueue<Runnable>(), 2, 2).queue();
        assertEquals(0, plain.getMaxLifetimeTasks(), "without the advice the lifetime limit stays 0");
        assertFalse(plain.isRetirementSupported());
        assertEquals(3, plain.getMaxConcurrentTasks(), "the other limits need no advice");
        assertEquals(2500, plain.getHeartbeatTimeoutMillis());
    }

    @Test
    void taskClassesReachTheEngineWithThePoolsContractNameAsItsName() throws Exception {
        Takeover t = takeover("class-load-percents=orders:3;rest:1,requestor-map=Orders\\.start:orders,"
                + "requestor=POOL_NAME,rebalance-threshold=30,rebalance-min-duration-ms=500");
        TurntableQueue first = t.decide(site("com.acme.Orders", "start"), new LinkedBlockingQueue<Runnable>(), 1, 1).queue();
        TurntableQueue second = t.decide(site("com.acme.Orders", "start"), new LinkedBlockingQueue<Runnable>(), 1, 1).queue();
        assertEquals(Map.of("orders", 75, "rest", 25), first.getClassLoadPercents());
        assertEquals(Map.of("Orders\\.start", "orders"), first.getRequestorMap());
        assertEquals("POOL_NAME", first.getRequestor());
        assertEquals(30, first.getRebalanceThreshold());
        assertEquals(500, first.getRebalanceMinimumDurationMillis());
        // Every task's requestor is its pool's name: Orders.start matches, Orders.start-2 does not.
        assertEquals("orders", classOfATask(first));
        assertEquals("rest", classOfATask(second), "no regex matches: the class with the smallest share");
    }

    /** The class a task submitted to a pool on {@code q} runs in. */
    private static String classOfATask(TurntableQueue q) throws Exception {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, q);
        CountDownLatch gate = new CountDownLatch(1);
        try {
            pool.prestartAllCoreThreads();
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(20)).until(() -> q.workers().size() == 1);
            pool.execute(() -> {
                try {
                    gate.await(20, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(20))
                    .until(() -> q.getRunningTasksByClass().containsValue(1));
            return q.getRunningTasksByClass().entrySet().stream().filter(e -> e.getValue() == 1).findFirst()
                    .orElseThrow().getKey();
        } finally {
            gate.countDown();
            pool.shutdown();
            assertTrue(pool.awaitTermination(20, TimeUnit.SECONDS));
        }
    }

    /** What {@code r} printed on standard error (the agent's lines). */
    private static String stderrOf(Runnable r) {
        PrintStream saved = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            r.run();
        } finally {
            System.setErr(saved);
        }
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void weightsThatDoNotFitAPoolApplyByIndexAndOneLineSaysHow() {
        Takeover t = takeover("weights=500;250;100");
        List<TurntableQueue> queues = new ArrayList<>();
        String err = stderrOf(() -> {
            queues.add(t.decide(site("com.acme.Orders", "start"), new LinkedBlockingQueue<Runnable>(), 3, 3).queue());
            queues.add(t.decide(site("com.acme.Reports", "start"), new LinkedBlockingQueue<Runnable>(), 2, 2).queue());
            queues.add(t.decide(site("com.acme.Feed", "start"), new ArrayBlockingQueue<Runnable>(10), 4, 4).queue());
            queues.add(t.decide(site("com.acme.Grow", "start"), new ArrayBlockingQueue<Runnable>(10), 2, 4).queue());
        });
        TurntableQueue four = queues.get(2);
        assertArrayEquals(new long[] {500, 250, 100}, queues.get(0).getWorkerWeightsMillis(), "3 workers: a fit");
        assertArrayEquals(new long[] {500, 250, 100}, queues.get(1).getWorkerWeightsMillis(), "kept by index; the third unused");
        assertArrayEquals(new long[] {500, 250, 100}, four.getWorkerWeightsMillis(),
                "the fourth worker, once up, gets the default weight");
        assertArrayEquals(new long[] {500, 250, 100}, queues.get(3).getWorkerWeightsMillis(), "2 to 4 workers: 3 fit");
        assertEquals("[turntable] pool Reports.start: option weights gives 3 weights for at most 2 workers; the last"
                + " is unused" + System.lineSeparator()
                + "[turntable] pool Feed.start: option weights gives 3 weights for 4 workers; workers 3 and up get the"
                + " weight derived from the CPUs, " + four.getDefaultWeightMillis() + " ms" + System.lineSeparator(), err);
    }

    /**
     * A pool the agent cannot take over safely is said once per creation site (pools built per
     * request share one); one whose order the application chose (priority, time) is left alone
     * quietly, as is one the operator excluded.
     */
    @Test
    void aPoolLeftUntouchedIsSaidOncePerCreationSiteUnlessItsOrderIsTheApplicationsChoice() {
        Takeover t = takeover("exclude=Skipped.*");
        List<Takeover.Decision> decisions = new ArrayList<>();
        String err = stderrOf(() -> {
            for (int i = 0; i < 3; i++) {
                decisions.add(t.decide(site("com.acme.Requests", "handle"), new LinkedBlockingQueue<Runnable>() { }, 2, 2));
            }
            LinkedBlockingQueue<Runnable> busy = new LinkedBlockingQueue<>();
            busy.add(() -> { });
            decisions.add(t.decide(site("com.acme.Busy", "start"), busy, 1, 1));
            decisions.add(t.decide(site("com.acme.Prio", "start"), new java.util.concurrent.PriorityBlockingQueue<Runnable>(), 1, 1));
            decisions.add(t.decide(site("com.acme.Skipped", "start"), new LinkedBlockingQueue<Runnable>(), 1, 1));
        });
        assertTrue(decisions.stream().noneMatch(d -> d.record().managed()), decisions::toString);
        assertEquals("[turntable] pool Requests.handle left untouched: custom queue com.acme.TakeoverTest$1"
                .replace("com.acme.", "dev.turntable.agent.")
                + " (a subclass may change how tasks are queued)" + System.lineSeparator()
                + "[turntable] pool Busy.start left untouched: LinkedBlockingQueue already holds 1 task(s)"
                + System.lineSeparator(), err);
        assertEquals("custom queue dev.turntable.agent.TakeoverTest$1 (a subclass may change how tasks are queued)",
                decisions.get(2).record().reason(), "every such pool still says why in turntablectl pools");
    }

    /**
     * One line per creation site: a cached pool built per request printed one identical line per
     * pool (20 from one loop, in an operator review).
     */
    @Test
    void aHandOffPoolGetsNoTaskClassesAndOneLineSaysSo() {
        Takeover t = takeover("class-load-percents=a:1;b:1");
        List<TurntableQueue> queues = new ArrayList<>();
        String err = stderrOf(() -> {
            queues.add(t.decide(site("com.acme.Cache", "start"), new SynchronousQueue<Runnable>(), 0, 8).queue());
            queues.add(t.decide(site("com.acme.Orders", "start"), new LinkedBlockingQueue<Runnable>(), 2, 2).queue());
            for (int i = 0; i < 3; i++) {
                t.decide(site("com.acme.Cache", "start"), new SynchronousQueue<Runnable>(), 0, 8);
            }
        });
        TurntableQueue handOff = queues.get(0);
        TurntableQueue queuing = queues.get(1);
        assertEquals(TurntableQueue.Capacity.HAND_OFF, handOff.getCapacityMode(), "still managed");
        assertEquals(Map.of(), handOff.getClassLoadPercents());
        assertEquals(Map.of("a", 50, "b", 50), queuing.getClassLoadPercents());
        assertEquals("[turntable] pool Cache.start hands each task straight to a thread (SynchronousQueue),"
                + " so task classes stay off for it" + System.lineSeparator(), err);
    }

    @Test
    void theShutdownHookTellsTheEngineAndNeverThrows() throws Exception {
        TurntableQueue q = takeover(null).decide(site("com.acme.A", "s"), new LinkedBlockingQueue<Runnable>(), 1, 1).queue();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, q);
        pool.prestartAllCoreThreads();
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(20)).until(() -> q.workers().size() == 1);
        // What ShutdownAdvice does after the executor's own shutdown(): the idle worker leaves and the pool terminates.
        pool.shutdown();
        Takeover.onOwnerShutDown(q);
        assertTrue(pool.awaitTermination(20, TimeUnit.SECONDS), "the pool terminates");
        Takeover.onOwnerShutDown("not a queue");
        Takeover.onOwnerStopping("not a queue", Boolean.TRUE);
        Takeover.onOwnerStopping(null, Boolean.FALSE);
        Takeover.onOwnerTerminated(q); // a pool without task classes: nothing to end
        Takeover.onOwnerTerminated("not a queue");
    }

    @Test
    void jdkTurntableAndUnknownCreatorsAreNeverManaged() {
        Takeover t = takeover(null);
        assertNotManaged(t.decide(site("sun.rmi.transport.tcp.TCPTransport", "<clinit>"), new LinkedBlockingQueue<Runnable>(), 1, 1),
                "created by the JDK");
        assertNotManaged(t.decide(site("dev.turntable.agent.AgentJmx", "register"), new LinkedBlockingQueue<Runnable>(), 1, 1),
                "created by Turntable");
        assertNotManaged(t.decide(CreationSite.of(List.of()), new LinkedBlockingQueue<Runnable>(), 1, 1),
                "creation site not found");
        assertEquals(0, seen.get(), "only application pools count as seen");
    }

    @Test
    void excludeWinsOverIncludeAndMatchesTheNameOrItsBase() {
        Takeover t = takeover("include=Orders.*;Reports.*,exclude=Reports.nightly");
        assertTrue(t.decide(site("com.acme.Orders", "start"), new LinkedBlockingQueue<Runnable>(), 1, 1).record().managed());
        assertNotManaged(t.decide(site("com.acme.Reports", "nightly"), new LinkedBlockingQueue<Runnable>(), 1, 1),
                "excluded by exclude=Reports.nightly");
        assertNotManaged(t.decide(site("com.acme.Reports", "nightly"), new LinkedBlockingQueue<Runnable>(), 1, 1),
                "excluded by exclude=Reports.nightly"); // Reports.nightly-2: the base name matches
        assertNotManaged(t.decide(site("com.acme.Audit", "run"), new LinkedBlockingQueue<Runnable>(), 1, 1),
                "not matched by include=Orders.*;Reports.*");
    }

    @Test
    void aQueueTheEngineCannotStandInForIsLeftWithItsReason() {
        Takeover t = takeover(null);
        assertNotManaged(t.decide(site("com.acme.A", "a"), new SynchronousQueue<Runnable>(true), 0, 4), "fair SynchronousQueue");
    }

    @Test
    void invalidConstructorArgumentsAreLeftForTheConstructorToReject() {
        Takeover t = takeover(null);
        LinkedBlockingQueue<Runnable> q = new LinkedBlockingQueue<>();
        assertNull(t.onConstructing(new Object[] {-1, 1, 0L, TimeUnit.SECONDS, q, Executors.defaultThreadFactory(),
            new ThreadPoolExecutor.AbortPolicy()}));
        assertNull(t.onConstructing(new Object[] {2, 1, 0L, TimeUnit.SECONDS, q, Executors.defaultThreadFactory(),
            new ThreadPoolExecutor.AbortPolicy()}));
        assertNull(t.onConstructing(new Object[] {1, 1, 0L, TimeUnit.SECONDS, null, Executors.defaultThreadFactory(),
            new ThreadPoolExecutor.AbortPolicy()}));
    }

    @Test
    void theHookNeverThrows() {
        Takeover t = takeover(null);
        assertNull(t.onConstructing(new Object[] {"not", "the", "arguments"}));
        t.onConstructed(new Object(), "not a record");
        Takeover.onWorkerExiting("not a queue");
    }

    @Test
    void aHookCalledFromThisTestIsTurntableCodeAndNotManaged() {
        Takeover t = takeover(null);
        // the live stack has no pool constructor: the site is unknown and the pool left alone
        Object[] answer = t.onConstructing(new Object[] {1, 1, 0L, TimeUnit.SECONDS, new LinkedBlockingQueue<Runnable>(),
            Executors.defaultThreadFactory(), new ThreadPoolExecutor.AbortPolicy()});
        assertNull(answer[0]);
        assertFalse(((PoolRecord) answer[1]).managed());
    }

    private static void assertNotManaged(Takeover.Decision d, String reasonStart) {
        assertFalse(d.record().managed(), d.record().toString());
        assertNull(d.queue());
        assertTrue(d.record().reason().startsWith(reasonStart), d.record().reason());
    }
}
