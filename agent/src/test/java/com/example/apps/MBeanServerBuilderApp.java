package com.example.apps;

import java.lang.management.ManagementFactory;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Paths;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javax.management.ObjectName;

/**
 * A test application whose "web application" (a class loader named {@code web-app} over the jar
 * {@code args[0]}, which holds {@code com.example.webapp.WebAppMBeanServerBuilder}; run with
 * {@code -Djavax.management.builder.initial} naming it) builds, on a request thread whose context
 * class loader it is, the JVM's first pool. Nothing has asked for the platform MBean server
 * before, so under the agent its JMX registration thread, started by that pool, creates it. Waits
 * for that thread to end, then prints {@code AGENT_MBEAN true|false}, or {@code NO_SERVER <error>}
 * if the server could not be made.
 */
public final class MBeanServerBuilderApp {

    private MBeanServerBuilderApp() {
    }

    public static void main(String[] args) throws Exception {
        ClassLoader webApp = new URLClassLoader("web-app", new URL[] {Paths.get(args[0]).toUri().toURL()},
                ClassLoader.getPlatformClassLoader());
        Thread request = new Thread(() -> {
            ExecutorService pool = Executors.newFixedThreadPool(1);
            pool.execute(() -> { });
            pool.shutdown();
        }, "web-app-request");
        request.setContextClassLoader(webApp);
        request.start();
        request.join();
        // The pool's constructor started the agent's registration thread, which registers the
        // Agent MBean first and ends a second after the last pool.
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals("turntable-jmx")) {
                t.join(TimeUnit.SECONDS.toMillis(30));
            }
        }
        try {
            System.out.println("AGENT_MBEAN " + ManagementFactory.getPlatformMBeanServer()
                    .isRegistered(new ObjectName("dev.turntable:type=Agent")));
        } catch (RuntimeException e) { // this thread's loader cannot see the builder: made by nobody else
            System.out.println("NO_SERVER " + e);
        }
    }
}
