package com.example.apps;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A test application for {@code PoolInConstructorAgent}: builds a pool, then one during whose
 * construction that agent builds another, runs a task on each of its own, and prints
 * {@code QUEUE first|outer <class>}, {@code NESTED <built>} and the agent's table.
 */
public final class NestedPoolApp {

    private NestedPoolApp() {
    }

    public static void main(String[] args) throws Exception {
        ThreadPoolExecutor first = new ThreadPoolExecutor(2, 2, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>());
        System.setProperty("build.nested", "yes");
        ThreadPoolExecutor outer = new ThreadPoolExecutor(2, 2, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>());
        System.out.println("NESTED " + (System.getProperty("build.nested") == null));
        AgentDump.queue("first", first);
        AgentDump.queue("outer", outer);
        first.submit(() -> { }).get(10, TimeUnit.SECONDS);
        outer.submit(() -> { }).get(10, TimeUnit.SECONDS);
        AgentDump.print();
        first.shutdown();
        outer.shutdown();
    }
}
