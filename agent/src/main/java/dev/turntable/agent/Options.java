package dev.turntable.agent;

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

    Options(Map<OptionKey, Object> values, List<PoolNameRule> poolNames) {
        this.values = new EnumMap<>(values);
        for (OptionKey k : OptionKey.values()) {
            this.values.computeIfAbsent(k, OptionKey::defaultValue);
        }
        this.poolNames = List.copyOf(poolNames);
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

    boolean jmx() {
        return (Boolean) values.get(OptionKey.JMX);
    }

    List<PoolNameRule> poolNames() {
        return poolNames;
    }

    /** Whether an option differs from its default (so a not-yet-implemented one deserves a warning). */
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
     * One {@code key=value} line per option in the contract's order, then the pool names;
     * options this version does not implement yet say so.
     */
    String text() {
        return text(Map.of());
    }

    /** As {@link #text()}, with a note in parentheses after the keys in {@code notes}. */
    String text(Map<OptionKey, String> notes) {
        List<String> lines = new ArrayList<>();
        for (OptionKey k : OptionKey.values()) {
            String line = k.key + "=" + text(k, values.get(k));
            if (k == OptionKey.WEIGHTS && values.get(k) == null) {
                line += " (derived from the CPUs)";
            }
            if (!k.implemented) {
                line += " (not implemented yet)";
            }
            if (notes.containsKey(k)) {
                line += " (" + notes.get(k) + ")";
            }
            lines.add(line);
        }
        for (PoolNameRule r : poolNames) {
            lines.add("pool." + r.site() + ".name=" + r.name());
        }
        return String.join("\n", Collections.unmodifiableList(lines));
    }

    @Override
    public String toString() {
        return text().replace('\n', ',');
    }
}
