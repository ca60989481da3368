package com.example.apps;

import java.lang.management.ManagementFactory;
import java.security.AccessControlException;
import java.security.Permission;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanPermission;
import javax.management.MBeanServer;
import javax.management.MBeanServerDelegate;
import javax.management.MBeanServerNotification;
import javax.management.MBeanServerPermission;
import javax.management.MBeanTrustPermission;
import javax.management.ObjectName;

/**
 * A test application that builds its first pool while a security manager refuses everything JMX
 * (as a policy that does not grant the agent jar would), waits until the agent's registration
 * thread has been refused, removes the security manager, and then waits up to 30 s for the
 * Agent MBean and the pool's MBean, and for the registration thread to end. Prints {@code REFUSED true|false}, then
 * {@code AGENT_MBEAN true|false} and {@code POOL_MBEANS <n>}. With {@code later-pool}, a first
 * pool and the Agent MBean are registered before the security manager comes, which then refuses
 * only registrations; with {@code refuse-name=<part>}, it refuses only MBeans whose names contain
 * {@code <part>}, and the app prints {@code ACCEPTED_WHILE_REFUSING true|false} for another pool's; with {@code burst}, it builds
 * short-lived pools meanwhile. Needs a JDK that still
 * has a security manager (17; {@code -Djava.security.manager=allow} from 18 on).
 */
@SuppressWarnings("removal") // the security manager: what this application is about
public final class SecurityWindowApp {

    private SecurityWindowApp() {
    }

    public static void main(String[] args) throws Exception {
        List<String> modes = List.of(args);
        // later-pool: a first pool, and the Agent MBean, are registered before the security
        // manager comes; its policy then lets anyone reach the platform MBean server but refuses
        // registering MBeans, so the second pool's own registration is what it refuses.
        boolean laterPool = modes.contains("later-pool");
        // refuse-name=<part>: the policy refuses only MBeans whose name contains <part> (that of
        // the pool built in refusedPool(), say, or the Agent MBean's); the pool built in
        // acceptedPool() meanwhile must get its MBean all the same, at once.
        String refusedName = modes.stream().filter(m -> m.startsWith("refuse-name="))
                .map(m -> m.substring("refuse-name=".length())).findFirst().orElse(null);
        boolean oneName = refusedName != null;
        ExecutorService first = null;
        if (laterPool) {
            first = Executors.newFixedThreadPool(1);
            first.submit(() -> { }).get();
            if (!awaitPoolMBean("") || !ManagementFactory.getPlatformMBeanServer()
                    .isRegistered(new ObjectName("dev.turntable:type=Agent"))) {
                throw new AssertionError("the first pool's MBean, or the Agent MBean, never came");
            }
        }
        CountDownLatch refused = new CountDownLatch(1);
        System.setSecurityManager(new SecurityManager() {
            @Override
            public void checkPermission(Permission p) {
                boolean refuse = oneName
                        ? p instanceof MBeanPermission && p.getName().contains(refusedName)
                        : (p instanceof MBeanServerPermission && !laterPool)
                                || p instanceof MBeanPermission || p instanceof MBeanTrustPermission;
                if (refuse) {
                    refused.countDown();
                    throw new AccessControlException("refused by the test's security manager: " + p, p);
                }
            }

            @Override
            public void checkPermission(Permission p, Object context) {
                checkPermission(p);
            }
        });
        ExecutorService pool = oneName ? refusedPool() : Executors.newFixedThreadPool(2);
        pool.submit(() -> { }).get();
        boolean wasRefused = refused.await(30, TimeUnit.SECONDS);
        if (oneName) {
            first = acceptedPool(); // shut down at the end, with the others
            first.submit(() -> { }).get();
            System.out.println("ACCEPTED_WHILE_REFUSING " + awaitPoolMBean("acceptedPool"));
        }
        System.setSecurityManager(null);
        System.out.println("REFUSED " + wasRefused);
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName agent = new ObjectName("dev.turntable:type=Agent");
        ObjectName pools = new ObjectName("dev.turntable:type=Pool,*");
        CountDownLatch agentUp = new CountDownLatch(1);
        CountDownLatch poolUp = new CountDownLatch(1);
        server.addNotificationListener(MBeanServerDelegate.DELEGATE_NAME, (n, handback) -> {
            if (n instanceof MBeanServerNotification
                    && MBeanServerNotification.REGISTRATION_NOTIFICATION.equals(n.getType())) {
                ObjectName name = ((MBeanServerNotification) n).getMBeanName();
                if (name.equals(agent)) {
                    agentUp.countDown();
                } else if (pools.apply(name)) {
                    poolUp.countDown();
                }
            }
        }, null, null);
        if (server.isRegistered(agent)) {
            agentUp.countDown(); // registered before the listener was
        }
        if (!server.queryNames(pools, null).isEmpty()) {
            poolUp.countDown();
        }
        if (modes.contains("burst")) {
            // Keeps building a short-lived pool every 20 ms, so that one is always waiting for
            // its MBean: the refused registrations must be tried again meanwhile, not after.
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            int built = 0;
            while (agentUp.getCount() > 0 && System.nanoTime() < until) {
                ExecutorService p = Executors.newFixedThreadPool(1);
                p.execute(() -> { });
                p.shutdown();
                built++;
                TimeUnit.MILLISECONDS.sleep(20); // the application's pace, not a wait for state
            }
            System.out.println("AGENT_MBEAN_DURING_BURST " + (agentUp.getCount() == 0) + " after " + built + " pools");
        }
        agentUp.await(30, TimeUnit.SECONDS);
        poolUp.await(30, TimeUnit.SECONDS);
        // The agent's registration thread says what it did after its last registration, and ends
        // a second after: wait for it, so that its lines are all out before this JVM exits.
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals("turntable-jmx")) {
                t.join(TimeUnit.SECONDS.toMillis(30));
            }
        }
        System.out.println("AGENT_MBEAN " + server.isRegistered(agent));
        System.out.println("POOL_MBEANS " + server.queryNames(pools, null).size());
        pool.shutdown();
        if (first != null) {
            first.shutdown();
        }
    }

    private static ExecutorService refusedPool() {
        return Executors.newFixedThreadPool(1);
    }

    private static ExecutorService acceptedPool() {
        return Executors.newFixedThreadPool(1);
    }

    /** Waits up to 30 s for a pool MBean whose name contains {@code namePart}; whether it came. */
    private static boolean awaitPoolMBean(String namePart) throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName pools = new ObjectName("dev.turntable:type=Pool,*");
        CountDownLatch up = new CountDownLatch(1);
        server.addNotificationListener(MBeanServerDelegate.DELEGATE_NAME, (n, handback) -> {
            if (n instanceof MBeanServerNotification
                    && MBeanServerNotification.REGISTRATION_NOTIFICATION.equals(n.getType())) {
                ObjectName name = ((MBeanServerNotification) n).getMBeanName();
                if (pools.apply(name) && name.toString().contains(namePart)) {
                    up.countDown();
                }
            }
        }, null, null);
        if (server.queryNames(pools, null).stream().anyMatch(n -> n.toString().contains(namePart))) {
            up.countDown(); // registered before the listener was
        }
        return up.await(30, TimeUnit.SECONDS);
    }
}
