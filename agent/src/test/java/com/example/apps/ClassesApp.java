package com.example.apps;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;

/**
 * A test application for task classes under the agent: a fixed pool of 4 fed by two submitter
 * threads, {@code batch-submitter} first, then {@code interactive-submitter}, each flooding 12
 * tasks that hold their worker until the application opens that task's own gate. It knows
 * nothing of Turntable: it reads the agent's Pool MBean through plain JMX only to follow and
 * report, and opens gates as a stand-in for tasks that take a while.
 *
 * <p>With task classes on, once batch runs on all 4 workers and both classes wait, it ends
 * running batch tasks one at a time, each time waiting for the pool to start an interactive task
 * on the freed worker, and prints {@code REACHED running=<c:n;...> waiting=<c:n;...>} once three
 * have (or {@code NOT-REACHED ...} after 30 s). With classes off ({@code ClassLoadPercents}
 * empty) it prints {@code CLASSES off} and opens every gate at once. Then {@code COMPLETED <n>}
 * (tasks that ran to the end, each once), {@code TWICE <n>} (tasks that completed more than once),
 * {@code HANDOFF <sum>} from a cached pool (a hand-off queue), {@code TERMINATED <bool>};
 * {@code main} then returns and the JVM exits once the pool's threads are gone.
 */
public final class ClassesApp {

    static final int PER_CLASS = 12;
    static final ObjectName POOL = name("dev.turntable:type=Pool,name=ClassesApp.main");

    private ClassesApp() {
    }

    /** One task: holds its worker until its gate opens; counts how often it ran to the end. */
    static final class Gated implements Runnable {
        final CountDownLatch gate = new CountDownLatch(1);
        final AtomicInteger completions = new AtomicInteger();
        volatile boolean inside;

        @Override
        public void run() {
            inside = true;
            try {
                if (gate.await(60, TimeUnit.SECONDS)) {
                    completions.incrementAndGet();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                inside = false;
            }
        }
    }

    public static void main(String[] args) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        // All four workers up front, so every task goes through the pool's queue (a worker the
        // executor starts for a task runs that one without asking the queue).
        ((ThreadPoolExecutor) pool).prestartAllCoreThreads();
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        await(() -> server.isRegistered(POOL), "NO-MBEAN");
        boolean classes = !text(server, "ClassLoadPercents").isEmpty();

        List<Gated> batch = tasks();
        List<Gated> interactive = tasks();
        if (!classes) {
            System.out.println("CLASSES off");
            batch.forEach(t -> t.gate.countDown());
            interactive.forEach(t -> t.gate.countDown());
        }
        submitAs("batch-submitter", pool, batch);
        if (classes) {
            await(() -> text(server, "RunningTasksByClass").equals("batch:4;interactive:0"), "NO-BATCH-LOAN");
            System.out.println("BORROWED running=" + text(server, "RunningTasksByClass"));
        }
        submitAs("interactive-submitter", pool, interactive);
        if (classes) {
            for (int i = 1; i <= 3; i++) {
                openOneRunning(batch);
                String expected = "batch:" + (4 - i) + ";interactive:" + i;
                await(() -> text(server, "RunningTasksByClass").equals(expected), "NOT-REACHED");
            }
            System.out.println("REACHED running=" + text(server, "RunningTasksByClass") + " waiting="
                    + text(server, "WaitingTasksByClass"));
            batch.forEach(t -> t.gate.countDown());
            interactive.forEach(t -> t.gate.countDown());
        }

        pool.shutdown();
        boolean terminated = pool.awaitTermination(60, TimeUnit.SECONDS);
        int completed = 0;
        int twice = 0;
        for (List<Gated> ts : List.of(batch, interactive)) {
            for (Gated t : ts) {
                completed += t.completions.get() >= 1 ? 1 : 0;
                twice += t.completions.get() > 1 ? 1 : 0;
            }
        }
        System.out.println("COMPLETED " + completed);
        System.out.println("TWICE " + twice);
        System.out.println("HANDOFF " + handOff());
        System.out.println("TERMINATED " + terminated);
        System.out.flush();
    }

    /** A cached pool (a SynchronousQueue: hand-off) created here, named {@code ClassesApp.handOff}. */
    private static long handOff() throws Exception {
        ExecutorService cached = Executors.newCachedThreadPool();
        long sum = 0;
        for (int i = 1; i <= 10; i++) {
            int n = i;
            sum += cached.submit(() -> n).get(30, TimeUnit.SECONDS);
        }
        cached.shutdown();
        cached.awaitTermination(30, TimeUnit.SECONDS);
        return sum;
    }

    private static List<Gated> tasks() {
        List<Gated> out = new ArrayList<>();
        for (int i = 0; i < PER_CLASS; i++) {
            out.add(new Gated());
        }
        return out;
    }

    /** Submits from a thread of this name: the tasks' requestor, under requestor=THREAD_NAME. */
    private static void submitAs(String threadName, ExecutorService pool, List<Gated> tasks) throws InterruptedException {
        Thread t = new Thread(() -> tasks.forEach(pool::execute), threadName);
        t.start();
        t.join();
    }

    /** Ends one task that is running now (once one is): its worker comes free. */
    private static void openOneRunning(List<Gated> tasks) throws InterruptedException {
        await(() -> tasks.stream().anyMatch(t -> t.inside && t.gate.getCount() > 0), "NONE-RUNNING");
        tasks.stream().filter(t -> t.inside && t.gate.getCount() > 0).findFirst().orElseThrow().gate.countDown();
    }

    /**
     * A {@code Map<String, Integer>} or {@code Map<String, String>} attribute, which JMX gives as
     * TabularData with {@code key} and {@code value} rows, as {@code key:value;...} sorted by key.
     */
    static String text(MBeanServer server, String attribute) {
        return text(server, POOL, attribute);
    }

    /** {@link #text(MBeanServer, String)} of the pool MBean {@code pool}. */
    static String text(MBeanServer server, ObjectName pool, String attribute) {
        try {
            TabularData table = (TabularData) server.getAttribute(pool, attribute);
            Map<String, Object> sorted = new TreeMap<>();
            for (Object row : table.values()) {
                CompositeData cd = (CompositeData) row;
                sorted.put((String) cd.get("key"), cd.get("value"));
            }
            StringBuilder sb = new StringBuilder();
            sorted.forEach((k, v) -> sb.append(sb.length() == 0 ? "" : ";").append(k).append(':').append(v));
            return sb.toString();
        } catch (Exception e) {
            return "ERROR " + e;
        }
    }

    /** Polls another thread's progress (there is nothing to wait on); prints {@code failure} and exits 2 after 30 s. */
    private static void await(BooleanSupplier condition, String failure) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                System.out.println(failure + " running=" + text(ManagementFactory.getPlatformMBeanServer(),
                        "RunningTasksByClass") + " waiting=" + text(ManagementFactory.getPlatformMBeanServer(),
                        "WaitingTasksByClass"));
                System.exit(2);
            }
            Thread.sleep(10);
        }
    }

    private static ObjectName name(String text) {
        try {
            return new ObjectName(text);
        } catch (Exception e) {
            throw new IllegalArgumentException(text, e);
        }
    }
}
