package dev.turntable.jmx.cli;

import com.sun.tools.attach.AgentInitializationException;
import com.sun.tools.attach.AgentLoadException;
import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;
import com.sun.tools.attach.VirtualMachineDescriptor;
import dev.turntable.jmx.AgentLoadStatus;
import dev.turntable.jmx.TurntableJmx;
import java.io.IOException;
import java.net.MalformedURLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Predicate;
import javax.management.remote.JMXServiceURL;

/**
 * The JVMs on this machine, through the JDK's Attach API ({@code jdk.attach}): listing them,
 * reaching their JMX, loading an agent. An interface so tests can narrow it to the JVMs they
 * started. Implementations are stateless; any thread.
 */
interface LocalJvms {

    /** One local JVM: its process id and the main class or jar it was started with. */
    final class Jvm {
        final String pid;
        final String displayName;

        Jvm(String pid, String displayName) {
            this.pid = pid;
            this.displayName = displayName;
        }
    }

    /** The local JVMs this user may attach to, without this one. */
    List<Jvm> list();

    /**
     * The JVM's local JMX connector address. Starts its local management agent (no network port:
     * a loopback connector only its own user can use, as JConsole does) if it has none.
     *
     * @throws CliException exit 3 if the JVM cannot be attached to
     */
    JMXServiceURL connectorAddress(String pid) throws CliException;

    /**
     * Loads a java agent jar into the JVM ({@code agentmain}) and returns the Turntable agent's
     * {@link AgentLoadStatus#PROPERTY} and {@link AgentLoadStatus#STARTED_BY} as they read
     * afterwards (a key is absent if the JVM has none).
     *
     * @throws CliException exit 3 if it cannot be attached to, exit 4 if it refused the agent
     */
    Map<String, String> loadAgent(String pid, String agentJar, String options) throws CliException;

    /**
     * The JVM's system properties named by {@code keys} that it has (a key it lacks is absent),
     * read through the Attach API without starting anything in it (no management agent).
     *
     * @throws CliException exit 3 if it cannot be attached to
     */
    Map<String, String> systemProperties(String pid, Collection<String> keys) throws CliException;

    /**
     * {@link AgentLoadStatus#PROPERTY} of the JVM, or null if no Turntable agent was loaded into it.
     *
     * @throws CliException exit 3 if it cannot be attached to
     */
    default String agentStatus(String pid) throws CliException {
        return systemProperties(pid, List.of(AgentLoadStatus.PROPERTY)).get(AgentLoadStatus.PROPERTY);
    }

    /**
     * The system properties that tell whether a JVM runs Turntable ({@link #runsTurntable}).
     */
    List<String> TURNTABLE_PROPERTIES = List.of(AgentLoadStatus.PROPERTY, AgentLoadStatus.JMX_OFF,
            TurntableJmx.MBEANS_PROPERTY);

    /**
     * Whether a JVM with these {@link #TURNTABLE_PROPERTIES} runs Turntable with MBeans to read:
     * the agent runs there (its status says so) and not with {@code jmx=false}, or Turntable
     * MBeans were registered there (a pool registered by the library, {@code TurntableJmx}). Only
     * such a JVM is worth a JMX connection, which starts its local management agent if it has
     * none: a listing must not start one in every JVM of the user, nor in one whose agent was
     * told to stay off JMX.
     */
    static boolean runsTurntable(Map<String, String> properties) {
        return agentRuns(properties) && !jmxOff(properties) || properties.containsKey(TurntableJmx.MBEANS_PROPERTY);
    }

    /**
     * Whether a JVM with these {@link #TURNTABLE_PROPERTIES} runs the agent with {@code jmx=false}
     * and has no library MBeans: its pools are managed but registered nowhere, so they cannot be
     * counted or read (the opposite case of {@link #runsTurntable} for a JVM the agent runs in).
     */
    static boolean agentRunsWithoutJmx(Map<String, String> properties) {
        return agentRuns(properties) && jmxOff(properties) && !properties.containsKey(TurntableJmx.MBEANS_PROPERTY);
    }

    private static boolean agentRuns(Map<String, String> properties) {
        AgentLoadStatus status = AgentLoadStatus.parse(properties.get(AgentLoadStatus.PROPERTY));
        return status != null && status.agentRuns();
    }

    private static boolean jmxOff(Map<String, String> properties) {
        return "true".equals(properties.get(AgentLoadStatus.JMX_OFF));
    }

    /**
     * {@link #runsTurntable(Map)} for the JVM {@code pid}, its properties read through the Attach
     * API (which starts nothing there).
     *
     * @throws CliException exit 3 if it cannot be attached to
     */
    default boolean runsTurntable(String pid) throws CliException {
        return runsTurntable(systemProperties(pid, TURNTABLE_PROPERTIES));
    }

    /** These JVMs, only those whose pid {@code keep} accepts. */
    default LocalJvms only(Predicate<String> keep) {
        LocalJvms all = this;
        return new LocalJvms() {
            @Override
            public List<Jvm> list() {
                List<Jvm> out = new ArrayList<>();
                for (Jvm j : all.list()) {
                    if (keep.test(j.pid)) {
                        out.add(j);
                    }
                }
                return out;
            }

            @Override
            public JMXServiceURL connectorAddress(String pid) throws CliException {
                return all.connectorAddress(pid);
            }

            @Override
            public Map<String, String> loadAgent(String pid, String agentJar, String options) throws CliException {
                return all.loadAgent(pid, agentJar, options);
            }

            @Override
            public Map<String, String> systemProperties(String pid, Collection<String> keys) throws CliException {
                return all.systemProperties(pid, keys);
            }

            @Override
            public String agentStatus(String pid) throws CliException {
                return all.agentStatus(pid);
            }
        };
    }

    /** The real ones, through {@link VirtualMachine}. */
    static LocalJvms attachApi() {
        return new AttachApi();
    }

    /** {@link LocalJvms} over {@link VirtualMachine}. */
    final class AttachApi implements LocalJvms {
        private static final String LOCAL_CONNECTOR = "com.sun.management.jmxremote.localConnectorAddress";

        @Override
        public List<Jvm> list() {
            String self = Long.toString(ProcessHandle.current().pid());
            List<Jvm> out = new ArrayList<>();
            for (VirtualMachineDescriptor d : VirtualMachine.list()) {
                if (!d.id().equals(self)) {
                    out.add(new Jvm(d.id(), d.displayName()));
                }
            }
            return out;
        }

        @Override
        public JMXServiceURL connectorAddress(String pid) throws CliException {
            VirtualMachine vm = attach(pid);
            try {
                String address = vm.getAgentProperties().getProperty(LOCAL_CONNECTOR);
                if (address == null) {
                    address = vm.startLocalManagementAgent();
                }
                return new JMXServiceURL(address);
            } catch (MalformedURLException e) {
                throw CliException.connect("JVM " + pid + " gave a bad JMX address: " + e.getMessage(), e);
            } catch (IOException | RuntimeException e) {
                throw CliException.connect("cannot start the local JMX agent in JVM " + pid + ": " + e, e);
            } finally {
                detach(vm);
            }
        }

        @Override
        public Map<String, String> systemProperties(String pid, Collection<String> keys) throws CliException {
            VirtualMachine vm = attach(pid);
            try {
                Properties all = vm.getSystemProperties();
                Map<String, String> out = new LinkedHashMap<>();
                for (String k : keys) {
                    if (all.getProperty(k) != null) {
                        out.put(k, all.getProperty(k));
                    }
                }
                return out;
            } catch (IOException e) {
                throw CliException.connect("lost JVM " + pid + " while reading its properties: " + e, e);
            } finally {
                detach(vm);
            }
        }

        @Override
        public Map<String, String> loadAgent(String pid, String agentJar, String options) throws CliException {
            VirtualMachine vm = attach(pid);
            try {
                vm.loadAgent(agentJar, options);
                try {
                    java.util.Properties p = vm.getSystemProperties();
                    Map<String, String> out = new java.util.HashMap<>();
                    for (String key : new String[] {AgentLoadStatus.PROPERTY, AgentLoadStatus.STARTED_BY}) {
                        if (p.getProperty(key) != null) {
                            out.put(key, p.getProperty(key));
                        }
                    }
                    return out;
                } catch (IOException e) {
                    throw CliException.connect("loaded the agent into JVM " + pid + ", then lost it while reading what"
                            + " the agent did: " + e, e);
                }
            } catch (AgentInitializationException e) {
                throw CliException.refused("JVM " + pid + " refused the agent: its agentmain failed"
                        + (e.getMessage() == null ? "" : ": " + e.getMessage()) + " (return code "
                        + e.returnValue() + "; the JVM's own output says why)", e);
            } catch (AgentLoadException e) {
                throw CliException.refused("JVM " + pid + " refused the agent " + agentJar + ": " + e.getMessage(), e);
            } catch (IOException e) {
                throw CliException.connect("lost JVM " + pid + " while loading the agent: " + e, e);
            } finally {
                detach(vm);
            }
        }

        private static VirtualMachine attach(String pid) throws CliException {
            try {
                return VirtualMachine.attach(pid);
            } catch (AttachNotSupportedException e) {
                throw CliException.connect("cannot attach to JVM " + pid + ": " + e.getMessage()
                        + " (is it running, as this user, without -XX:+DisableAttachMechanism?)", e);
            } catch (IOException | RuntimeException e) {
                throw CliException.connect("cannot attach to JVM " + pid + ": " + e, e);
            }
        }

        private static void detach(VirtualMachine vm) {
            try {
                vm.detach();
            } catch (IOException e) {
                // the JVM went away; nothing to release
            }
        }
    }
}
