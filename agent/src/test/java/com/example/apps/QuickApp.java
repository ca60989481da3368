package com.example.apps;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A minimal test application: one fixed pool created in {@code main}, 100 tasks, a checked sum.
 * Prints {@code QUEUE}, {@code SUM} and, with {@code --dump}, the agent's MBean.
 */
public final class QuickApp {

    private QuickApp() {
    }

    public static void main(String[] args) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        AgentDump.queue("quick", (ThreadPoolExecutor) pool);
        long sum = 0;
        for (int i = 1; i <= 100; i++) {
            int n = i;
            sum += pool.submit(() -> n).get(10, TimeUnit.SECONDS);
        }
        System.out.println("SUM " + sum);
        if (args.length > 0 && args[0].equals("--dump")) {
            AgentDump.print();
        }
        pool.shutdown();
    }
}
