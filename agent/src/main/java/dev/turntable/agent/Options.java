package dev.turntable.agent;

import dev.turntable.pool.classes.ClassConfig;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

/**
 * The agent's effective options, after merging agent options, system properties, the config
 * file and the defaults (see {@link OptionsParser}). Immutable; any thread.
 */
final class Options {

    /** {@code pool.<creation-site-glob>.name=<name>} from the options. */
    record PoolNameRule(Glob site, String name) {
    }

    private final Map<OptionKey, Object> values;
    private final List<PoolNameRule> poolNames;
    /** Notes the parser left for {@link #text()}, by key (e.g. why task classes stay off). */
    private final Map<OptionKey, String> notes;

    Options(Map<OptionKey, Object> values, List<PoolNameRule> poolNames) {
        this(values, poolNames, Map.of());
    }

    Options(Map<OptionKey, Object> values, List<PoolNameRule> poolNames, Map<OptionKey, String> notes) {
        this.values = new EnumMap<>(values);
        for (OptionKey k : OptionKey.values()) {
            this.values.computeIfAbsent(k, OptionKey::defaultValue);
        }
        this.poolNames = List.copyOf(poolNames);
        this.notes = notes.isEmpty() ? Map.of() : Collections.unmodifiableMap(new EnumMap<>(notes));
    }

    /** Every option at its default. */
    static Options defaults() {
        return new Options(new EnumMap<>(OptionKey.class), List.of());
    }

    Object get(OptionKey k) {
        return values.get(k);
    }

    @SuppressWarnings("unchecked")
    List<Glob> include() {
        return (List<Glob>) values.get(OptionKey.INCLUDE);
    }

    @SuppressWarnings("unchecked")
    List<Glob> exclude() {
        return (List<Glob>) values.get(OptionKey.EXCLUDE);
    }

    String strategy() {
        return (String) values.get(OptionKey.STRATEGY);
    }

    String measurement() {
        return (String) values.get(OptionKey.MEASUREMENT);
    }

    boolean median() {
        return (Boolean) values.get(OptionKey.MEDIAN);
    }

    /** Configured weights in ms, or {@code null} for weights derived from the CPUs. */
    long[] weights() {
        long[] w = (long[]) values.get(OptionKey.WEIGHTS);
        return w == null ? null : w.clone();
    }

    boolean taskStealing() {
        return (Boolean) values.get(OptionKey.TASK_STEALING);
    }

    /** {@code max-lifetime-tasks}: tasks a worker thread runs before it retires; 0 = never. */
    int maxLifetimeTasks() {
        return (Integer) values.get(OptionKey.MAX_LIFETIME_TASKS);
    }

    /** {@code max-concurrent-tasks}: tasks queued or running on one worker at once; 0 = no limit. */
    int maxConcurrentTasks() {
        return (Integer) values.get(OptionKey.MAX_CONCURRENT_TASKS);
    }

    /** {@code heartbeat-timeout-ms}; 0 = off. */
    long heartbeatTimeoutMillis() {
        return (Long) values.get(OptionKey.HEARTBEAT_TIMEOUT_MS);
    }

    /** {@code worker-select-timeout-ms}. */
    long workerSelectTimeoutMillis() {
        return (Long) values.get(OptionKey.WORKER_SELECT_TIMEOUT_MS);
    }

    /** {@code class-load-percents} in the engine's text form; empty: task classes off. */
    String classLoadPercents() {
        return (String) values.get(OptionKey.CLASS_LOAD_PERCENTS);
    }

    /** Whether managed pools get task classes. */
    boolean taskClasses() {
        return !classLoadPercents().isEmpty();
    }

    /** {@code requestor-map} in the engine's text form; may be empty. */
    String requestorMap() {
        return (String) values.get(OptionKey.REQUESTOR_MAP);
    }

    /** {@code requestor}: {@code THREAD_NAME}, {@code TASK_CLASS} or {@code POOL_NAME}. */
    String requestor() {
        return (String) values.get(OptionKey.REQUESTOR);
    }

    /** {@code rebalance-threshold} in percentage points; 0 = off. */
    int rebalanceThreshold() {
        return (Integer) values.get(OptionKey.REBALANCE_THRESHOLD);
    }

    /** {@code rebalance-min-duration-ms}. */
    long rebalanceMinDurationMillis() {
        return (Long) values.get(OptionKey.REBALANCE_MIN_DURATION_MS);
    }

    boolean jmx() {
        return (Boolean) values.get(OptionKey.JMX);
    }

    List<PoolNameRule> poolNames() {
        return poolNames;
    }

    /** Whether an option is at its default. */
    boolean isDefault(OptionKey k) {
        return text(k, values.get(k)).equals(text(k, k.defaultValue()));
    }

    /** The canonical text of a parsed value: what {@link #text()} shows and what parses back to it. */
    static String text(OptionKey k, Object v) {
        if (v == null) {
            return "";
        }
        if (v instanceof long[]) {
            StringJoiner j = new StringJoiner(";");
            for (long w : (long[]) v) {
                j.add(Long.toString(w));
            }
            return j.toString();
        }
        if (v instanceof List) {
            StringJoiner j = new StringJoiner(";");
            for (Object o : (List<?>) v) {
                j.add(o.toString());
            }
            return j.toString();
        }
        if (v instanceof Map) {
            StringJoiner j = new StringJoiner(";");
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                j.add(e.getKey() + ":" + e.getValue());
            }
            return j.toString();
        }
        return v.toString();
    }

    /**
     * One {@code key=value} line per option in the contract's order, then the pool names; shares
     * that do not sum to 100 show their normalised percents, and a key the parser left a note
     * for shows it in parentheses.
     */
    String text() {
        return text(Map.of());
    }

    /** As {@link #text()}, with a note in parentheses after the keys in {@code extraNotes} too. */
    String text(Map<OptionKey, String> extraNotes) {
        List<String> lines = new ArrayList<>();
        for (OptionKey k : OptionKey.values()) {
            String line = k.key + "=" + text(k, values.get(k));
            if (k == OptionKey.WEIGHTS && values.get(k) == null) {
                line += " (derived from the CPUs)";
            }
            if (k == OptionKey.CLASS_LOAD_PERCENTS && taskClasses()) {
                String normalised = text(k, ClassConfig.parse(classLoadPercents(), null).normalisedPercents());
                if (!sameEntries(normalised, classLoadPercents())) {
                    line += " (normalised: " + normalised + ")";
                }
            }
            if (notes.containsKey(k)) {
                line += " (" + notes.get(k) + ")";
            }
            if (extraNotes.containsKey(k)) {
                line += " (" + extraNotes.get(k) + ")";
            }
            lines.add(line);
        }
        for (PoolNameRule r : poolNames) {
            lines.add("pool." + r.site() + ".name=" + r.name());
        }
        return String.join("\n", Collections.unmodifiableList(lines));
    }

    /** Whether two {@code name:n;...} texts hold the same entries, in any order. */
    private static boolean sameEntries(String a, String b) {
        return new java.util.HashSet<>(List.of(a.split(";"))).equals(new java.util.HashSet<>(List.of(b.split(";"))));
    }

    @Override
    public String toString() {
        return text().replace('\n', ',');
    }
}
