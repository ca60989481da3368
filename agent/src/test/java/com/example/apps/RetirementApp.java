package com.example.apps;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.management.MBeanServer;
import javax.management.Notification;
import javax.management.NotificationFilter;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;

/**
 * A test application for worker retirement under the agent: a fixed pool of 4 with its own
 * {@link ThreadFactory}, which counts the threads it makes and gives each an
 * {@code UncaughtExceptionHandler} that prints {@code UEH <thread> <throwable>} (so anything that
 * escapes a worker shows). It knows nothing of Turntable and reads the agent's Pool MBean through
 * plain JMX only to report.
 *
 * <p>Prints {@code RESULTS-OK <n>} (or {@code RESULTS-BAD <detail>}) after 200 tasks, then
 * {@code THREADS <made>}, {@code MAX-LIFETIME <n>}, {@code LIFETIMES <a;b;c;d>},
 * {@code RETIRED <n>}, {@code NOTIFICATIONS <n>} and {@code NOTIFICATION <message>|<userData>}
 * for the first {@code dev.turntable.worker.retired} notification. With {@code --recycle} it then
 * asks the MBean to recycle worker 0, runs 20 more tasks and prints {@code RECYCLED <retired>
 * threads=<made>}. Last {@code TERMINATED <bool>}; {@code main} then returns and the JVM exits
 * once the pool's (non-daemon) threads are gone.
 */
public final class RetirementApp {

    static final int TASKS = 200;

    private RetirementApp() {
    }

    public static void main(String[] args) throws Exception {
        AtomicInteger made = new AtomicInteger();
        ThreadFactory factory = r -> {
            Thread t = new Thread(r, "app-worker-" + made.incrementAndGet());
            t.setUncaughtExceptionHandler((thread, e) -> {
                System.out.println("UEH " + thread.getName() + " " + e);
                System.out.flush();
            });
            return t;
        };
        ExecutorService pool = Executors.newFixedThreadPool(4, factory);

        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName name = new ObjectName("dev.turntable:type=Pool,name=RetirementApp.main");
        awaitRegistered(server, name);
        AtomicInteger notifications = new AtomicInteger();
        AtomicReference<String> first = new AtomicReference<>();
        NotificationFilter retired = n -> n.getType().equals("dev.turntable.worker.retired");
        server.addNotificationListener(name, (Notification n, Object handback) -> {
            notifications.incrementAndGet();
            CompositeData d = (CompositeData) n.getUserData();
            first.compareAndSet(null, n.getMessage() + "|index=" + d.get("index") + ",threadName=" + d.get("threadName")
                    + ",lifetimeTasks=" + d.get("lifetimeTasks") + ",reason=" + d.get("reason")
                    + ",retirements=" + d.get("retirements"));
        }, retired, null);

        runTasks(pool, TASKS);
        System.out.println("THREADS " + made.get());
        System.out.println("MAX-LIFETIME " + server.getAttribute(name, "MaxLifetimeTasks"));
        StringBuilder lifetimes = new StringBuilder();
        for (int l : (int[]) server.getAttribute(name, "WorkerLifetimes")) {
            lifetimes.append(lifetimes.length() == 0 ? "" : ";").append(l);
        }
        System.out.println("LIFETIMES " + lifetimes);
        System.out.println("RETIRED " + server.getAttribute(name, "RetiredWorkerCount"));
        System.out.println("NOTIFICATIONS " + notifications.get());
        System.out.println("NOTIFICATION " + first.get());

        if (args.length > 0 && args[0].equals("--recycle")) {
            long before = (Long) server.getAttribute(name, "RetiredWorkerCount");
            int threadsBefore = made.get();
            server.invoke(name, "recycleWorker", new Object[] {0}, new String[] {"int"});
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            // Retired, and its replacement made by our factory (which happens just after).
            while (((Long) server.getAttribute(name, "RetiredWorkerCount") == before || made.get() == threadsBefore)
                    && System.nanoTime() < deadline) {
                Thread.sleep(10); // polling another thread's progress: there is nothing to wait on
            }
            runTasks(pool, 20);
            System.out.println("RECYCLED " + ((Long) server.getAttribute(name, "RetiredWorkerCount") - before)
                    + " threads=" + made.get());
        }
        pool.shutdown();
        System.out.println("TERMINATED " + pool.awaitTermination(30, TimeUnit.SECONDS));
        System.out.flush();
    }

    /** Runs {@code n} tasks and checks every result. */
    private static void runTasks(ExecutorService pool, int n) throws Exception {
        List<Future<Long>> futures = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long k = i;
            futures.add(pool.submit(() -> work(k)));
        }
        int ok = 0;
        for (int i = 0; i < n; i++) {
            long got = futures.get(i).get(60, TimeUnit.SECONDS);
            if (got == expected(i)) {
                ok++;
            } else {
                System.out.println("RESULTS-BAD task " + i + " returned " + got + ", expected " + expected(i));
            }
        }
        if (ok == n) {
            System.out.println("RESULTS-OK " + n);
        }
    }

    /** A little CPU work with a result that shows it ran exactly as asked. */
    private static long work(long k) {
        long x = 0;
        for (int i = 0; i < 20_000; i++) {
            x += (i ^ k) & 7;
        }
        return x * 1_000 + k;
    }

    private static long expected(long k) {
        long x = 0;
        for (int i = 0; i < 20_000; i++) {
            x += (i ^ k) & 7;
        }
        return x * 1_000 + k;
    }

    private static void awaitRegistered(MBeanServer server, ObjectName name) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!server.isRegistered(name)) {
            if (System.nanoTime() > deadline) {
                System.out.println("NO-MBEAN " + name);
                System.exit(2);
            }
            Thread.sleep(10); // polling another thread's progress: there is nothing to wait on
        }
    }
}
