package dev.turntable.jmx.cli;

import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;
import javax.management.openmbean.TabularType;

/**
 * Conversions between JMX open data, turntablectl's text and its JSON: reading values for display,
 * and parsing a typed value for {@code set}. Stateless; any thread.
 */
final class Values {

    /** What human output shows for a statistic the engine does not collect now (the MXBean's {@code -1}). */
    static final String NOT_COLLECTED = "n/c";

    /** The worker items in the contract's order; columns of the workers table. */
    static final List<String> WORKER_ITEMS = List.of("index", "threadName", "state", "queued", "running",
            "completed", "lifetimeTasks", "averageRunTimeMillis", "medianRunTimeMillis",
            "averageWaitTimeMillis", "cpuTimeMillis", "lastHeartbeatMillisAgo");

    static final List<String> LATENCY_ITEMS = List.of("p50", "p90", "p99", "p999", "max", "count");

    /** Attributes and items where {@code -1} means "not collected" rather than a value. */
    private static final Set<String> MAY_BE_NOT_COLLECTED = Set.of("RejectedTaskCount",
            "averageRunTimeMillis", "medianRunTimeMillis", "averageWaitTimeMillis", "cpuTimeMillis",
            "p50", "p90", "p99", "p999", "max", "count");

    /**
     * Items where {@code -1} means "no value yet" (shown as {@code -}): a heartbeat is always
     * collected, but a free slot has none and a new thread none until the housekeeper looked.
     */
    private static final Set<String> MAY_BE_NONE = Set.of("lastHeartbeatMillisAgo");

    /** Map attributes shown in the options' own text form, {@code name:value;name:value}. */
    static final Set<String> OPTION_TEXT_MAPS = Set.of("ClassLoadPercents", "RequestorMap", "RunningTasksByClass",
            "WaitingTasksByClass");

    private static final Map<String, String> HEADERS = Map.ofEntries(
            Map.entry("index", "#"), Map.entry("threadName", "THREAD"), Map.entry("state", "STATE"),
            Map.entry("queued", "QUEUED"), Map.entry("running", "RUNNING"),
            Map.entry("completed", "COMPLETED"), Map.entry("lifetimeTasks", "LIFETIME"),
            Map.entry("averageRunTimeMillis", "AVG_RUN_MS"), Map.entry("medianRunTimeMillis", "MEDIAN_RUN_MS"),
            Map.entry("averageWaitTimeMillis", "AVG_WAIT_MS"), Map.entry("cpuTimeMillis", "CPU_MS"),
            Map.entry("lastHeartbeatMillisAgo", "HEARTBEAT_AGO_MS"));

    private Values() {
    }

    /** A short upper-case column header for a worker item. */
    static String header(String item) {
        return HEADERS.getOrDefault(item, item.toUpperCase(Locale.ROOT));
    }

    /**
     * Open data as plain Java values for JSON and display: {@code CompositeData} becomes an ordered
     * map (known items in the contract's order, then the rest by name), {@code TabularData} a list
     * of its rows, arrays lists.
     */
    static Object plain(Object v) {
        if (v instanceof CompositeData) {
            CompositeData cd = (CompositeData) v;
            Map<String, Object> m = new LinkedHashMap<>();
            for (String key : orderedKeys(cd.getCompositeType().keySet())) {
                m.put(key, plain(cd.get(key)));
            }
            return m;
        }
        if (v instanceof TabularData && isMxBeanMap(((TabularData) v).getTabularType())) {
            // An MXBean Map<K, V>: rows {key, value}, indexed by key, in the map's own order.
            Map<Object, Object> m = new LinkedHashMap<>();
            for (Object row : ((TabularData) v).values()) {
                CompositeData cd = (CompositeData) row;
                m.put(plain(cd.get("key")), plain(cd.get("value")));
            }
            return m;
        }
        if (v instanceof TabularData) {
            List<Object> rows = new ArrayList<>();
            for (Object row : ((TabularData) v).values()) {
                rows.add(plain(row));
            }
            return rows;
        }
        if (v != null && v.getClass().isArray()) {
            int n = Array.getLength(v);
            List<Object> list = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                list.add(plain(Array.get(v, i)));
            }
            return list;
        }
        return v;
    }

    /** Whether a table is how an MXBean shows a {@code Map}: rows of exactly {@code key} and {@code value}, indexed by {@code key}. */
    static boolean isMxBeanMap(TabularType t) {
        return t.getIndexNames().equals(List.of("key")) && t.getRowType().keySet().equals(Set.of("key", "value"));
    }

    static List<String> orderedKeys(Set<String> keys) {
        List<String> out = new ArrayList<>();
        for (List<String> known : List.of(WORKER_ITEMS, LATENCY_ITEMS)) {
            for (String k : known) {
                if (keys.contains(k)) {
                    out.add(k);
                }
            }
        }
        for (String k : new TreeSet<>(keys)) {
            if (!out.contains(k)) {
                out.add(k);
            }
        }
        return out;
    }

    /** A plain value (see {@link #plain}) as human text; {@code key} names the attribute or item. */
    static String text(String key, Object v) {
        if (v == null) {
            return "-";
        }
        if (v instanceof Double || v instanceof Float) {
            double d = ((Number) v).doubleValue();
            if (Double.isNaN(d)) {
                return "-";
            }
            if (d == -1 && MAY_BE_NOT_COLLECTED.contains(key)) {
                return NOT_COLLECTED;
            }
            return String.format(Locale.ROOT, "%.3f", d);
        }
        if (v instanceof Number) {
            if (((Number) v).longValue() == -1 && MAY_BE_NOT_COLLECTED.contains(key)) {
                return NOT_COLLECTED;
            }
            if (((Number) v).longValue() == -1 && MAY_BE_NONE.contains(key)) {
                return "-";
            }
            return v.toString();
        }
        if (v instanceof Map && OPTION_TEXT_MAPS.contains(key)) {
            // As the options write them (interactive:70;batch:30), so they can be pasted back.
            StringBuilder sb = new StringBuilder();
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                sb.append(sb.length() == 0 ? "" : ";").append(e.getKey()).append(':').append(e.getValue());
            }
            return sb.length() == 0 ? ("ClassLoadPercents".equals(key) ? "off" : "-") : sb.toString();
        }
        if (v instanceof Map) {
            StringBuilder sb = new StringBuilder();
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                if (sb.length() > 0) {
                    sb.append("  ");
                }
                String k = String.valueOf(e.getKey());
                sb.append(k).append('=').append(text(k, e.getValue()));
            }
            return sb.toString();
        }
        if (v instanceof Collection) {
            Collection<?> c = (Collection<?>) v;
            boolean numbers = c.stream().allMatch(o -> o instanceof Number);
            StringBuilder sb = new StringBuilder();
            for (Object o : c) {
                if (sb.length() > 0) {
                    sb.append(numbers ? ";" : ", ");
                }
                sb.append(text(key, o));
            }
            return sb.toString();
        }
        String s = v.toString();
        return s.isEmpty() ? "-" : s;
    }

    /**
     * Parses {@code text} as a value of the attribute's open type ({@code MBeanAttributeInfo.getType()}).
     * Lists are {@code ;}-separated, like the agent's options.
     *
     * @throws CliException exit 2, naming the value and what is allowed
     */
    static Object parse(String attribute, String type, String text) throws CliException {
        String t = text.trim();
        switch (type) {
            case "java.lang.String":
                return text;
            case "boolean":
            case "java.lang.Boolean":
                if (t.equalsIgnoreCase("true") || t.equalsIgnoreCase("false")) {
                    return Boolean.valueOf(t.toLowerCase(Locale.ROOT));
                }
                throw bad(attribute, text, "true or false");
            case "int":
            case "java.lang.Integer":
                try {
                    return Integer.valueOf(t);
                } catch (NumberFormatException e) {
                    throw bad(attribute, text, wholeNumber(attribute, t, 32, Integer.MIN_VALUE, Integer.MAX_VALUE));
                }
            case "long":
            case "java.lang.Long":
                try {
                    return Long.valueOf(t);
                } catch (NumberFormatException e) {
                    throw bad(attribute, text, wholeNumber(attribute, t, 64, Long.MIN_VALUE, Long.MAX_VALUE));
                }
            case "double":
            case "java.lang.Double":
                try {
                    return Double.valueOf(t);
                } catch (NumberFormatException e) {
                    throw bad(attribute, text, "a number");
                }
            case "[J":
                return longs(attribute, text);
            case "[I": {
                long[] ls = longs(attribute, text);
                int[] is = new int[ls.length];
                for (int i = 0; i < ls.length; i++) {
                    if (ls[i] != (int) ls[i]) {
                        throw bad(attribute, text, "whole numbers from " + Integer.MIN_VALUE + " to "
                                + Integer.MAX_VALUE + " separated by ';'");
                    }
                    is[i] = (int) ls[i];
                }
                return is;
            }
            case "[Ljava.lang.String;":
                return t.isEmpty() ? new String[0] : t.split("\\s*;\\s*", -1);
            default:
                throw CliException.usage("attribute " + attribute + " has the type " + type
                        + ", which turntablectl cannot write");
        }
    }

    private static long[] longs(String attribute, String text) throws CliException {
        String t = text.trim();
        if (t.endsWith(";")) {
            t = t.substring(0, t.length() - 1).trim(); // one at the end, as the agent's lists allow
        }
        if (t.equalsIgnoreCase("default")) {
            // An empty array: for WorkerWeightsMillis, the weights derived from the CPUs. A word, not
            // '': a script's unset variable must not reset the weights without a word said.
            return new long[0];
        }
        if (t.isEmpty()) {
            throw bad(attribute, text, "whole numbers separated by ';', e.g. 500;500;250, or default");
        }
        String[] parts = t.split(";", -1);
        long[] out = new long[parts.length];
        for (int i = 0; i < parts.length; i++) {
            try {
                out[i] = Long.parseLong(parts[i].trim());
            } catch (NumberFormatException e) {
                String item = parts[i].trim();
                throw bad(attribute, text, "whole numbers separated by ';', e.g. 500;500;250, or default (item "
                        + (i + 1) + " '" + item + "' is " + (item.matches("[+-]?[0-9]+")
                                ? "out of a 64-bit number's range" : "not one") + ")");
            }
        }
        return out;
    }

    /**
     * What a whole-number attribute takes, for {@code t} that does not parse as one of its type
     * ({@code bits} wide): a whole number, or, when {@code t} is one too large (or small) for the
     * type, the bound it passed: {@code 99999999999} is a whole number, and saying it is not would
     * send the operator looking for a typo. The attribute's own range within the type's is the
     * JVM's to say (its refusal names it).
     */
    private static String wholeNumber(String attribute, String t, int bits, long min, long max) {
        if (t.matches("\\+?[0-9]+")) {
            return "a whole number up to " + max + " (" + attribute + " is a " + bits + "-bit number)";
        }
        if (t.matches("-[0-9]+")) {
            return "a whole number down to " + min + " (" + attribute + " is a " + bits + "-bit number)";
        }
        return "a whole number";
    }

    private static CliException bad(String attribute, String text, String allowed) {
        // The value is wrong, not the command line's shape: the whole usage text would bury the line.
        return CliException.invalid("value '" + text + "' for " + attribute + " is not valid: expected " + allowed);
    }
}
