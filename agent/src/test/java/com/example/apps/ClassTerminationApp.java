package com.example.apps;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * A test application for the class counts of pools the agent took over, read as each pool
 * terminates. In each of {@code args[0]} rounds it builds {@value #POOLS} {@code ThreadPoolExecutor}
 * subclasses of {@value #WORKERS} workers whose {@code afterExecute} (the application's own
 * bookkeeping) lasts until the pool has been stopped, runs one task per worker on each, all
 * submitted by {@code a-submitter}, and stops them all with {@code shutdownNow()} while every
 * worker is in {@code afterExecute}. ThreadPoolExecutor then lets each worker go without asking
 * its queue again, and any worker may complete its pool's termination while another's thread is
 * still on its way out. The pools of a round race at once, so that a round holds many chances.
 *
 * <p>Each pool's {@code terminated()} reads its MBean's {@code RunningTasksByClass} through plain
 * JMX, as an application's own monitoring would; the pools of a round differ in their maximum
 * pool size (which an unbounded queue never lets them reach), so the application can tell their
 * MBeans apart (nothing else builds a pool meanwhile, and the agent never changes that size; an
 * earlier round's MBean is in {@code before}, as each round waits for all of its own). It prints {@code CLASSES <ClassLoadPercents>} once, {@code STILL-RUNNING <counts>}
 * for each pool whose {@code terminated()} saw a task still counted, {@code UNRUN <n>} if
 * {@code shutdownNow()} returned tasks, and at the end {@code POOLS <n>} (pools stopped),
 * {@code STILL-RUNNING-POOLS <n>} and {@code TERMINATED <every pool terminated>}. It exits 2 if
 * a pool's MBean never appears or its workers never all start (or get past) their tasks.
 */
public final class ClassTerminationApp {

    static final int POOLS = 10;
    static final int WORKERS = 2;
    private static final String NONE_RUNNING = "a:0;b:0";

    private ClassTerminationApp() {
    }

    /** One pool of a round, with what its {@code terminated()} read. */
    static final class Racer extends ThreadPoolExecutor {
        final CountDownLatch tasksGo = new CountDownLatch(1);
        final CountDownLatch allPastTheirTasks = new CountDownLatch(WORKERS);
        final CountDownLatch hooksGo = new CountDownLatch(1);
        final MBeanServer server;
        volatile ObjectName mbean;
        volatile String atTermination;

        Racer(MBeanServer server, int tag) {
            super(WORKERS, WORKERS + tag, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>());
            this.server = server;
        }

        @Override
        protected void afterExecute(Runnable r, Throwable t) {
            allPastTheirTasks.countDown();
            awaitIgnoringInterrupts(hooksGo);
        }

        @Override
        protected void terminated() {
            atTermination = ClassesApp.text(server, mbean, "RunningTasksByClass");
        }
    }

    public static void main(String[] args) throws Exception {
        int rounds = Integer.parseInt(args[0]);
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        int stillRunning = 0;
        boolean allTerminated = true;
        for (int round = 1; round <= rounds; round++) {
            for (String seen : round(server, round == 1)) {
                if (seen == null) {
                    allTerminated = false;
                } else if (!seen.equals(NONE_RUNNING)) {
                    stillRunning++;
                    System.out.println("STILL-RUNNING " + seen);
                }
            }
        }
        System.out.println("POOLS " + rounds * POOLS);
        System.out.println("STILL-RUNNING-POOLS " + stillRunning);
        System.out.println("TERMINATED " + allTerminated);
        System.out.flush();
    }

    /** One round; what each pool's {@code terminated()} read, {@code null} for one that did not terminate. */
    private static List<String> round(MBeanServer server, boolean first) throws Exception {
        ObjectName all = new ObjectName("dev.turntable:type=Pool,*");
        Set<ObjectName> before = new HashSet<>(server.queryNames(all, null));
        List<Racer> pools = new ArrayList<>();
        for (int i = 0; i < POOLS; i++) {
            Racer pool = new Racer(server, i);
            // Every worker up front, so every task goes through the queue and gets its class.
            pool.prestartAllCoreThreads();
            pools.add(pool);
        }
        Map<Integer, ObjectName> byTag = awaitNewPools(server, all, before);
        for (Racer pool : pools) {
            pool.mbean = byTag.get(pool.getMaximumPoolSize() - WORKERS);
        }
        if (first) {
            System.out.println("CLASSES " + ClassesApp.text(server, pools.get(0).mbean, "ClassLoadPercents"));
        }
        Thread submitter = new Thread(() -> {
            for (Racer pool : pools) {
                for (int i = 0; i < WORKERS; i++) {
                    pool.execute(() -> awaitIgnoringInterrupts(pool.tasksGo));
                }
            }
        }, "a-submitter");
        submitter.start();
        submitter.join();
        for (Racer pool : pools) {
            awaitAllActive(pool);
            pool.tasksGo.countDown();
        }
        for (Racer pool : pools) {
            if (!pool.allPastTheirTasks.await(30, TimeUnit.SECONDS)) {
                System.out.println("NOT-PAST-TASKS");
                System.exit(2);
            }
            List<Runnable> unrun = pool.shutdownNow();
            if (!unrun.isEmpty()) {
                System.out.println("UNRUN " + unrun.size());
            }
        }
        pools.forEach(p -> p.hooksGo.countDown());
        // One deadline for the round, so that a report comes well within the test's time limit.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        List<String> seen = new ArrayList<>();
        for (Racer pool : pools) {
            long leftNanos = Math.max(0, deadline - System.nanoTime());
            seen.add(pool.awaitTermination(leftNanos, TimeUnit.NANOSECONDS) ? pool.atTermination : null);
        }
        return seen;
    }

    /** The pool MBeans that were not there before, by their pool's tag, once the agent has registered them all. */
    private static Map<Integer, ObjectName> awaitNewPools(MBeanServer server, ObjectName all, Set<ObjectName> before)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        Map<Integer, ObjectName> byTag = new HashMap<>();
        while (byTag.size() < POOLS) {
            if (System.nanoTime() > deadline) {
                System.out.println("NO-MBEAN");
                System.exit(2);
            }
            for (ObjectName n : server.queryNames(all, null)) {
                if (!before.contains(n)) {
                    byTag.put((Integer) server.getAttribute(n, "MaximumPoolSize") - WORKERS, n);
                }
            }
            Thread.sleep(5); // polling the MBean server: nothing to wait on
        }
        return byTag;
    }

    private static void awaitAllActive(ThreadPoolExecutor pool) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (pool.getActiveCount() < WORKERS) {
            if (System.nanoTime() > deadline) {
                System.out.println("NOT-ACTIVE");
                System.exit(2);
            }
            Thread.sleep(1); // another thread's progress: nothing to wait on
        }
    }

    private static void awaitIgnoringInterrupts(CountDownLatch latch) {
        boolean interrupted = false;
        while (true) {
            try {
                latch.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
