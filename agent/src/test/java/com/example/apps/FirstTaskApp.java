package com.example.apps;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;

/**
 * A test application whose pool's threads are busy in the tasks they were created with: a
 * {@code newFixedThreadPool(2)} (no prestarted threads, so ThreadPoolExecutor hands each new
 * thread its first task directly), or with {@code cached} a {@code newCachedThreadPool} (every
 * new thread starts so), given two tasks that wait on a latch. It knows nothing of
 * Turntable and reads the agent's Pool MBean through plain JMX only to report.
 *
 * <p>Prints {@code WORKERS <n> <states>} once the MBean's {@code Workers} shows two workers that
 * are both {@code STUCK} (or whatever it showed after 30 s), then asks the MBean to recycle
 * worker 0 and prints {@code RECYCLE-OK} or {@code RECYCLE-REFUSED <message>}; opens the latch,
 * runs 20 more tasks and prints {@code RAN <n>}, {@code THREADS <made>} and
 * {@code TERMINATED <bool>}.
 */
public final class FirstTaskApp {

    private FirstTaskApp() {
    }

    public static void main(String[] args) throws Exception {
        AtomicInteger made = new AtomicInteger();
        ThreadFactory factory = r -> new Thread(r, "first-" + made.incrementAndGet());
        boolean cached = args.length > 0 && args[0].equals("cached");
        ExecutorService pool = cached ? Executors.newCachedThreadPool(factory) : Executors.newFixedThreadPool(2, factory);
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName name = new ObjectName("dev.turntable:type=Pool,name=FirstTaskApp.main");

        CountDownLatch hold = new CountDownLatch(1);
        AtomicInteger ran = new AtomicInteger();
        for (int i = 0; i < 2; i++) {
            pool.execute(() -> {
                try {
                    hold.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                ran.incrementAndGet();
            });
        }
        String states = "";
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            if (server.isRegistered(name)) {
                List<String> seen = new ArrayList<>();
                for (CompositeData w : (CompositeData[]) server.getAttribute(name, "Workers")) {
                    seen.add(String.valueOf(w.get("state")));
                }
                states = seen.size() + " " + String.join(",", seen);
                if (seen.size() == 2 && seen.stream().allMatch("STUCK"::equals)) {
                    break;
                }
            }
            Thread.sleep(10); // polling the agent's view of another thread: there is nothing to wait on
        }
        System.out.println("WORKERS " + states);
        try {
            server.invoke(name, "recycleWorker", new Object[] {0}, new String[] {"int"});
            System.out.println("RECYCLE-OK");
        } catch (Exception e) {
            System.out.println("RECYCLE-REFUSED " + (e.getCause() != null ? e.getCause().getMessage() : e.getMessage()));
        }
        hold.countDown();
        deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        // Retired at the end of its first task, and replaced through our factory just after.
        while (((Long) server.getAttribute(name, "RetiredWorkerCount") == 0 || made.get() < 3)
                && System.nanoTime() < deadline) {
            Thread.sleep(10); // polling another thread's progress: there is nothing to wait on
        }
        for (int i = 0; i < 20; i++) {
            pool.execute(ran::incrementAndGet);
        }
        pool.shutdown();
        boolean terminated = pool.awaitTermination(30, TimeUnit.SECONDS);
        System.out.println("RAN " + ran.get());
        System.out.println("THREADS " + made.get());
        System.out.println("TERMINATED " + terminated);
        System.out.flush();
    }
}
