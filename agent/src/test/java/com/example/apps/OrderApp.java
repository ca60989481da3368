package com.example.apps;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A test application that counts on {@code Executors.newSingleThreadExecutor()} running tasks in
 * submission order, as its javadoc promises. It knows nothing of Turntable. Two pools, each
 * with a thread factory that counts its threads and whose handler prints {@code UEH <thread>
 * <throwable>} for anything but the failures it causes on purpose:
 * <ul>
 *   <li>{@code plain}: tasks that only record their number;</li>
 *   <li>{@code dying}: every tenth task throws, which ends its thread (ThreadPoolExecutor makes
 *       another).</li>
 * </ul>
 * Each pool gets {@value #ROUNDS} rounds of {@value #TASKS} tasks from one thread, which then
 * waits for them all. Prints, per pool, {@code ORDER-OK <pool> <tasks>} or
 * {@code ORDER-BAD <pool> position <p> ran <the tasks around it>} for the first round out of
 * order, then {@code THREADS <pool> <made>}; last {@code TERMINATED <bool>}.
 */
public final class OrderApp {

    static final int ROUNDS = 3;
    static final int TASKS = 20_000;

    private OrderApp() {
    }

    public static void main(String[] args) throws Exception {
        boolean allTerminated = true;
        for (String kind : new String[] {"plain", "dying"}) {
            AtomicInteger made = new AtomicInteger();
            ThreadFactory factory = r -> {
                Thread t = new Thread(r, kind + "-" + made.incrementAndGet());
                t.setUncaughtExceptionHandler((thread, e) -> {
                    if (!(e instanceof OnPurpose)) {
                        System.out.println("UEH " + thread.getName() + " " + e);
                    }
                });
                return t;
            };
            ExecutorService pool = Executors.newSingleThreadExecutor(factory);
            String verdict = "ORDER-OK " + kind + " " + ROUNDS * TASKS;
            for (int round = 0; round < ROUNDS && verdict.startsWith("ORDER-OK"); round++) {
                int[] ran = new int[TASKS];
                AtomicInteger next = new AtomicInteger();
                CountDownLatch done = new CountDownLatch(TASKS);
                for (int i = 0; i < TASKS; i++) {
                    int id = i;
                    pool.execute(() -> {
                        ran[next.getAndIncrement()] = id; // one thread at a time; the latch publishes
                        done.countDown();
                        if (kind.equals("dying") && id % 10 == 9) {
                            throw new OnPurpose();
                        }
                    });
                }
                if (!done.await(60, TimeUnit.SECONDS)) {
                    verdict = "ORDER-BAD " + kind + " only " + (TASKS - done.getCount()) + " of " + TASKS + " ran";
                    break;
                }
                for (int p = 0; p < TASKS; p++) {
                    if (ran[p] != p) {
                        StringBuilder around = new StringBuilder();
                        for (int q = Math.max(0, p - 3); q < Math.min(TASKS, p + 4); q++) {
                            around.append(q == Math.max(0, p - 3) ? "" : ",").append(ran[q]);
                        }
                        verdict = "ORDER-BAD " + kind + " position " + p + " ran " + around;
                        break;
                    }
                }
            }
            System.out.println(verdict);
            System.out.println("THREADS " + kind + " " + made.get());
            pool.shutdown();
            allTerminated &= pool.awaitTermination(30, TimeUnit.SECONDS);
        }
        System.out.println("TERMINATED " + allTerminated);
    }

    /** The failure the dying pool's tasks throw on purpose. */
    static final class OnPurpose extends RuntimeException {
        OnPurpose() {
            super("fails on purpose", null, false, false);
        }
    }
}
