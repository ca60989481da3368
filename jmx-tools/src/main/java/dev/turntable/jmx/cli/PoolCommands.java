package dev.turntable.jmx.cli;

import dev.turntable.jmx.TurntableJmx;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
 * turntablectl's commands on pools: {@code pools}, {@code show}, {@code get}, {@code set},
 * {@code lifetimes}, {@code recycle}, {@code classes} ({@code watch} is {@link Watch}, on the helpers here). They read the MBeans generically (names and types from {@code MBeanInfo}), so
 * attributes added later show up without a client change. One instance per command run; not
 * thread-safe.
 *
 * <p>Why this file is long (~780 lines): seven commands share the generic MBean reading, the
 * pool-name resolution, the argument checks and the text and {@code --json} output, which each
 * command's body is a few lines over; one class per command, with those helpers apart, is a
 * known follow-up.
 */
final class PoolCommands {

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
    /** The agent's MBean, which a JVM without the agent does not have. */
    private static final ObjectName AGENT = agentName();
    static final String REQUESTOR_MAP = "RequestorMap";
    static final String RUNNING_BY_CLASS = "RunningTasksByClass";
    static final String WAITING_BY_CLASS = "WaitingTasksByClass";
    /** What {@code classes} reads, in one call. */
    static final String[] CLASS_ATTRIBUTES = {CLASS_LOAD_PERCENTS, REQUESTOR_MAP, "Requestor", "RebalanceThreshold",
        "RebalanceMinimumDurationMillis", RUNNING_BY_CLASS, WAITING_BY_CLASS};
    static final String MAX_LIFETIME = "MaxLifetimeTasks";
    static final String RETIRED = "RetiredWorkerCount";
    /** Characters of a full bar in {@code lifetimes}. */
    static final int BAR_WIDTH = 40;

    private final Connector.Connection connection;
    private final MBeanServerConnection server;
    private final PrintStream out;
    private final boolean json;
    private final JsonDocument document;

    /** @param document where the {@code --json} document goes, or null without {@code --json} */
    PoolCommands(Connector.Connection connection, PrintStream out, JsonDocument document) {
        this.connection = connection;
        this.server = connection.server;
        this.out = out;
        this.json = document != null;
        this.document = document;
    }

    // ------------------------------------------------------------------ pools

    void pools() throws CliException {
        List<Map<String, Object>> rows = new ArrayList<>();
        Set<String> managedNames = new TreeSet<>();
        try {
            List<ObjectName> names = new ArrayList<>(server.queryNames(TurntableJmx.poolPattern(), null));
            names.sort(Comparator.comparing(n -> String.valueOf(n.getKeyProperty("name"))));
            for (ObjectName n : names) {
                Map<String, Object> a = read(n, "Strategy", "PoolSize", "QueuedTaskCount", "CompletedTaskCount");
                Map<String, Object> row = new LinkedHashMap<>();
                String name = n.getKeyProperty("name");
                row.put("name", name);
                row.put("managed", true);
                row.put("strategy", a.get("Strategy"));
                row.put("workers", a.get("PoolSize"));
                row.put("queued", a.get("QueuedTaskCount"));
                row.put("completed", a.get("CompletedTaskCount"));
                rows.add(row);
                managedNames.add(name);
            }
            rows.addAll(unmanagedFromAgent(managedNames));
        } catch (IOException e) {
            throw lost(e);
        }
        if (json) {
            document.print(Map.of("pools", rows));
            return;
        }
        if (rows.isEmpty()) {
            out.println("no Turntable pools in " + connection.target + agentHint());
            return;
        }
        boolean reasons = rows.stream().anyMatch(r -> r.get("reason") != null);
        List<String> headers = new ArrayList<>(List.of("NAME", "MANAGED", "STRATEGY", "WORKERS", "QUEUED", "COMPLETED"));
        if (reasons) {
            headers.add("REASON");
        }
        Table t = new Table(headers);
        for (Map<String, Object> r : rows) {
            List<String> cells = new ArrayList<>(List.of(Values.text("name", r.get("name")),
                    Boolean.TRUE.equals(r.get("managed")) ? "yes" : "no",
                    Values.text("strategy", r.get("strategy")), Values.text("workers", r.get("workers")),
                    Values.text("queued", r.get("queued")), Values.text("completed", r.get("completed"))));
            if (reasons) {
                cells.add(Values.text("reason", r.get("reason")));
            }
            t.row(cells);
        }
        t.print(out);
    }

    private static ObjectName agentName() {
        try {
            return new ObjectName(TurntableJmx.DOMAIN + ":type=Agent");
        } catch (javax.management.MalformedObjectNameException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * Why a JVM may have no pools to list: without the agent's MBean, the agent is not loaded
     * there (or runs with {@code jmx=false}); said, with a command that loads it from here
     * ({@link Connector.Connection#howToLoadTheAgent}).
     */
    private String agentHint() {
        try {
            if (server.isRegistered(AGENT)) {
                return "";
            }
        } catch (IOException | RuntimeException e) {
            return "";
        }
        return " (the Turntable agent is not loaded there, or runs with jmx=false; " + connection.howToLoadTheAgent() + ")";
    }

    /**
     * Pools the agent saw but does not manage, from {@code dev.turntable:type=Agent}'s {@code Pools}
     * table (a TabularData or CompositeData[] with items {@code name}, {@code managed},
     * {@code reason}); none when there is no agent.
     */
    private List<Map<String, Object>> unmanagedFromAgent(Set<String> managedNames) throws IOException {
        List<Map<String, Object>> out = new ArrayList<>();
        Object table;
        try {
            table = Values.plain(server.getAttribute(AGENT, "Pools"));
        } catch (JMException | RuntimeException e) {
            return out; // no agent (library use), or an agent without that attribute
        }
        if (!(table instanceof List)) {
            return out;
        }
        for (Object o : (List<?>) table) {
            if (!(o instanceof Map)) {
                continue;
            }
            Map<?, ?> m = (Map<?, ?>) o;
            Object name = item(m, "name");
            Object managed = item(m, "managed");
            if (name == null || managedNames.contains(name.toString()) || Boolean.TRUE.equals(managed)) {
                continue;
            }
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("name", name.toString());
            row.put("managed", false);
            row.put("strategy", null);
            row.put("workers", null);
            row.put("queued", null);
            row.put("completed", null);
            row.put("reason", item(m, "reason"));
            out.add(row);
        }
        return out;
    }

    /** An item by name, ignoring case and separators ({@code creationSite} = {@code creation site}). */
    private static Object item(Map<?, ?> m, String key) {
        for (Map.Entry<?, ?> e : m.entrySet()) {
            String k = String.valueOf(e.getKey()).replaceAll("[^A-Za-z0-9]", "");
            if (k.equalsIgnoreCase(key)) {
                return e.getValue();
            }
        }
        return null;
    }

    // ------------------------------------------------------------------ show, get, set

    void show(String pool) throws CliException {
        ObjectName n = pool(pool);
        Map<String, Object> attributes =
                read(n, ordered(attributeInfos(n), MBeanAttributeInfo::isReadable).toArray(new String[0]));
        Object workers = attributes.remove(WORKERS);
        if (json) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("pool", pool);
            doc.put("objectName", n.toString());
            doc.put("attributes", attributes);
            doc.put("workers", workers);
            document.print(doc);
            return;
        }
        out.println("pool " + pool + "  (" + n + ")");
        Table t = new Table("ATTRIBUTE", "VALUE");
        for (Map.Entry<String, Object> e : attributes.entrySet()) {
            t.row(e.getKey(), Values.text(e.getKey(), e.getValue()));
        }
        t.print(out, false);
        List<Map<String, Object>> classes = classRows(attributes);
        if (!classes.isEmpty()) {
            out.println();
            printClasses(classes);
        }
        out.println();
        printWorkers(workers, lifetimeLimit(attributes.get(MAX_LIFETIME)));
        footnote(attributes, workers);
    }

    void get(String pool, String attribute) throws CliException {
        ObjectName n = pool(pool);
        MBeanAttributeInfo info = attributeInfo(n, attribute);
        Object value = call(pool, "reading " + info.getName() + " of pool " + pool + " failed",
                () -> Values.plain(server.getAttribute(n, info.getName())));
        if (json) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("pool", pool);
            doc.put("attribute", info.getName());
            doc.put("value", value);
            document.print(doc);
            return;
        }
        if (value instanceof Map && ((Map<?, ?>) value).isEmpty()) {
            out.println(Values.text(info.getName(), value));
        } else if (value instanceof Map) {
            Table t = new Table("ITEM", "VALUE");
            for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
                t.row(String.valueOf(e.getKey()), Values.text(String.valueOf(e.getKey()), e.getValue()));
            }
            t.print(out, false);
        } else if (WORKERS.equals(info.getName())) {
            printWorkers(value, 0);
        } else {
            out.println(Values.text(info.getName(), value));
        }
    }

    void set(String pool, String attribute, String text) throws CliException {
        ObjectName n = pool(pool);
        MBeanAttributeInfo info = attributeInfo(n, attribute);
        if (!info.isWritable()) {
            String name = info.getName();
            // The class settings change together, through an operation: say which command does it.
            String how = name.equals(CLASS_LOAD_PERCENTS) || name.equals(REQUESTOR_MAP)
                    ? " (class shares and the requestor map change together: turntablectl classes <pool> <percents>"
                            + " [<requestor-map>])"
                    : "";
            throw CliException.invalid(name + " is read-only" + how + "; writable attributes: "
                    + String.join(", ", ordered(attributeInfos(n), MBeanAttributeInfo::isWritable)));
        }
        Object value = Values.parse(info.getName(), info.getType(), text);
        String refusal = "the JVM refused " + info.getName() + " = " + text;
        Object before = call(pool, refusal, () -> Values.plain(server.getAttribute(n, info.getName())));
        Object after = call(pool, refusal, () -> {
            server.setAttribute(n, new Attribute(info.getName(), value));
            return Values.plain(server.getAttribute(n, info.getName()));
        });
        if (json) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("pool", pool);
            doc.put("attribute", info.getName());
            doc.put("oldValue", before);
            doc.put("value", after);
            document.print(doc);
        } else {
            out.println(info.getName() + ": " + Values.text(info.getName(), before) + " -> "
                    + Values.text(info.getName(), after));
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

    // ------------------------------------------------------------------ lifetimes and recycle

    /**
     * One bar per worker: how far each worker thread is through its life, scaled to
     * {@code MaxLifetimeTasks} (or, with no limit, to the longest lifetime), so workers started at
     * different times show as a staircase.
     */
    void lifetimes(String pool) throws CliException {
        ObjectName n = pool(pool);
        Map<String, Object> a = read(n, MAX_LIFETIME, RETIRED, WORKERS);
        int limit = lifetimeLimit(a.get(MAX_LIFETIME));
        List<Map<String, Object>> rows = new ArrayList<>();
        long longest = 0;
        for (Map<?, ?> m : workers(a.get(WORKERS))) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("index", m.get("index"));
            row.put("threadName", m.get("threadName"));
            row.put("lifetimeTasks", m.get("lifetimeTasks"));
            row.put("state", m.get("state"));
            rows.add(row);
            longest = Math.max(longest, number(m.get("lifetimeTasks")));
        }
        long scale = limit > 0 ? limit : longest;
        for (Map<String, Object> row : rows) {
            row.put("fraction", scale <= 0 ? 0.0 : Math.min(1.0, number(row.get("lifetimeTasks")) / (double) scale));
        }
        if (json) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("pool", pool);
            doc.put("maxLifetimeTasks", a.get(MAX_LIFETIME));
            doc.put("retiredWorkerCount", a.get(RETIRED));
            doc.put("scale", scale);
            doc.put("workers", rows);
            document.print(doc);
            return;
        }
        out.println("pool " + pool + "  " + (limit > 0 ? "MaxLifetimeTasks " + limit
                : "MaxLifetimeTasks 0 (off): bars scaled to the longest lifetime, " + longest + " tasks")
                + "  retired " + Values.text(RETIRED, a.get(RETIRED)));
        if (rows.isEmpty()) {
            out.println("no workers");
            return;
        }
        Table t = new Table("#", "THREAD", "LIFETIME", "STATE", "0.." + scale + " tasks");
        for (Map<String, Object> row : rows) {
            long lifetime = number(row.get("lifetimeTasks"));
            t.row(Values.text("index", row.get("index")), Values.text("threadName", row.get("threadName")),
                    limit > 0 ? lifetime + "/" + limit : Long.toString(lifetime),
                    Values.text("state", row.get("state")), bar((Double) row.get("fraction"), lifetime > scale));
        }
        t.print(out);
    }

    /** {@code [#####.....]}, {@link #BAR_WIDTH} wide; a {@code +} after it when past the limit. */
    static String bar(double fraction, boolean past) {
        int filled = (int) Math.round(Math.max(0, Math.min(1, fraction)) * BAR_WIDTH);
        return "[" + "#".repeat(filled) + ".".repeat(BAR_WIDTH - filled) + "]" + (past ? "+" : "");
    }

    /** Asks the JVM to retire worker {@code index} of the pool at its next task boundary and replace it. */
    void recycle(String pool, String indexText) throws CliException {
        int index;
        try {
            index = Integer.parseInt(indexText.trim());
        } catch (NumberFormatException e) {
            String why = "worker index '" + indexText + "' is not valid: expected ";
            String where = " (the # column of turntablectl show " + pool + ")";
            if (indexText.trim().matches("[+-]?\\d+")) {
                throw CliException.invalid(why + "a worker's index, 0 up to the pool's size" + where);
            }
            throw CliException.usage(why + "a whole number" + where);
        }
        ObjectName n = pool(pool);
        String thread = call(pool, "the JVM refused to recycle worker " + index + " of pool " + pool, () -> {
            String threadName = null;
            for (Map<?, ?> w : workers(read(n, WORKERS).get(WORKERS))) {
                if (Integer.valueOf(index).equals(w.get("index"))) {
                    Object name = w.get("threadName");
                    threadName = name == null || name.toString().isEmpty() ? null : name.toString();
                }
            }
            server.invoke(n, "recycleWorker", new Object[] {index}, new String[] {"int"});
            return threadName;
        });
        if (json) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("pool", pool);
            doc.put("index", index);
            doc.put("threadName", thread);
            doc.put("recycled", true);
            document.print(doc);
        } else {
            out.println("worker " + index + (thread == null ? "" : " (" + thread + ")") + " of pool " + pool
                    + " retires at its next task boundary; a new thread from the pool's ThreadFactory replaces it");
        }
    }

    private static long number(Object o) {
        return o instanceof Number ? ((Number) o).longValue() : 0;
    }

    /** {@code o} if it is a map (a TabularData or CompositeData as {@link Values#plain} gives it), else an empty one. */
    static Map<?, ?> map(Object o) {
        return o instanceof Map ? (Map<?, ?>) o : Map.of();
    }

    /** The workers of a {@code Workers} value as read: its items that are maps; none if it is no list. */
    static List<Map<?, ?>> workers(Object workers) {
        List<Map<?, ?>> out = new ArrayList<>();
        if (workers instanceof List) {
            for (Object w : (List<?>) workers) {
                if (w instanceof Map) {
                    out.add((Map<?, ?>) w);
                }
            }
        }
        return out;
    }

    /** {@code MaxLifetimeTasks} as read (absent on an older Turntable: 0). */
    static int lifetimeLimit(Object maxLifetimeTasks) {
        return maxLifetimeTasks instanceof Number ? Math.max(0, ((Number) maxLifetimeTasks).intValue()) : 0;
    }

    // ------------------------------------------------------------------ task classes

    /** {@code classes <pool>}: shares, counts per class, the requestor map and the rebalancing settings. */
    void classes(String pool) throws CliException {
        ObjectName n = classPool(pool);
        Map<String, Object> a = read(n, CLASS_ATTRIBUTES);
        if (json) {
            document.print(classesDoc(pool, a));
            return;
        }
        printClassesView(pool, a);
    }

    /**
     * {@code classes <pool> <percents> [<requestor-map>]}: sets the shares (keeping the map) through
     * {@code setClassLoadPercents}, or both at once through {@code setTaskClasses}; empty percents
     * (or {@code off}) switch classes off. A refusal exits 4 with the JVM's reason.
     */
    void classes(String pool, String percents, String requestorMap) throws CliException {
        ObjectName n = classPool(pool);
        String p = percents.trim().equalsIgnoreCase("off") ? "" : percents;
        Map<String, Object> before = read(n, CLASS_ATTRIBUTES);
        call(pool, "the JVM refused class-load-percents '" + percents + "'"
                + (requestorMap == null ? "" : " with requestor-map '" + requestorMap + "'") + " for pool " + pool,
                () -> requestorMap == null
                        ? server.invoke(n, "setClassLoadPercents", new Object[] {p},
                                new String[] {String.class.getName()})
                        : server.invoke(n, "setTaskClasses", new Object[] {p, requestorMap},
                                new String[] {String.class.getName(), String.class.getName()}));
        Map<String, Object> after = read(n, CLASS_ATTRIBUTES);
        if (json) {
            Map<String, Object> doc = classesDoc(pool, after);
            Map<String, Object> was = new LinkedHashMap<>();
            was.put("classLoadPercents", before.get(CLASS_LOAD_PERCENTS));
            was.put("requestorMap", before.get(REQUESTOR_MAP));
            doc.put("before", was);
            document.print(doc);
            return;
        }
        for (String attribute : List.of(CLASS_LOAD_PERCENTS, REQUESTOR_MAP)) {
            String from = Values.text(attribute, before.get(attribute));
            String to = Values.text(attribute, after.get(attribute));
            if (!from.equals(to) || attribute.equals(CLASS_LOAD_PERCENTS)) {
                out.println(attribute + ": " + from + " -> " + to);
            }
        }
        out.println();
        printClassesView(pool, after);
    }

    /** The pool's name, after checking that its MBean has task classes (a Turntable before them has not). */
    private ObjectName classPool(String pool) throws CliException {
        ObjectName n = pool(pool);
        for (MBeanAttributeInfo a : attributeInfos(n)) {
            if (a.getName().equals(CLASS_LOAD_PERCENTS)) {
                return n;
            }
        }
        throw CliException.invalid("pool " + pool + " has no task classes: the Turntable in " + connection.target
                + " predates them");
    }

    private void printClassesView(String pool, Map<String, Object> a) {
        List<Map<String, Object>> rows = classRows(a);
        Object threshold = a.get("RebalanceThreshold");
        String rebalance = !(threshold instanceof Number) || ((Number) threshold).intValue() <= 0 ? "rebalancing off"
                : "rebalancing when the spread stays above " + threshold + " pp for "
                        + Values.text("RebalanceMinimumDurationMillis", a.get("RebalanceMinimumDurationMillis")) + " ms";
        out.println("pool " + pool + "  task classes " + (rows.isEmpty() ? "off" : "on") + "  requestor "
                + Values.text("Requestor", a.get("Requestor")) + "  " + rebalance);
        if (rows.isEmpty()) {
            out.println("switch them on with: turntablectl classes " + pool + " <class:share;...> [<regex:class;...>]");
            return;
        }
        printClasses(rows);
        Map<?, ?> map = map(a.get(REQUESTOR_MAP));
        out.println();
        if (map.isEmpty()) {
            out.println("requestor map empty: every task goes to the class with the smallest share");
            return;
        }
        Table t = new Table("REGEX", "CLASS");
        for (Map.Entry<?, ?> e : map.entrySet()) {
            t.row(String.valueOf(e.getKey()), String.valueOf(e.getValue()));
        }
        t.print(out);
        out.println("(tried in this order, each against the whole requestor; no match: the class with the smallest share)");
    }

    /** The {@code classes} table: class, share %, running, waiting. */
    void printClasses(List<Map<String, Object>> rows) {
        Table t = new Table("CLASS", "SHARE_%", "RUNNING", "WAITING");
        for (Map<String, Object> r : rows) {
            t.row(String.valueOf(r.get("class")), Values.text("sharePercent", r.get("sharePercent")),
                    Values.text("running", r.get("running")), Values.text("waiting", r.get("waiting")));
        }
        t.print(out);
    }

    /**
     * One row per class: {@code class}, {@code sharePercent}, {@code running}, {@code waiting};
     * classes in {@code ClassLoadPercents}' order (share, then name). Empty while classes are off.
     */
    static List<Map<String, Object>> classRows(Map<String, Object> a) {
        Map<?, ?> shares = map(a.get(CLASS_LOAD_PERCENTS));
        Map<?, ?> running = map(a.get(RUNNING_BY_CLASS));
        Map<?, ?> waiting = map(a.get(WAITING_BY_CLASS));
        Set<Object> names = new LinkedHashSet<>(shares.keySet());
        if (!names.isEmpty()) {
            names.addAll(running.keySet()); // a class just removed still running its last tasks
            names.addAll(waiting.keySet());
        }
        List<Map<String, Object>> rows = new ArrayList<>();
        for (Object name : names) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("class", String.valueOf(name));
            row.put("sharePercent", shares.get(name));
            row.put("running", running.containsKey(name) ? running.get(name) : 0);
            row.put("waiting", waiting.containsKey(name) ? waiting.get(name) : 0);
            rows.add(row);
        }
        return rows;
    }

    private static Map<String, Object> classesDoc(String pool, Map<String, Object> a) {
        List<Map<String, Object>> rows = classRows(a);
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("pool", pool);
        doc.put("enabled", !rows.isEmpty());
        doc.put("classes", rows);
        List<Map<String, Object>> map = new ArrayList<>();
        for (Map.Entry<?, ?> e : map(a.get(REQUESTOR_MAP)).entrySet()) {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("regex", String.valueOf(e.getKey()));
            entry.put("class", String.valueOf(e.getValue()));
            map.add(entry);
        }
        doc.put("requestorMap", map);
        doc.put("requestor", a.get("Requestor"));
        doc.put("rebalanceThreshold", a.get("RebalanceThreshold"));
        doc.put("rebalanceMinimumDurationMillis", a.get("RebalanceMinimumDurationMillis"));
        return doc;
    }

    // ------------------------------------------------------------------ helpers

    /**
     * The workers table; with a lifetime limit ({@code lifetimeLimit > 0}) the {@code LIFETIME}
     * column reads {@code lifetime/limit}.
     */
    void printWorkers(Object workers, int lifetimeLimit) {
        if (!(workers instanceof List) || ((List<?>) workers).isEmpty()) {
            out.println("no workers");
            return;
        }
        Set<String> keys = new LinkedHashSet<>();
        for (Object w : (List<?>) workers) {
            if (w instanceof Map) {
                for (Object k : ((Map<?, ?>) w).keySet()) {
                    keys.add(String.valueOf(k));
                }
            }
        }
        List<String> columns = Values.orderedKeys(keys);
        List<String> headers = new ArrayList<>();
        for (String c : columns) {
            headers.add(Values.header(c));
        }
        Table t = new Table(headers);
        for (Object w : (List<?>) workers) {
            Map<?, ?> m = map(w);
            List<String> cells = new ArrayList<>();
            for (String c : columns) {
                String cell = Values.text(c, m.get(c));
                if (lifetimeLimit > 0 && c.equals("lifetimeTasks") && m.get(c) instanceof Number) {
                    cell += "/" + lifetimeLimit;
                }
                cells.add(cell);
            }
            t.row(cells);
        }
        t.print(out);
    }

    /** Explains "n/c" once, if the output above showed it. */
    private void footnote(Map<String, Object> attributes, Object workers) {
        boolean shown = false;
        for (Map.Entry<String, Object> e : attributes.entrySet()) {
            shown |= Values.text(e.getKey(), e.getValue()).contains(Values.NOT_COLLECTED);
        }
        for (Map<?, ?> w : workers(workers)) {
            shown |= workerText(w).contains(Values.NOT_COLLECTED);
        }
        if (shown) {
            out.println();
            out.println(Values.NOT_COLLECTED + ": not collected in the current configuration"
                    + " (LatencyHistograms, or a strategy that needs it, turns it on)");
        }
    }

    private static String workerText(Map<?, ?> w) {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<?, ?> e : w.entrySet()) {
            sb.append(Values.text(String.valueOf(e.getKey()), e.getValue())).append(' ');
        }
        return sb.toString();
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
                for (ObjectName o : server.queryNames(TurntableJmx.poolPattern(), null)) {
                    names.add(o.getKeyProperty("name"));
                }
                names.sort(null);
                throw CliException.invalid("no pool '" + pool + "' in " + connection.target + "; pools: "
                        + (names.isEmpty() ? "(none)" : String.join(", ", names)));
            }
        } catch (IOException e) {
            throw lost(e);
        }
        return n;
    }

    private MBeanAttributeInfo[] attributeInfos(ObjectName n) throws CliException {
        try {
            return server.getMBeanInfo(n).getAttributes();
        } catch (IOException e) {
            throw lost(e);
        } catch (JMException e) {
            throw CliException.invalid("cannot read the attributes of " + n + ": " + e.getMessage());
        }
    }

    /** An attribute by name: exact, else ignoring case. */
    private MBeanAttributeInfo attributeInfo(ObjectName n, String attribute) throws CliException {
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
    private static List<String> ordered(MBeanAttributeInfo[] infos, Predicate<MBeanAttributeInfo> which) {
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
        AttributeList list;
        try {
            list = server.getAttributes(n, names);
        } catch (IOException e) {
            throw lost(e);
        } catch (InstanceNotFoundException e) {
            throw gone(n.getKeyProperty("name"));
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

    CliException lost(IOException e) {
        return CliException.connect("lost the connection to " + connection.target + ": " + Connector.rootMessage(e), e);
    }

    /** Exit 2: the pool's MBean went away after {@link #pool} found it. */
    private static CliException gone(String pool) {
        return CliException.invalid("pool " + pool + " is gone (terminated or unregistered)");
    }

    /** One use of a pool's MBean: a read, a write or an operation. */
    @FunctionalInterface
    private interface MBeanCall<T> {
        T call() throws IOException, JMException, CliException;
    }

    /**
     * Runs {@code call} on pool {@code pool}'s MBean, failing as every command does: a lost
     * connection exits 3, a pool gone meanwhile 2, and anything the MBean throws exits 4 with
     * {@code refusal}, {@code ": "} and the MBean's reason.
     */
    private <T> T call(String pool, String refusal, MBeanCall<T> call) throws CliException {
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
}
