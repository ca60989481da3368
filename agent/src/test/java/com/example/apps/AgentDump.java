package com.example.apps;

import java.lang.management.ManagementFactory;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;

/**
 * Test-app helper: reads the agent's {@code dev.turntable:type=Agent} MBean through plain JMX (no
 * Turntable class needed) and prints it as lines the integration tests parse:
 * {@code POOL name|creationSite|managed|reason}, {@code OPTION key=value}, {@code VERSION v}.
 */
public final class AgentDump {

    private AgentDump() {
    }

    /** Waits (bounded) for the MBean, which the agent registers on a background thread, then prints it. */
    public static void print() throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName name = new ObjectName("dev.turntable:type=Agent");
        long deadline = System.nanoTime() + Long.getLong("apps.dumpWaitMs", 20_000L) * 1_000_000L;
        while (!server.isRegistered(name)) {
            if (System.nanoTime() > deadline) {
                System.out.println("NO-AGENT-MBEAN");
                System.out.println("JMX-OFF " + System.getProperty("dev.turntable.agent.jmxOff"));
                return;
            }
            Thread.sleep(20); // polling another thread's progress: there is nothing to wait on
        }
        System.out.println("VERSION " + server.getAttribute(name, "Version"));
        for (String line : ((String) server.getAttribute(name, "Options")).split("\n")) {
            System.out.println("OPTION " + line);
        }
        for (CompositeData row : (CompositeData[]) server.getAttribute(name, "Pools")) {
            System.out.println("POOL " + row.get("name") + "|" + row.get("creationSite") + "|" + row.get("managed")
                    + "|" + row.get("reason"));
        }
        System.out.flush();
    }

    /** Prints {@code QUEUE <label> <queue class>}: which queue the pool really runs on. */
    public static void queue(String label, java.util.concurrent.ThreadPoolExecutor pool) {
        System.out.println("QUEUE " + label + " " + pool.getQueue().getClass().getName());
    }
}
