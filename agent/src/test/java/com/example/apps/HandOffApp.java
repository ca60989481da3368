package com.example.apps;

import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A test application with two hand-off pools, one on a non-fair and one on a fair
 * {@code SynchronousQueue}; prints {@code QUEUE nonFair|fair <class>} and runs a task on each.
 */
public final class HandOffApp {

    private HandOffApp() {
    }

    public static void main(String[] args) throws Exception {
        ThreadPoolExecutor nonFair = new ThreadPoolExecutor(0, 4, 60, TimeUnit.SECONDS, new SynchronousQueue<>());
        ThreadPoolExecutor fair = new ThreadPoolExecutor(0, 4, 60, TimeUnit.SECONDS, new SynchronousQueue<>(true));
        AgentDump.queue("nonFair", nonFair);
        AgentDump.queue("fair", fair);
        System.out.println("RESULT " + (nonFair.submit(() -> 1).get(10, TimeUnit.SECONDS)
                + fair.submit(() -> 2).get(10, TimeUnit.SECONDS)));
        nonFair.shutdown();
        fair.shutdown();
    }
}
