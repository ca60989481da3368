package dev.turntable.jmx.cli;

import dev.turntable.jmx.AgentLoadStatus;
import dev.turntable.jmx.TurntableJmx;
import java.io.Closeable;
import java.io.IOException;
import java.net.MalformedURLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.MBeanServerConnection;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * Opens turntablectl's JMX connection: by {@code --url}, by {@code --pid} through the Attach API,
 * or, with neither, to the one local JVM that has {@code dev.turntable} MBeans. Stateless; any
 * thread.
 */
final class Connector {

    /** How long a connection may take before turntablectl gives up (exit 3). */
    static final long CONNECT_TIMEOUT_SECONDS = 15;

    private static final Pattern HOST_PORT = Pattern.compile("[A-Za-z0-9._-]+:[0-9]{1,5}");
    /** The registry's port in a JNDI path, {@code /jndi/rmi://host:port/...}. */
    private static final Pattern REGISTRY_PORT = Pattern.compile("^/jndi/rmi://[^/:]*:([0-9]+)(?:/|$)");
    private static final int MAX_PORT = 65_535;

    private Connector() {
    }

    /**
     * An open connection, a description of its target for messages, and the target's pid when it
     * is a local JVM reached through the Attach API. Close it when done.
     */
    static final class Connection implements Closeable {
        final MBeanServerConnection server;
        final String target;
        /** The local JVM's pid ({@code --pid}, or the one found), or null for {@code --url}. */
        final String pid;
        private final JMXConnector connector;
        /** The Attach API that reached {@link #pid}, or null for {@code --url}. */
        private final LocalJvms jvms;

        Connection(JMXConnector connector, MBeanServerConnection server, String target, String pid, LocalJvms jvms) {
            this.connector = connector;
            this.server = server;
            this.target = target;
            this.pid = pid;
            this.jvms = jvms;
        }

        /**
         * Why this JVM has no agent MBean, and what to do about it. A local JVM whose agent status
         * says the agent runs there runs it with {@code jmx=false}, which a running agent cannot
         * change (attach would load nothing): it needs a restart with JMX on. Otherwise (the agent
         * is not there, or the JVM cannot tell) how to load it ({@link #howToLoadTheAgent}).
         */
        String whyNoAgentMBean() {
            if (pid != null && jvms != null) {
                try {
                    AgentLoadStatus status = AgentLoadStatus.parse(jvms.agentStatus(pid));
                    if (status != null && status.agentRuns()) {
                        return "the Turntable agent runs there with jmx=false, so it registered no MBeans; JMX can"
                                + " only be turned on at start (attach loads nothing into a JVM that runs the agent):"
                                + " restart that JVM with jmx=true, the default, in its agent options";
                    }
                } catch (CliException e) {
                    // the JVM cannot tell: the general hint below
                }
            }
            return "the Turntable agent is not loaded there, or runs with jmx=false; " + howToLoadTheAgent();
        }

        /**
         * How to load the agent into this JVM, a command that works from where the operator is:
         * {@code attach} with its pid for a local JVM. {@code attach} goes through the Attach API,
         * never through {@code --url}: such a JVM is started with {@code -javaagent}, or attached
         * to where it runs, with the pid it has there (which the JVM tells over JMX, if it does).
         */
        String howToLoadTheAgent() {
            if (pid != null) {
                return "to load it: turntablectl attach " + pid;
            }
            String own = ownPid();
            return "--url cannot load it: start that JVM with -javaagent:<path>/" + Turntablectl.AGENT_JAR
                    + ", or where it runs (its machine or container, as its user) "
                    + (own != null ? "run turntablectl attach " + own
                            : "find its pid with turntablectl jvms and run turntablectl attach <that pid>");
        }

        /** The pid the JVM at the other end has where it runs, from its Runtime MXBean; null if it does not tell. */
        private String ownPid() {
            try {
                ObjectName runtime = new ObjectName(java.lang.management.ManagementFactory.RUNTIME_MXBEAN_NAME);
                Object pid = server.getAttribute(runtime, "Pid");
                return pid instanceof Long && (Long) pid > 0 ? pid.toString() : null;
            } catch (javax.management.JMException | IOException | RuntimeException e) {
                return null; // no Runtime MXBean, one before Java 10, or no right to read it
            }
        }

        @Override
        public void close() {
            try {
                connector.close();
            } catch (IOException | RuntimeException e) {
                // the other side is gone already
            }
        }
    }

    /**
     * Connects as the options say.
     *
     * @param pid         {@code --pid}, or null
     * @param url         {@code --url}, or null
     * @param credentials user and password for {@code --url} (the JDK agent's
     *                    {@code jmxremote.authenticate}), or null
     */
    static Connection open(LocalJvms jvms, String pid, String url, String[] credentials) throws CliException {
        if (url != null) {
            return connect(parseUrl(url), url, credentials, null, null);
        }
        if (pid != null) {
            return connectLocal(jvms, pid);
        }
        return findTheOne(jvms);
    }

    /**
     * A JMX service URL, or {@code host:port} as shorthand for the JDK agent's
     * {@code service:jmx:rmi:///jndi/rmi://host:port/jmxrmi}.
     */
    static JMXServiceURL parseUrl(String url) throws CliException {
        String u = url.trim();
        if (HOST_PORT.matcher(u).matches()) {
            checkPort(url, u.substring(u.lastIndexOf(':') + 1), 1);
            u = "service:jmx:rmi:///jndi/rmi://" + u + "/jmxrmi";
        }
        JMXServiceURL parsed;
        try {
            parsed = new JMXServiceURL(u);
        } catch (MalformedURLException e) {
            throw CliException.usage("--url '" + url + "' is not a JMX service URL: " + e.getMessage()
                    + "; expected service:jmx:rmi:///jndi/rmi://<host>:<port>/jmxrmi or <host>:<port>");
        }
        // Port 0 in the URL itself means "any" (a stub URL); a registry in the JNDI path needs a real one.
        checkPort(url, Integer.toString(parsed.getPort()), 0);
        Matcher registry = REGISTRY_PORT.matcher(parsed.getURLPath());
        if (registry.find()) {
            checkPort(url, registry.group(1), 1);
        }
        return parsed;
    }

    /** A port no JVM can listen on is a mistake in the command line (exit 2), not an unreachable JVM. */
    private static void checkPort(String url, String port, int least) throws CliException {
        // Digits only (the patterns and JMXServiceURL see to it); more than 5 is out of range anyway.
        int p = port.length() > 5 ? Integer.MAX_VALUE : Integer.parseInt(port);
        if (p < least || p > MAX_PORT) {
            throw CliException.usage("--url '" + url + "' has port " + port + "; expected a port from 1 to " + MAX_PORT);
        }
    }

    /** The local JVM {@code pid}, through the Attach API. */
    static Connection connectLocal(LocalJvms jvms, String pid) throws CliException {
        return connect(jvms.connectorAddress(pid), "JVM " + pid, null, pid, jvms);
    }

    /**
     * @param pid  the target's pid when it is a local JVM, else null
     * @param jvms the Attach API that reached {@code pid}, else null
     */
    static Connection connect(JMXServiceURL url, String target, String[] credentials, String pid, LocalJvms jvms)
            throws CliException {
        Map<String, Object> env = new HashMap<>();
        if (credentials != null) {
            env.put(JMXConnector.CREDENTIALS, credentials.clone());
        }
        CompletableFuture<JMXConnector> f = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                f.complete(JMXConnectorFactory.connect(url, env));
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        }, "turntablectl-connect");
        t.setDaemon(true);
        t.start();
        JMXConnector c;
        try {
            c = f.get(CONNECT_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw CliException.connect("cannot connect to " + target + ": no answer within "
                    + CONNECT_TIMEOUT_SECONDS + " s", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            throw CliException.connect("cannot connect to " + target + ": " + rootMessage(cause), cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw CliException.connect("interrupted while connecting to " + target, e);
        }
        try {
            return new Connection(c, c.getMBeanServerConnection(), target, pid, jvms);
        } catch (IOException e) {
            try {
                c.close();
            } catch (IOException ignored) {
                // nothing more to do
            }
            throw CliException.connect("cannot connect to " + target + ": " + rootMessage(e), e);
        }
    }

    /** The innermost cause's message, which is where RMI keeps the useful part. */
    static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t == e ? String.valueOf(e) : e.getClass().getSimpleName() + " (" + t + ")";
    }

    /**
     * The single local JVM with {@code dev.turntable} MBeans. Connects only to JVMs that run
     * Turntable ({@link LocalJvms#runsTurntable}, read without starting anything there): a
     * connection starts a JVM's local management agent, which no other JVM of the user gets
     * from this look.
     */
    private static Connection findTheOne(LocalJvms jvms) throws CliException {
        List<LocalJvms.Jvm> all = jvms.list();
        List<Connection> found = new ArrayList<>();
        List<String> pids = new ArrayList<>();
        int unreachable = 0;
        for (LocalJvms.Jvm j : all) {
            Connection c;
            try {
                if (!jvms.runsTurntable(j.pid)) {
                    continue;
                }
                c = connectLocal(jvms, j.pid);
            } catch (CliException e) {
                unreachable++;
                continue;
            }
            try {
                if (!c.server.queryNames(turntableDomain(), null).isEmpty()) {
                    found.add(c);
                    pids.add(j.pid);
                    continue;
                }
            } catch (IOException | RuntimeException e) {
                unreachable++;
            }
            c.close();
        }
        if (found.size() == 1) {
            return found.get(0);
        }
        found.forEach(Connection::close);
        if (found.isEmpty()) {
            throw CliException.connect("no local JVM has Turntable MBeans (looked at " + all.size()
                    + (unreachable > 0 ? ", " + unreachable + " of them unreachable" : "")
                    + "); name one with --pid <pid> or --url <jmx-service-url>", null);
        }
        throw CliException.invalid(found.size() + " local JVMs run Turntable (pids " + String.join(", ", pids)
                + "); choose one with --pid <pid>");
    }

    /** {@code dev.turntable:*}. */
    static ObjectName turntableDomain() {
        try {
            return new ObjectName(TurntableJmx.DOMAIN + ":*");
        } catch (MalformedObjectNameException e) {
            throw new AssertionError(e);
        }
    }
}
