package dev.turntable.jmx.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;

/**
 * turntablectl's {@code classes}: a pool's task classes (shares, running and waiting tasks per
 * class, the requestor map, the rebalancing settings), and setting the shares and the map through
 * the MBean's operations. One instance per command run, used by the thread that runs the command;
 * not thread-safe.
 */
final class ClassCommands {

    /** What {@code classes} reads, in one call. */
    private static final String[] CLASS_ATTRIBUTES = {PoolMBeans.CLASS_LOAD_PERCENTS, PoolMBeans.REQUESTOR_MAP, "Requestor",
        "RebalanceThreshold", "RebalanceMinimumDurationMillis", PoolMBeans.RUNNING_BY_CLASS,
        PoolMBeans.WAITING_BY_CLASS};

    private final PoolMBeans mbeans;
    private final MBeanServerConnection server;
    private final PrintStream out;
    private final boolean json;
    private final JsonDocument document;

    /** @param document where the {@code --json} document goes, or null without {@code --json} */
    ClassCommands(PoolMBeans mbeans, PrintStream out, JsonDocument document) {
        this.mbeans = mbeans;
        this.server = mbeans.server;
        this.out = out;
        this.json = document != null;
        this.document = document;
    }

    /** {@code classes <pool>}: shares, counts per class, the requestor map and the rebalancing settings. */
    void classes(String pool) throws CliException {
        ObjectName n = classPool(pool);
        Map<String, Object> a = mbeans.read(n, CLASS_ATTRIBUTES);
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
        Map<String, Object> before = mbeans.read(n, CLASS_ATTRIBUTES);
        mbeans.call(pool, "the JVM refused class-load-percents '" + percents + "'"
                + (requestorMap == null ? "" : " with requestor-map '" + requestorMap + "'") + " for pool " + pool,
                () -> requestorMap == null
                        ? server.invoke(n, "setClassLoadPercents", new Object[] {p},
                                new String[] {String.class.getName()})
                        : server.invoke(n, "setTaskClasses", new Object[] {p, requestorMap},
                                new String[] {String.class.getName(), String.class.getName()}));
        Map<String, Object> after = mbeans.read(n, CLASS_ATTRIBUTES);
        if (json) {
            Map<String, Object> doc = classesDoc(pool, after);
            Map<String, Object> was = new LinkedHashMap<>();
            was.put("classLoadPercents", before.get(PoolMBeans.CLASS_LOAD_PERCENTS));
            was.put("requestorMap", before.get(PoolMBeans.REQUESTOR_MAP));
            doc.put("before", was);
            document.print(doc);
            return;
        }
        for (String attribute : List.of(PoolMBeans.CLASS_LOAD_PERCENTS, PoolMBeans.REQUESTOR_MAP)) {
            String from = Values.text(attribute, before.get(attribute));
            String to = Values.text(attribute, after.get(attribute));
            if (!from.equals(to) || attribute.equals(PoolMBeans.CLASS_LOAD_PERCENTS)) {
                out.println(attribute + ": " + from + " -> " + to);
            }
        }
        out.println();
        printClassesView(pool, after);
    }

    /** The pool's name, after checking that its MBean has task classes (a Turntable before them has not). */
    private ObjectName classPool(String pool) throws CliException {
        ObjectName n = mbeans.pool(pool);
        for (MBeanAttributeInfo a : mbeans.attributeInfos(n)) {
            if (a.getName().equals(PoolMBeans.CLASS_LOAD_PERCENTS)) {
                return n;
            }
        }
        throw CliException.invalid("pool " + pool + " has no task classes: the Turntable in " + mbeans.connection.target
                + " predates them");
    }

    private void printClassesView(String pool, Map<String, Object> a) {
        List<Map<String, Object>> rows = PoolTables.classRows(a);
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
        PoolTables.printClasses(out, rows);
        Map<?, ?> map = PoolTables.map(a.get(PoolMBeans.REQUESTOR_MAP));
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

    private static Map<String, Object> classesDoc(String pool, Map<String, Object> a) {
        List<Map<String, Object>> rows = PoolTables.classRows(a);
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("pool", pool);
        doc.put("enabled", !rows.isEmpty());
        doc.put("classes", rows);
        List<Map<String, Object>> map = new ArrayList<>();
        for (Map.Entry<?, ?> e : PoolTables.map(a.get(PoolMBeans.REQUESTOR_MAP)).entrySet()) {
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
}
