package com.example.apps;

import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.management.AttributeChangeNotification;
import javax.management.MBeanServer;
import javax.management.Notification;
import javax.management.ObjectName;

/**
 * A test application for the JMX end-to-end tests: two pools the agent manages doing steady work
 * until standard input closes, and one it does not (a scheduled pool). It knows nothing of
 * Turntable: it reads the agent's MBeans through plain JMX only to report what an operator did.
 *
 * <p>Prints, in order: {@code REJECTED <n>} (it overfilled its bounded pool once, right after
 * creating it); {@code HANDLER same=<bool> <class>} once both pools' MBeans are registered
 * (whether the pool's rejection handler is still the one it gave); {@code READY <pid>} when it
 * listens to the MBeans' attribute changes; then for each change {@code CHANGE <pool> <attribute> <old> -> <new>}, followed by
 * {@code AFTER <pool> <attribute>=<new> tasks=<n>} when the first batch submitted after it has
 * completed; {@code BYE} when standard input closed and the pools shut down. Exits by itself
 * after {@code apps.maxSeconds} (default 300), so a lost test never leaves it running.
 */
public final class JmxTargetApp {

    /** Tasks per batch: the orders pool is unbounded; the reports pool queues at most 4. */
    static final Map<String, Integer> BATCH = Map.of("JmxTargetApp.orders", 30, "JmxTargetApp.reports", 4);

    /** The change to report once the next batch completes, per pool; any thread. */
    private static final Map<String, AtomicReference<String>> CHANGED = new ConcurrentHashMap<>();
    private static volatile boolean stopping;

    private JmxTargetApp() {
    }

    public static void main(String[] args) throws Exception {
        ThreadPoolExecutor orders = orders();
        ThreadPoolExecutor reports = reports();
        ScheduledExecutorService ticker = ticker();
        ticker.scheduleWithFixedDelay(() -> { }, 100, 100, TimeUnit.MILLISECONDS);

        RejectedExecutionHandler handler = reports.getRejectedExecutionHandler();
        System.out.println("REJECTED " + overfill(reports));

        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        for (String pool : List.of("JmxTargetApp.orders", "JmxTargetApp.reports")) {
            ObjectName name = new ObjectName("dev.turntable:type=Pool,name=" + pool);
            awaitRegistered(server, name);
            CHANGED.put(pool, new AtomicReference<>());
            server.addNotificationListener(name, JmxTargetApp::changed, null, pool);
        }
        // Now that the pools are registered in JMX: is the handler still the one given?
        System.out.println("HANDLER same=" + (reports.getRejectedExecutionHandler() == handler)
                + " " + reports.getRejectedExecutionHandler().getClass().getName());
        System.out.println("READY " + ProcessHandle.current().pid());
        System.out.flush();

        Thread driver = new Thread(() -> drive(Map.of("JmxTargetApp.orders", orders, "JmxTargetApp.reports", reports)),
                "driver");
        driver.setDaemon(true);
        driver.start();
        Thread deadline = new Thread(() -> {
            try {
                Thread.sleep(Long.getLong("apps.maxSeconds", 300) * 1000);
            } catch (InterruptedException e) {
                return;
            }
            System.out.println("MAX-SECONDS reached");
            System.exit(3);
        }, "deadline");
        deadline.setDaemon(true);
        deadline.start();

        InputStream in = System.in;
        while (in.read() >= 0) {
            // serve until standard input closes
        }
        stopping = true;
        driver.join(10_000);
        orders.shutdown();
        reports.shutdown();
        ticker.shutdownNow();
        boolean done = orders.awaitTermination(10, TimeUnit.SECONDS) & reports.awaitTermination(10, TimeUnit.SECONDS);
        System.out.println(done ? "BYE" : "NOT-TERMINATED");
        System.out.flush();
    }

    static ThreadPoolExecutor orders() {
        return (ThreadPoolExecutor) Executors.newFixedThreadPool(3);
    }

    static ThreadPoolExecutor reports() {
        return new ThreadPoolExecutor(2, 2, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(4),
                new ThreadPoolExecutor.AbortPolicy());
    }

    static ScheduledExecutorService ticker() {
        return Executors.newScheduledThreadPool(1);
    }

    /** Two tasks hold both workers, four fill the queue, three more are rejected: returns 3. */
    static int overfill(ThreadPoolExecutor pool) throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch running = new CountDownLatch(2);
        List<Future<?>> accepted = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            accepted.add(pool.submit(() -> {
                running.countDown();
                release.await();
                return null;
            }));
        }
        if (!running.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the workers did not start");
        }
        int rejected = 0;
        for (int i = 0; i < 7; i++) {
            try {
                accepted.add(pool.submit(() -> { }));
            } catch (RejectedExecutionException e) {
                rejected++;
            }
        }
        release.countDown();
        for (Future<?> f : accepted) {
            f.get(30, TimeUnit.SECONDS);
        }
        return rejected;
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

    /** JMX notification listener: remembers the change so the driver reports it after the next batch. */
    private static void changed(Notification n, Object pool) {
        if (n instanceof AttributeChangeNotification) {
            AttributeChangeNotification c = (AttributeChangeNotification) n;
            System.out.println("CHANGE " + pool + " " + c.getAttributeName() + " " + c.getOldValue() + " -> "
                    + c.getNewValue());
            System.out.flush();
            CHANGED.get(pool).set(c.getAttributeName() + "=" + c.getNewValue());
        }
    }

    /** Steady work: a batch of small tasks on each pool, one after the other, until stopping. */
    private static void drive(Map<String, ThreadPoolExecutor> pools) {
        try {
            while (!stopping) {
                for (Map.Entry<String, ThreadPoolExecutor> e : pools.entrySet()) {
                    String change = CHANGED.get(e.getKey()).getAndSet(null);
                    List<Future<?>> batch = new ArrayList<>();
                    for (int i = 0, n = BATCH.get(e.getKey()); i < n; i++) {
                        batch.add(e.getValue().submit(JmxTargetApp::work));
                    }
                    for (Future<?> f : batch) {
                        f.get(30, TimeUnit.SECONDS);
                    }
                    if (change != null) {
                        System.out.println("AFTER " + e.getKey() + " " + change + " tasks=" + batch.size());
                        System.out.flush();
                    }
                }
                Thread.sleep(20); // pacing of the workload itself, not a wait for state
            }
        } catch (Exception e) {
            System.out.println("DRIVER-FAILED " + e);
            System.out.flush();
        }
    }

    private static long work() {
        long x = 0;
        for (int i = 0; i < 20_000; i++) {
            x += i * 31L ^ x;
        }
        return x;
    }
}
