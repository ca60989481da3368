package com.example.apps;

import java.lang.management.ManagementFactory;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * A test application that drops its pools without shutting them down, as code that builds a
 * cached pool per job does: {@code args[0]} pools of no core threads on a hand-off queue, each
 * running one task of 150 ms (long enough for the agent to register its MBean) and then left to
 * its 20 ms keep-alive. Once their threads have timed out, nothing of the application's holds
 * them. It runs the garbage collector until every pool is gone, for at most 20 s, and prints
 * {@code ALIVE <pools still reachable>} and {@code MBEANS <pool MBeans still registered>} at the
 * end (the agent's reaper unregisters a collected pool's MBean within about 0.5 s, so it waits
 * for that too once the pools are gone).
 */
public final class AbandonedPoolsApp {

    private AbandonedPoolsApp() {
    }

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        List<WeakReference<ThreadPoolExecutor>> refs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ThreadPoolExecutor p = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 20, TimeUnit.MILLISECONDS,
                    new SynchronousQueue<>());
            p.execute(() -> sleep(150));
            refs.add(new WeakReference<>(p));
        }
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName pools = new ObjectName("dev.turntable:type=Pool,*");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        int alive;
        int mbeans;
        do {
            sleep(200); // the threads' keep-alive, the housekeeper's and the reaper's ticks: nothing to wait on
            System.gc();
            alive = 0;
            for (WeakReference<ThreadPoolExecutor> r : refs) {
                alive += r.get() != null ? 1 : 0;
            }
            mbeans = server.queryNames(pools, null).size();
        } while ((alive > 0 || mbeans > 0) && System.nanoTime() < deadline);
        System.out.println("ALIVE " + alive);
        System.out.println("MBEANS " + mbeans);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
