package com.example.apps;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadPoolExecutor;

/**
 * A test application for class-data sharing: it loads a class of its own after the agent
 * started ({@link Later}), runs one task on a fixed pool and prints {@code RESULT <n>} and
 * {@code QUEUE <the pool's queue class>}. Run from a jar, as CDS archives only classes from jars.
 */
public final class SharedArchiveApp {

    private SharedArchiveApp() {
    }

    public static void main(String[] args) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            System.out.println("RESULT " + pool.submit(Later::answer).get());
            System.out.println("QUEUE " + ((ThreadPoolExecutor) pool).getQueue().getClass().getName());
        } finally {
            pool.shutdown();
        }
    }

    /** First used by {@code main}, so loaded well after the agent's {@code premain}. */
    static final class Later {

        private Later() {
        }

        static int answer() {
            return 42;
        }
    }
}
