package com.example.apps;

import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A test application for {@code PoolInConstructorAgent}: builds a pool, then one during whose
 * construction that agent builds another, runs a task on each of the three, and prints
 * {@code NESTED <built>}, {@code QUEUE first|outer|nested <class>} and the agent's table.
 */
public final class NestedPoolApp {

    private NestedPoolApp() {
    }

    public static void main(String[] args) throws Exception {
        ThreadPoolExecutor first = new ThreadPoolExecutor(2, 2, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>());
        System.setProperty("build.nested", "yes");
        ThreadPoolExecutor outer = new ThreadPoolExecutor(2, 2, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>());
        ThreadPoolExecutor nested = (ThreadPoolExecutor) System.getProperties().remove("nested.pool");
        System.out.println("NESTED " + (nested != null));
        AgentDump.queue("first", first);
        AgentDump.queue("outer", outer);
        AgentDump.queue("nested", nested);
        for (ThreadPoolExecutor pool : List.of(first, outer, nested)) {
            pool.submit(() -> { }).get(10, TimeUnit.SECONDS);
        }
        System.gc(); // every pool is still referenced, so each stays listed (the agent lists pools weakly)
        AgentDump.print();
        for (ThreadPoolExecutor pool : List.of(first, outer, nested)) {
            pool.shutdown();
        }
    }
}
