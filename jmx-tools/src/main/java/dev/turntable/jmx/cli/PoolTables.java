package dev.turntable.jmx.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The tables more than one pool command prints (the workers, the task classes), and reading the
 * attribute values they are made of. Stateless; any thread.
 */
final class PoolTables {

    private PoolTables() {
    }

    /**
     * The workers table; with a lifetime limit ({@code lifetimeLimit > 0}) the {@code LIFETIME}
     * column reads {@code lifetime/limit}.
     */
    static void printWorkers(PrintStream out, Object workers, int lifetimeLimit) {
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

    /** The {@code classes} table: class, share %, running, waiting. */
    static void printClasses(PrintStream out, List<Map<String, Object>> rows) {
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
        Map<?, ?> shares = map(a.get(PoolMBeans.CLASS_LOAD_PERCENTS));
        Map<?, ?> running = map(a.get(PoolMBeans.RUNNING_BY_CLASS));
        Map<?, ?> waiting = map(a.get(PoolMBeans.WAITING_BY_CLASS));
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

    /** {@code o} if it is a map (as {@link Values#plain} gives TabularData and CompositeData), else an empty one. */
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
}
