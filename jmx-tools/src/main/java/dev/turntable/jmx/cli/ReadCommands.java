package dev.turntable.jmx.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;

/**
 * turntablectl's commands that read pools and change nothing: {@code pools}, {@code show},
 * {@code get} and {@code lifetimes}. One instance per command run, used by the thread that runs
 * the command; not thread-safe.
 */
final class ReadCommands {

    /** Characters of a full bar in {@code lifetimes}. */
    static final int BAR_WIDTH = 40;

    private final PoolMBeans mbeans;
    private final MBeanServerConnection server;
    private final PrintStream out;
    private final boolean json;
    private final JsonDocument document;

    /** @param document where the {@code --json} document goes, or null without {@code --json} */
    ReadCommands(PoolMBeans mbeans, PrintStream out, JsonDocument document) {
        this.mbeans = mbeans;
        this.server = mbeans.server;
        this.out = out;
        this.json = document != null;
        this.document = document;
    }

    /**
     * {@code pools}: the managed pools by name, then those the agent saw but does not manage. A
     * pool whose MBean goes away while the listing reads it is left out.
     */
    void pools() throws CliException {
        List<Map<String, Object>> rows = new ArrayList<>();
        Set<String> managedNames = new TreeSet<>();
        try {
            for (ObjectName n : mbeans.poolNames()) {
                Map<String, Object> a =
                        mbeans.readIfPresent(n, "Strategy", "PoolSize", "QueuedTaskCount", "CompletedTaskCount");
                if (a == null) {
                    // Terminated since the query (pools built per request come and go all the
                    // time): not listed, as a query a moment later would not list it.
                    continue;
                }
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
            throw mbeans.lost(e);
        }
        if (json) {
            document.print(Map.of("pools", rows));
            return;
        }
        if (rows.isEmpty()) {
            out.println("no Turntable pools in " + mbeans.connection.target + agentHint());
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

    /**
     * Why a JVM may have no pools to list: without the agent's MBean, the agent is not loaded
     * there (or runs with {@code jmx=false}); said, with what to do from here
     * ({@link Connector.Connection#whyNoAgentMBean}).
     */
    private String agentHint() {
        try {
            if (server.isRegistered(PoolMBeans.AGENT)) {
                return "";
            }
        } catch (IOException | RuntimeException e) {
            return "";
        }
        return " (" + mbeans.connection.whyNoAgentMBean() + ")";
    }

    /** Pools the agent saw but does not manage ({@link PoolMBeans#agentPools}), as rows of {@code pools}. */
    private List<Map<String, Object>> unmanagedFromAgent(Set<String> managedNames) throws IOException {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Map<?, ?> m : mbeans.agentPools()) {
            Object name = PoolMBeans.item(m, "name");
            Object managed = PoolMBeans.item(m, "managed");
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
            row.put("reason", PoolMBeans.item(m, "reason"));
            out.add(row);
        }
        return out;
    }

    /** {@code show <pool>}: every readable attribute in the contract's order, the classes and the workers. */
    void show(String pool) throws CliException {
        ObjectName n = mbeans.pool(pool);
        List<String> readable = PoolMBeans.ordered(mbeans.attributeInfos(n), MBeanAttributeInfo::isReadable);
        Map<String, Object> attributes = mbeans.read(n, readable.toArray(new String[0]));
        Object workers = attributes.remove(PoolMBeans.WORKERS);
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
        List<Map<String, Object>> classes = PoolTables.classRows(attributes);
        if (!classes.isEmpty()) {
            out.println();
            PoolTables.printClasses(out, classes);
        }
        out.println();
        PoolTables.printWorkers(out, workers, PoolTables.lifetimeLimit(attributes.get(PoolMBeans.MAX_LIFETIME)));
        queuedElsewhere(attributes, workers);
        footnote(attributes, workers);
    }

    /**
     * Says where the queued tasks are when the workers' QUEUED column does not hold them all: in
     * the shared queue every worker polls (a burst beyond the workers' own queues, workers busy
     * in a first task or stuck, a worker that left), or waiting for their class's turn. A pool of
     * three threads blocked in their first tasks read "QueuedTaskCount 27" above three rows of
     * "QUEUED 0", and nothing said where the 27 were. Read in the same request, not at one
     * instant: under load the two can differ by a task or two either way, so a difference is
     * shown only when positive.
     */
    private void queuedElsewhere(Map<String, Object> attributes, Object workers) {
        Object total = attributes.get("QueuedTaskCount");
        if (!(total instanceof Number)) {
            return;
        }
        long onWorkers = 0;
        for (Map<?, ?> w : PoolTables.workers(workers)) {
            Object q = w.get("queued");
            if (q instanceof Number) {
                onWorkers += ((Number) q).longValue();
            }
        }
        long elsewhere = ((Number) total).longValue() - onWorkers;
        if (elsewhere > 0) {
            out.println();
            out.println(elsewhere + " of the " + total + " queued tasks (QueuedTaskCount) wait on no worker's own queue:"
                    + " in the shared queue, for the first worker free to take one, or, with task classes,"
                    + " for their class's turn (WaitingTasksByClass)");
        }
    }

    /** Explains "n/c" once, if the output above showed it. */
    private void footnote(Map<String, Object> attributes, Object workers) {
        boolean shown = false;
        for (Map.Entry<String, Object> e : attributes.entrySet()) {
            shown |= Values.text(e.getKey(), e.getValue()).contains(Values.NOT_COLLECTED);
        }
        for (Map<?, ?> w : PoolTables.workers(workers)) {
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

    /** {@code get <pool> <attribute>}: one attribute, its name matched exactly, else ignoring case. */
    void get(String pool, String attribute) throws CliException {
        ObjectName n = mbeans.pool(pool);
        MBeanAttributeInfo info = mbeans.attributeInfo(n, attribute);
        Object value = mbeans.call(pool, "reading " + info.getName() + " of pool " + pool + " failed",
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
        } else if (PoolMBeans.WORKERS.equals(info.getName())) {
            PoolTables.printWorkers(out, value, 0);
        } else {
            out.println(Values.text(info.getName(), value));
        }
    }

    /**
     * One bar per worker: how far each worker thread is through its life, scaled to
     * {@code MaxLifetimeTasks} (or, with no limit, to the longest lifetime), so workers started at
     * different times show as a staircase.
     */
    void lifetimes(String pool) throws CliException {
        ObjectName n = mbeans.pool(pool);
        Map<String, Object> a = mbeans.read(n, PoolMBeans.MAX_LIFETIME, PoolMBeans.RETIRED, PoolMBeans.WORKERS);
        int limit = PoolTables.lifetimeLimit(a.get(PoolMBeans.MAX_LIFETIME));
        List<Map<String, Object>> rows = new ArrayList<>();
        long longest = 0;
        for (Map<?, ?> m : PoolTables.workers(a.get(PoolMBeans.WORKERS))) {
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
            doc.put("maxLifetimeTasks", a.get(PoolMBeans.MAX_LIFETIME));
            doc.put("retiredWorkerCount", a.get(PoolMBeans.RETIRED));
            doc.put("scale", scale);
            doc.put("workers", rows);
            document.print(doc);
            return;
        }
        out.println("pool " + pool + "  " + (limit > 0 ? "MaxLifetimeTasks " + limit
                : "MaxLifetimeTasks 0 (off): bars scaled to the longest lifetime, " + longest + " tasks")
                + "  retired " + Values.text(PoolMBeans.RETIRED, a.get(PoolMBeans.RETIRED)));
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

    private static long number(Object o) {
        return o instanceof Number ? ((Number) o).longValue() : 0;
    }
}
