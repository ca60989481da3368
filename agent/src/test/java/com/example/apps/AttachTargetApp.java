package com.example.apps;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A test application the integration test attaches the agent to while it runs: one pool exists
 * and has worked before the attach, another is created after. Prints {@code READY <pid>}, waits for
 * a line on standard input, then prints {@code QUEUE} lines, results and the agent's MBean.
 */
public final class AttachTargetApp {

    private AttachTargetApp() {
    }

    public static void main(String[] args) throws Exception {
        ThreadPoolExecutor before = beforeAttach();
        System.out.println("READY " + ProcessHandle.current().pid());
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String go = in.readLine();
        System.out.println("GO " + go);
        ThreadPoolExecutor after = afterAttach();
        long sum = 0;
        for (int i = 1; i <= 100; i++) {
            int n = i;
            sum += before.submit(() -> n).get(10, TimeUnit.SECONDS);
            sum += after.submit(() -> n).get(10, TimeUnit.SECONDS);
        }
        System.out.println("SUM " + sum);
        AgentDump.queue("before", before);
        AgentDump.queue("after", after);
        AgentDump.print();
        before.shutdown();
        after.shutdown();
    }

    static ThreadPoolExecutor beforeAttach() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        pool.submit(() -> 1).get(10, TimeUnit.SECONDS);
        return (ThreadPoolExecutor) pool;
    }

    static ThreadPoolExecutor afterAttach() {
        return (ThreadPoolExecutor) Executors.newFixedThreadPool(2);
    }
}
