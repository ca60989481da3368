package com.example.apps;

import java.net.http.HttpClient;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.PriorityBlockingQueue;
import java.util.concurrent.RecursiveTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A test application that uses thread pools the way applications do and checks that they behave
 * as {@code ThreadPoolExecutor} specifies. It knows nothing of Turntable: the integration tests
 * run it with and without the agent and expect the same {@code OK} lines (and no {@code FAIL}).
 * With {@code --dump} it finally prints the agent's MBean ({@link AgentDump}).
 */
public final class SemanticsApp {

    private static int failures;
    /** Every pool stays reachable until the end, so the agent still lists it at the dump. */
    private static final List<ExecutorService> KEEP = new ArrayList<>();

    private SemanticsApp() {
    }

    public static void main(String[] args) throws Exception {
        fixed();
        lifecycle();
        shutdownNowReturnsQueued();
        hooks();
        cached();
        bounded();
        sameSiteTwice();
        lambdas();
        new Service();
        otherQueues();
        excludedPool();
        named();
        ScheduledExecutorService scheduled = scheduled();
        ForkJoinPool fj = forkJoin();
        HttpClient client = HttpClient.newHttpClient(); // the JDK builds a pool of its own inside
        if (args.length > 0 && args[0].equals("--dump")) {
            AgentDump.print();
        }
        for (ExecutorService e : KEEP) {
            e.shutdown();
        }
        scheduled.shutdown();
        fj.shutdown();
        System.out.println("CLIENT " + client.version());
        for (Class<?> c : new Class<?>[] {ThreadPoolExecutor.class, ForkJoinPool.class}) {
            // the agent retransforms these two without adding a field or a method
            System.out.println("SHAPE " + c.getSimpleName() + " fields=" + c.getDeclaredFields().length
                    + " methods=" + c.getDeclaredMethods().length + " constructors=" + c.getDeclaredConstructors().length);
        }
        System.out.println(failures == 0 ? "ALL-OK" : "FAILURES " + failures);
        // main returns: the JVM must exit by itself once the shut-down pools' threads end
    }

    static void check(String name, boolean ok, Object detail) {
        if (ok) {
            System.out.println("OK " + name);
        } else {
            failures++;
            System.out.println("FAIL " + name + ": " + detail);
        }
    }

    static boolean eventually(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(5); // polling the pool's own counters: they have no notification
        }
        return true;
    }

    static void fixed() throws Exception {
        ThreadPoolExecutor pool = (ThreadPoolExecutor) Executors.newFixedThreadPool(3);
        AgentDump.queue("fixed", pool);
        List<Future<Long>> results = new ArrayList<>();
        for (long i = 0; i < 200; i++) {
            long n = i;
            results.add(pool.submit((Callable<Long>) () -> n * n));
        }
        long sum = 0;
        for (Future<Long> f : results) {
            sum += f.get(10, TimeUnit.SECONDS);
        }
        check("fixed.results", sum == 2646700L, sum);
        check("fixed.completedTaskCount", eventually(() -> pool.getCompletedTaskCount() == 200), pool.getCompletedTaskCount());
        check("fixed.poolSize", pool.getPoolSize() == 3, pool.getPoolSize());
        KEEP.add(pool);
    }

    static void lifecycle() throws Exception {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(2, 2, 0L, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>());
        AgentDump.queue("lifecycle", pool);
        CountDownLatch block = new CountDownLatch(1);
        CountDownLatch started = new CountDownLatch(2);
        for (int i = 0; i < 2; i++) {
            pool.execute(() -> {
                started.countDown();
                awaitQuietly(block);
            });
        }
        check("lifecycle.started", started.await(10, TimeUnit.SECONDS), started.getCount());
        check("lifecycle.activeCount", pool.getActiveCount() == 2, pool.getActiveCount());
        AtomicInteger quick = new AtomicInteger();
        for (int i = 0; i < 3; i++) {
            pool.execute(quick::incrementAndGet);
        }
        check("lifecycle.queued", pool.getQueue().size() == 3, pool.getQueue().size());
        check("lifecycle.taskCount", pool.getTaskCount() == 5, pool.getTaskCount());
        pool.shutdown();
        check("lifecycle.isShutdown", pool.isShutdown(), false);
        check("lifecycle.awaitTermination.whileRunning", !pool.awaitTermination(200, TimeUnit.MILLISECONDS), "true");
        check("lifecycle.isTerminated.whileRunning", !pool.isTerminated(), "true");
        boolean rejected = false;
        try {
            pool.execute(() -> { });
        } catch (RejectedExecutionException e) {
            rejected = true;
        }
        check("lifecycle.rejectAfterShutdown", rejected, "accepted");
        block.countDown();
        check("lifecycle.awaitTermination", pool.awaitTermination(10, TimeUnit.SECONDS), "false");
        check("lifecycle.queuedRanAfterShutdown", quick.get() == 3, quick.get());
        check("lifecycle.completedTaskCount", pool.getCompletedTaskCount() == 5, pool.getCompletedTaskCount());
        check("lifecycle.poolSizeAfterTermination", pool.getPoolSize() == 0, pool.getPoolSize());
        engineSlotsRetired("lifecycle", pool);
        KEEP.add(pool);
    }

    static void shutdownNowReturnsQueued() throws Exception {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>());
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        pool.execute(() -> {
            started.countDown();
            try {
                new CountDownLatch(1).await();
            } catch (InterruptedException e) {
                interrupted.countDown();
            }
        });
        check("shutdownNow.started", started.await(10, TimeUnit.SECONDS), "not started");
        for (int i = 0; i < 4; i++) {
            pool.execute(() -> { });
        }
        List<Runnable> left = pool.shutdownNow();
        check("shutdownNow.returnsQueued", left.size() == 4, left.size());
        check("shutdownNow.interruptsRunning", interrupted.await(10, TimeUnit.SECONDS), "not interrupted");
        check("shutdownNow.awaitTermination", pool.awaitTermination(10, TimeUnit.SECONDS), "false");
        check("shutdownNow.queueEmpty", pool.getQueue().isEmpty(), pool.getQueue().size());
        KEEP.add(pool);
    }

    /** A pool subclass with hooks, its own thread factory and an uncaught-exception handler. */
    static final class HookedPool extends ThreadPoolExecutor {
        final AtomicInteger before = new AtomicInteger();
        final AtomicInteger after = new AtomicInteger();
        final AtomicInteger afterWithError = new AtomicInteger();
        final AtomicInteger terminated = new AtomicInteger();

        HookedPool(ThreadFactory factory) {
            super(2, 2, 0L, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), factory);
        }

        @Override
        protected void beforeExecute(Thread t, Runnable r) {
            before.incrementAndGet();
        }

        @Override
        protected void afterExecute(Runnable r, Throwable t) {
            after.incrementAndGet();
            if (t != null) {
                afterWithError.incrementAndGet();
            }
        }

        @Override
        protected void terminated() {
            terminated.incrementAndGet();
        }
    }

    static void hooks() throws Exception {
        AtomicInteger uncaught = new AtomicInteger();
        AtomicInteger threads = new AtomicInteger();
        List<Thread> made = new ArrayList<>();
        ThreadFactory factory = r -> {
            Thread t = new Thread(r, "hooked-" + threads.incrementAndGet());
            t.setDaemon(true);
            t.setUncaughtExceptionHandler((th, e) -> uncaught.incrementAndGet());
            synchronized (made) {
                made.add(t);
            }
            return t;
        };
        HookedPool pool = new HookedPool(factory);
        AgentDump.queue("hooked", pool);
        for (int i = 0; i < 50; i++) {
            pool.execute(() -> { });
        }
        pool.execute(() -> {
            throw new IllegalStateException("task failure on purpose");
        });
        for (int i = 0; i < 10; i++) {
            pool.execute(() -> { });
        }
        pool.shutdown();
        check("hooks.awaitTermination", pool.awaitTermination(10, TimeUnit.SECONDS), "false");
        check("hooks.beforeExecute", pool.before.get() == 61, pool.before.get());
        check("hooks.afterExecute", pool.after.get() == 61, pool.after.get());
        check("hooks.afterExecuteSeesError", pool.afterWithError.get() == 1, pool.afterWithError.get());
        check("hooks.terminated", pool.terminated.get() == 1, pool.terminated.get());
        check("hooks.uncaughtHandler", eventually(() -> uncaught.get() == 1), uncaught.get());
        check("hooks.completedTaskCount", pool.getCompletedTaskCount() == 61, pool.getCompletedTaskCount());
        synchronized (made) {
            boolean namesKept = true;
            for (int i = 0; i < made.size(); i++) {
                Thread t = made.get(i);
                namesKept &= t.getName().equals("hooked-" + (i + 1)) && t.isDaemon();
            }
            // Two core threads, plus the replacement for the one the failing task killed unless
            // that worker died after shutdown with the queue already empty (then none is needed).
            check("hooks.threadsAsFactoryMadeThem", namesKept && (made.size() == 2 || made.size() == 3), made);
        }
        engineSlotsRetired("hooks", pool);
        KEEP.add(pool);
    }

    static void cached() throws Exception {
        ThreadPoolExecutor pool = (ThreadPoolExecutor) Executors.newCachedThreadPool();
        AgentDump.queue("cached", pool);
        int n = 12;
        CyclicBarrier all = new CyclicBarrier(n);
        List<Future<Integer>> fs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            fs.add(pool.submit(() -> all.await(10, TimeUnit.SECONDS))); // only a hand-off pool runs all at once
        }
        int done = 0;
        for (Future<Integer> f : fs) {
            f.get(20, TimeUnit.SECONDS);
            done++;
        }
        check("cached.allConcurrent", done == n && pool.getLargestPoolSize() == n, pool.getLargestPoolSize());
        KEEP.add(pool);
    }

    static void bounded() throws Exception {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 2, 10L, TimeUnit.SECONDS, new ArrayBlockingQueue<>(1));
        AgentDump.queue("bounded", pool);
        CountDownLatch block = new CountDownLatch(1);
        CountDownLatch running = new CountDownLatch(2);
        Runnable blocker = () -> {
            running.countDown();
            awaitQuietly(block);
        };
        pool.execute(blocker);                 // core thread
        check("bounded.firstStarted", eventually(() -> running.getCount() == 1), running.getCount());
        pool.execute(blocker);                 // queued
        check("bounded.queued", pool.getQueue().size() == 1 && pool.getQueue().remainingCapacity() == 0,
                pool.getQueue().size() + "/" + pool.getQueue().remainingCapacity());
        pool.execute(blocker);                 // queue full: a second thread
        check("bounded.grew", pool.getPoolSize() == 2, pool.getPoolSize());
        boolean rejected = false;
        try {
            pool.execute(blocker);             // full and at maximum: the pool's handler rejects
        } catch (RejectedExecutionException e) {
            rejected = true;
        }
        check("bounded.rejects", rejected, "accepted");
        block.countDown();
        pool.shutdown();
        check("bounded.awaitTermination", pool.awaitTermination(10, TimeUnit.SECONDS), "false");
        check("bounded.completed", pool.getCompletedTaskCount() == 3, pool.getCompletedTaskCount());
        KEEP.add(pool);
    }

    static void sameSiteTwice() throws Exception {
        for (int i = 0; i < 2; i++) {
            ExecutorService e = Executors.newSingleThreadExecutor();
            check("sameSite.run" + i, e.submit(() -> 42).get(10, TimeUnit.SECONDS) == 42, "no answer");
            KEEP.add(e);
        }
    }

    static void lambdas() throws Exception {
        List<ExecutorService> made = new ArrayList<>();
        Runnable r = () -> made.add(Executors.newFixedThreadPool(1));
        r.run();
        check("lambda.run", made.get(0).submit(() -> 7).get(10, TimeUnit.SECONDS) == 7, "no answer");
        KEEP.addAll(made);
    }

    /** Builds its pool in its constructor: the pool is named {@code Service.new}. */
    static final class Service {
        Service() throws Exception {
            ExecutorService e = Executors.newFixedThreadPool(1);
            check("service.run", e.submit(() -> 1).get(10, TimeUnit.SECONDS) == 1, "no answer");
            KEEP.add(e);
        }
    }

    static void otherQueues() throws Exception {
        ThreadPoolExecutor priority = new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS, new PriorityBlockingQueue<>());
        ThreadPoolExecutor subclass = new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS,
                new LinkedBlockingQueue<Runnable>() { });
        ThreadPoolExecutor fair = new ThreadPoolExecutor(0, 4, 1L, TimeUnit.SECONDS, new SynchronousQueue<>(true));
        LinkedBlockingQueue<Runnable> prefilled = new LinkedBlockingQueue<>();
        CountDownLatch ran = new CountDownLatch(1);
        prefilled.add(ran::countDown);
        ThreadPoolExecutor nonEmpty = new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS, prefilled);
        nonEmpty.prestartAllCoreThreads();
        check("otherQueues.prefilledTaskRuns", ran.await(10, TimeUnit.SECONDS), "not run");
        check("otherQueues.fairRuns", fair.submit(() -> 3).get(10, TimeUnit.SECONDS) == 3, "no answer");
        AgentDump.queue("priority", priority);
        AgentDump.queue("subclassQueue", subclass);
        AgentDump.queue("fair", fair);
        AgentDump.queue("nonEmpty", nonEmpty);
        KEEP.add(priority);
        KEEP.add(subclass);
        KEEP.add(fair);
        KEEP.add(nonEmpty);
    }

    static void excludedPool() throws Exception {
        ThreadPoolExecutor pool = (ThreadPoolExecutor) Executors.newFixedThreadPool(2);
        AgentDump.queue("excluded", pool);
        check("excluded.run", pool.submit(() -> 5).get(10, TimeUnit.SECONDS) == 5, "no answer");
        KEEP.add(pool);
    }

    static void named() throws Exception {
        ThreadPoolExecutor pool = (ThreadPoolExecutor) Executors.newFixedThreadPool(2);
        AgentDump.queue("named", pool);
        check("named.run", pool.submit(() -> 6).get(10, TimeUnit.SECONDS) == 6, "no answer");
        KEEP.add(pool);
    }

    static ScheduledExecutorService scheduled() throws Exception {
        ScheduledExecutorService s = Executors.newScheduledThreadPool(1);
        Future<Integer> f = s.schedule(() -> 9, 20, TimeUnit.MILLISECONDS);
        check("scheduled.run", f.get(10, TimeUnit.SECONDS) == 9, "no answer");
        return s;
    }

    static final class Sum extends RecursiveTask<Long> {
        private final long from;
        private final long to;

        Sum(long from, long to) {
            this.from = from;
            this.to = to;
        }

        @Override
        protected Long compute() {
            if (to - from <= 1000) {
                long s = 0;
                for (long i = from; i < to; i++) {
                    s += i;
                }
                return s;
            }
            long mid = (from + to) / 2;
            Sum left = new Sum(from, mid);
            left.fork();
            return new Sum(mid, to).compute() + left.join();
        }
    }

    static ForkJoinPool forkJoin() {
        ForkJoinPool fj = new ForkJoinPool(2);
        long s = fj.invoke(new Sum(0, 100_000));
        check("forkJoin.sum", s == 4_999_950_000L, s);
        return fj;
    }

    /**
     * Under the agent only: every worker that left a terminated pool told the engine so (the
     * worker-exit advice), which frees its slot. Read by reflection: the app has no Turntable
     * dependency, and without the agent the queue is a plain JDK queue and nothing is printed.
     */
    static void engineSlotsRetired(String label, ThreadPoolExecutor pool) throws Exception {
        Object q = pool.getQueue();
        if (!q.getClass().getName().equals("dev.turntable.pool.TurntableQueue")) {
            return;
        }
        List<?> workers = (List<?>) q.getClass().getMethod("workers").invoke(q);
        List<String> states = new ArrayList<>();
        for (Object w : workers) {
            states.add((String) w.getClass().getMethod("state").invoke(w));
        }
        check("engine." + label + ".slotsRetired", !states.isEmpty() && states.stream().allMatch("RETIRED"::equals), states);
    }

    static void awaitQuietly(CountDownLatch l) {
        try {
            l.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
