package com.example.apps;

import java.util.concurrent.Executors;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A test application that ends in one of three ways, each with a non-daemon pool that ran work:
 * {@code return} (pool shut down, main returns: exit 0 once the workers end), {@code timeout}
 * (never shut down, but idle core threads time out after 200 ms: exit 0), {@code exit7}
 * ({@code System.exit(7)} with the pool still running), {@code throw} (pool shut down, main throws:
 * exit 1).
 */
public final class ExitApp {

    private ExitApp() {
    }

    public static void main(String[] args) throws Exception {
        ThreadPoolExecutor pool = (ThreadPoolExecutor) Executors.newFixedThreadPool(3);
        if (args[0].equals("timeout")) {
            pool.setKeepAliveTime(200, TimeUnit.MILLISECONDS);
            pool.allowCoreThreadTimeOut(true);
        }
        for (int i = 0; i < 30; i++) {
            pool.submit(() -> Thread.currentThread().getName()).get(10, TimeUnit.SECONDS);
        }
        System.out.println("WORKED");
        switch (args[0]) {
            case "return":
                pool.shutdown();
                return;
            case "timeout":
                return;
            case "exit7":
                System.exit(7);
                return;
            case "throw":
                pool.shutdown();
                throw new IllegalStateException("the app fails on purpose");
            default:
                throw new IllegalArgumentException(args[0]);
        }
    }
}
