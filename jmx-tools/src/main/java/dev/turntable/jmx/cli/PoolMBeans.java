package dev.turntable.jmx.cli;

import dev.turntable.jmx.TurntableJmx;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Predicate;
import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.InstanceNotFoundException;
import javax.management.InvalidAttributeValueException;
import javax.management.JMException;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanException;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.ReflectionException;
import javax.management.RuntimeErrorException;
import javax.management.RuntimeMBeanException;
import javax.management.RuntimeOperationsException;

/**
 * The pool MBeans of the JVM turntablectl is connected to, as every pool command uses them:
 * finding a pool by name, its attributes read generically (names and types from
 * {@code MBeanInfo}, so attributes added later show up without a client change), and the
 * failures turned into the contract's exit codes and messages. One instance per command run,
 * used by the thread that runs the command; not thread-safe.
 */
final class PoolMBeans {

    /** The contract's attribute order for {@code show}; attributes not listed follow by name. */
    private static final List<String> ATTRIBUTE_ORDER = List.of("Strategy", "AvailableStrategies",
            "Measurement", "Median", "WorkerWeightsMillis", "TaskStealing", "LatencyHistograms",
            "CorePoolSize", "MaximumPoolSize", "PoolSize", "ActiveCount", "QueuedTaskCount",
            "CompletedTaskCount", "RejectedTaskCount", "RunTimeMillis", "WaitTimeMillis",
            "MaxLifetimeTasks", "MaxConcurrentTasks", "HeartbeatTimeoutMillis", "WorkerSelectTimeoutMillis",
            "WorkerLifetimes", "RetiredWorkerCount", "ClassLoadPercents", "RequestorMap", "Requestor",
            "RebalanceThreshold", "RebalanceMinimumDurationMillis", "RunningTasksByClass", "WaitingTasksByClass");
    static final String WORKERS = "Workers";
    static final String CLASS_LOAD_PERCENTS = "ClassLoadPercents";
    static final String REQUESTOR_MAP = "RequestorMap";
    static final String RUNNING_BY_CLASS = "RunningTasksByClass";
    static final String WAITING_BY_CLASS = "WaitingTasksByClass";
    static final String MAX_LIFETIME = "MaxLifetimeTasks";
    static final String RETIRED = "RetiredWorkerCount";

    /** The agent's MBean, which a JVM without the agent does not have. */
    static final ObjectName AGENT = agentName();

    private static ObjectName agentName() {
        try {
            return new ObjectName(TurntableJmx.DOMAIN + ":type=Agent");
        } catch (javax.management.MalformedObjectNameException e) {
            throw new AssertionError(e);
        }
    }

    final Connector.Connection connection;
    final MBeanServerConnection server;

    PoolMBeans(Connector.Connection connection) {
        this.connection = connection;
        this.server = connection.server;
    }

    /** The pool's MBean name, after checking that it exists. */
    ObjectName pool(String pool) throws CliException {
        if (!TurntableJmx.isValidPoolName(pool)) {
            throw CliException.usage("pool name '" + pool + "' is not valid: pool names use only A-Z a-z 0-9 . _ -");
        }
        ObjectName n = TurntableJmx.poolObjectName(pool);
        try {
            if (!server.isRegistered(n)) {
                List<String> names = new ArrayList<>();
                for (ObjectName o : poolNames()) {
                    names.add(o.getKeyProperty("name"));
                }
                String managed = names.isEmpty() ? "(none)" : String.join(", ", names);
                String reason = unmanagedReason(pool);
                if (reason != null) {
                    // `pools` lists it (with this reason): say why it has no pool MBean.
                    throw CliException.invalid("pool '" + pool + "' in " + connection.target
                            + " is not managed by Turntable: " + (reason.isEmpty() ? "no reason given" : reason)
                            + "; managed pools: " + managed);
                }
                throw CliException.invalid("no pool '" + pool + "' in " + connection.target + "; pools: " + managed);
            }
        } catch (IOException e) {
            throw lost(e);
        }
        return n;
    }

    /**
     * Why the agent left pool {@code pool} alone, from its {@code Pools} table: the reason
     * ({@code ""} if it gives none), or null when the agent lists no such unmanaged pool (or
     * there is no agent).
     */
    private String unmanagedReason(String pool) throws IOException {
        for (Map<?, ?> m : agentPools()) {
            if (pool.equals(String.valueOf(item(m, "name"))) && !Boolean.TRUE.equals(item(m, "managed"))) {
                Object reason = item(m, "reason");
                return reason == null ? "" : reason.toString();
            }
        }
        return null;
    }

    /**
     * The rows of the agent's {@code dev.turntable:type=Agent} {@code Pools} table (a TabularData
     * or CompositeData[] with items {@code name}, {@code managed}, {@code reason}, read with
     * {@link #item}); none when there is no agent (library use) or it has no such attribute.
     */
    List<Map<?, ?>> agentPools() throws IOException {
        List<Map<?, ?>> rows = new ArrayList<>();
        Object table;
        try {
            table = Values.plain(server.getAttribute(AGENT, "Pools"));
        } catch (JMException | RuntimeException e) {
            return rows;
        }
        if (table instanceof List) {
            for (Object o : (List<?>) table) {
                if (o instanceof Map) {
                    rows.add((Map<?, ?>) o);
                }
            }
        }
        return rows;
    }

    /** An item by name, ignoring case and separators ({@code creationSite} = {@code creation site}). */
    static Object item(Map<?, ?> m, String key) {
        for (Map.Entry<?, ?> e : m.entrySet()) {
            String k = String.valueOf(e.getKey()).replaceAll("[^A-Za-z0-9]", "");
            if (k.equalsIgnoreCase(key)) {
                return e.getValue();
            }
        }
        return null;
    }

    /**
     * The pools' MBean names, by pool name. An MBean that matches the pattern but has no
     * {@code name} key is none of ours (another library's, in our domain) and is left out, rather
     * than fail every listing.
     */
    List<ObjectName> poolNames() throws IOException {
        List<ObjectName> names = new ArrayList<>();
        for (ObjectName o : server.queryNames(TurntableJmx.poolPattern(), null)) {
            if (o.getKeyProperty("name") != null) {
                names.add(o);
            }
        }
        names.sort(java.util.Comparator.comparing(o -> o.getKeyProperty("name")));
        return names;
    }

    /** The MBean's attributes, as its {@code MBeanInfo} lists them. */
    MBeanAttributeInfo[] attributeInfos(ObjectName n) throws CliException {
        try {
            return server.getMBeanInfo(n).getAttributes();
        } catch (IOException e) {
            throw lost(e);
        } catch (JMException e) {
            throw CliException.invalid("cannot read the attributes of " + n + ": " + e.getMessage());
        }
    }

    /** An attribute by name: exact, else ignoring case. */
    MBeanAttributeInfo attributeInfo(ObjectName n, String attribute) throws CliException {
        MBeanAttributeInfo[] infos = attributeInfos(n);
        for (MBeanAttributeInfo a : infos) {
            if (a.getName().equals(attribute)) {
                return a;
            }
        }
        for (MBeanAttributeInfo a : infos) {
            if (a.getName().equalsIgnoreCase(attribute)) {
                return a;
            }
        }
        throw CliException.invalid("pool " + n.getKeyProperty("name") + " has no attribute '" + attribute
                + "'; attributes: " + String.join(", ", ordered(infos, a -> true)));
    }

    /** The names of the attributes {@code which} accepts: in the contract's order, then the others by name. */
    static List<String> ordered(MBeanAttributeInfo[] infos, Predicate<MBeanAttributeInfo> which) {
        List<String> names = new ArrayList<>();
        for (MBeanAttributeInfo a : infos) {
            if (which.test(a)) {
                names.add(a.getName());
            }
        }
        List<String> out = new ArrayList<>();
        for (String a : ATTRIBUTE_ORDER) {
            if (names.contains(a)) {
                out.add(a);
            }
        }
        for (String a : new TreeSet<>(names)) {
            if (!out.contains(a)) {
                out.add(a);
            }
        }
        return out;
    }

    /** Reads attributes in one call; an attribute the MBean fails to give is left out. */
    Map<String, Object> read(ObjectName n, String... names) throws CliException {
        Map<String, Object> values = readIfPresent(n, names);
        if (values == null) {
            throw gone(n.getKeyProperty("name"));
        }
        return values;
    }

    /**
     * As {@link #read}, but null when the pool's MBean is gone: a pool that terminated after a
     * listing found it, which a listing leaves out rather than fail for the pools still there.
     */
    Map<String, Object> readIfPresent(ObjectName n, String... names) throws CliException {
        AttributeList list;
        try {
            list = server.getAttributes(n, names);
        } catch (IOException e) {
            throw lost(e);
        } catch (InstanceNotFoundException e) {
            return null;
        } catch (ReflectionException e) {
            throw CliException.refused("reading " + n + " failed: " + reason(e), e);
        }
        Map<String, Object> values = new LinkedHashMap<>();
        for (String name : names) {
            values.put(name, null);
        }
        for (Attribute a : list.asList()) {
            values.put(a.getName(), Values.plain(a.getValue()));
        }
        return values;
    }

    /** Exit 3: the connection broke during the command. */
    CliException lost(IOException e) {
        return CliException.connect("lost the connection to " + connection.target + ": " + Connector.rootMessage(e), e);
    }

    /** Exit 2: the pool's MBean went away after {@link #pool} found it. */
    private static CliException gone(String pool) {
        return CliException.invalid("pool " + pool + " is gone (terminated or unregistered)");
    }

    /** One use of a pool's MBean: a read, a write or an operation. */
    @FunctionalInterface
    interface MBeanCall<T> {
        T call() throws IOException, JMException, CliException;
    }

    /**
     * Runs {@code call} on pool {@code pool}'s MBean, failing as every command does: a lost
     * connection exits 3, a pool gone meanwhile 2, and anything the MBean throws exits 4 with
     * {@code refusal}, {@code ": "} and the MBean's reason.
     */
    <T> T call(String pool, String refusal, MBeanCall<T> call) throws CliException {
        try {
            return call.call();
        } catch (IOException e) {
            throw lost(e);
        } catch (InstanceNotFoundException e) {
            throw gone(pool);
        } catch (JMException | RuntimeException e) {
            throw CliException.refused(refusal + ": " + reason(e), e);
        }
    }

    /** The MBean's own reason for refusing (the {@code IllegalArgumentException}'s message). */
    private static String reason(Exception e) {
        Throwable t = e;
        while ((t instanceof RuntimeMBeanException || t instanceof MBeanException
                || t instanceof ReflectionException || t instanceof RuntimeErrorException
                || t instanceof RuntimeOperationsException) && t.getCause() != null) {
            t = t.getCause();
        }
        String m = t.getMessage();
        if (t instanceof InvalidAttributeValueException || t instanceof IllegalArgumentException) {
            return m == null ? t.getClass().getSimpleName() : m;
        }
        return m == null ? t.toString() : t.getClass().getSimpleName() + ": " + m;
    }
}
