package dev.turntable.agent;

import dev.turntable.pool.DefaultWeights;
import dev.turntable.pool.TurntableQueue;
import dev.turntable.pool.classes.ClassConfig;
import dev.turntable.pool.classes.Requestor;
import dev.turntable.pool.strategy.Measurement;
import dev.turntable.pool.strategy.StrategyRegistry;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.StringJoiner;
import java.util.regex.Pattern;

/**
 * The agent's options, as the contract lists them: each key's default, how its text is parsed and
 * checked (the task-class keys by the engine's own rules, so the agent accepts exactly what JMX
 * does), what a message says is allowed, and whether a bad value may fall back to the default
 * (else the agent leaves the application untouched).
 * Immutable; any thread.
 */
enum OptionKey {

    INCLUDE("include", "*", false,
            "globs over pool names separated by ';', of letters, digits, '.', '_', '-', '*' and '?'"),
    EXCLUDE("exclude", "", false,
            "globs over pool names separated by ';', of letters, digits, '.', '_', '-', '*' and '?'"),
    STRATEGY("strategy", StrategyRegistry.defaultName(), true,
            "one of " + String.join(", ", StrategyRegistry.builtIn().names())),
    MEASUREMENT("measurement", Measurement.RUN_TIME.name(), true, "one of " + names(Measurement.values())),
    MEDIAN("median", "false", true, "true or false"),
    WEIGHTS("weights", "", true,
            "worker weights in ms from 1 to " + DefaultWeights.MAX_WEIGHT_MILLIS
                    + " separated by ';' (e.g. 500;500;250), or empty for weights derived from the CPUs"),
    TASK_STEALING("task-stealing", "true", true, "true or false"),
    MAX_LIFETIME_TASKS("max-lifetime-tasks", "0", true, "an integer from 0 (off) to " + Integer.MAX_VALUE),
    MAX_CONCURRENT_TASKS("max-concurrent-tasks", "0", true,
            "an integer from 0 (no limit) to " + Integer.MAX_VALUE),
    HEARTBEAT_TIMEOUT_MS("heartbeat-timeout-ms", "60000", true,
            "milliseconds from 0 (off) to " + TurntableQueue.MAX_DURATION_MILLIS),
    WORKER_SELECT_TIMEOUT_MS("worker-select-timeout-ms", "5000", true,
            "milliseconds from 0 to " + TurntableQueue.MAX_DURATION_MILLIS),
    CLASS_LOAD_PERCENTS("class-load-percents", "", true,
            "class:share entries separated by ';' (e.g. interactive:70;batch:30), class names of letters, digits,"
                    + " '.', '_' and '-', shares from 0 to " + ClassConfig.MAX_SHARE + " (relative: normalised to"
                    + " percents; at least one above 0, none above 0 below 1% of the total), or empty for off"),
    REQUESTOR_MAP("requestor-map", "", true,
            "regex:class entries separated by ';' (e.g. http-.*:interactive;report-.*:batch), each regex a"
                    + " java.util.regex pattern matched against the whole requestor, each class one of"
                    + " class-load-percents, or empty"),
    REQUESTOR("requestor", Requestor.THREAD_NAME.name(), true, "one of " + names(Requestor.values())),
    REBALANCE_THRESHOLD("rebalance-threshold", "0", true,
            "percentage points from 0 (off) to " + ClassConfig.MAX_REBALANCE_THRESHOLD_PERCENT),
    REBALANCE_MIN_DURATION_MS("rebalance-min-duration-ms", "240000", true,
            "milliseconds from 0 to " + TurntableQueue.MAX_DURATION_MILLIS),
    JMX("jmx", "true", true, "true or false");

    /**
     * A refusal whose reason a message should print before what is allowed (the others' reason
     * is the value itself, or the part of it that is wrong, which the message shows anyway).
     */
    static final class Explained extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        Explained(String reason) {
            super(reason);
        }
    }

    /** The task-class keys: applied together, or (after a bad value of any of them) not at all. */
    static final Set<OptionKey> TASK_CLASS_KEYS = Collections.unmodifiableSet(EnumSet.of(CLASS_LOAD_PERCENTS,
            REQUESTOR_MAP, REQUESTOR, REBALANCE_THRESHOLD, REBALANCE_MIN_DURATION_MS));

    private static final Pattern GLOB = Pattern.compile("[A-Za-z0-9._*?-]+");

    final String key;
    final String defaultText;
    final boolean safeToDefault;
    final String allowed;

    OptionKey(String key, String defaultText, boolean safeToDefault, String allowed) {
        this.key = key;
        this.defaultText = defaultText;
        this.safeToDefault = safeToDefault;
        this.allowed = allowed;
    }

    /**
     * Parses and checks a value.
     *
     * @throws IllegalArgumentException if the value is not allowed
     */
    Object parse(String text) {
        String v = text.trim();
        switch (this) {
            case INCLUDE:
            case EXCLUDE:
                return globs(v, this == INCLUDE);
            case STRATEGY:
                return StrategyRegistry.builtIn().resolve(v);
            case MEASUREMENT:
                return Measurement.parse(v).name();
            case MEDIAN:
            case TASK_STEALING:
            case JMX:
                return bool(v);
            case WEIGHTS:
                return weights(v);
            case MAX_LIFETIME_TASKS:
            case MAX_CONCURRENT_TASKS:
                return intIn(v, 0, Integer.MAX_VALUE);
            case HEARTBEAT_TIMEOUT_MS:
            case WORKER_SELECT_TIMEOUT_MS:
            case REBALANCE_MIN_DURATION_MS:
                // Kept in nanoseconds by the engine: a longer duration would be cut short silently.
                return longIn(v, 0, TurntableQueue.MAX_DURATION_MILLIS);
            case CLASS_LOAD_PERCENTS:
                return classLoadPercents(v);
            case REQUESTOR_MAP:
                return requestorMap(v);
            case REQUESTOR:
                try {
                    return Requestor.parse(v).name();
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException(v); // the allowed names say it all
                }
            case REBALANCE_THRESHOLD:
                return rebalanceThreshold(v);
            default:
                throw new IllegalStateException("no parser for " + key);
        }
    }

    Object defaultValue() {
        return parse(defaultText);
    }

    static OptionKey byKey(String key) {
        for (OptionKey k : values()) {
            if (k.key.equals(key)) {
                return k;
            }
        }
        return null;
    }

    static List<String> keys() {
        List<String> out = new ArrayList<>();
        for (OptionKey k : values()) {
            out.add(k.key);
        }
        return out;
    }

    // ------------------------------------------------------------------ parsers

    private static String names(Enum<?>[] values) {
        List<String> out = new ArrayList<>();
        for (Enum<?> v : values) {
            out.add(v.name());
        }
        return String.join(", ", out);
    }

    /**
     * The {@code ;}-separated entries of a list value. One {@code ;} at the end is allowed, as in
     * the class shares and the requestor map (a harmless slip that, in {@code include}, would
     * otherwise leave the whole application untouched); an empty entry inside is refused.
     */
    private static List<String> items(String v) {
        List<String> out = new ArrayList<>();
        if (v.endsWith(";")) {
            v = v.substring(0, v.length() - 1).trim();
        }
        if (v.isEmpty()) {
            return out;
        }
        for (String item : v.split(";", -1)) {
            String t = item.trim();
            if (t.isEmpty()) {
                throw new IllegalArgumentException("empty entry");
            }
            out.add(t);
        }
        return out;
    }

    private static Object globs(String v, boolean include) {
        List<Glob> out = new ArrayList<>();
        List<String> items = items(v);
        if (include && items.isEmpty()) {
            // Most likely an unset variable in a launch script: say so rather than take over nothing.
            throw new Explained("empty, which would take over no pool; write include=* for every pool,"
                    + " or leave include out");
        }
        for (String g : items) {
            if (!GLOB.matcher(g).matches()) {
                throw new IllegalArgumentException(g);
            }
            out.add(Glob.of(g));
        }
        return Collections.unmodifiableList(out);
    }

    static Object bool(String v) {
        if (v.equalsIgnoreCase("true")) {
            return Boolean.TRUE;
        }
        if (v.equalsIgnoreCase("false")) {
            return Boolean.FALSE;
        }
        throw new IllegalArgumentException(v);
    }

    private static Object weights(String v) {
        List<String> parts = items(v);
        if (parts.isEmpty()) {
            return null;
        }
        long[] out = new long[parts.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = (Long) longIn(parts.get(i), 1, DefaultWeights.MAX_WEIGHT_MILLIS);
        }
        return out;
    }

    private static Object intIn(String v, int min, int max) {
        return (int) (long) (Long) longIn(v, min, max);
    }

    private static Object longIn(String v, long min, long max) {
        long n;
        String digits = v.replace("_", "");
        // ASCII digits only, no sign (no option takes a negative number): parseLong also takes
        // '+', '-0' and other scripts' digits ('٥').
        if (digits.isEmpty() || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException(v);
        }
        try {
            n = Long.parseLong(digits);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(v);
        }
        if (n < min || n > max) {
            throw new IllegalArgumentException(v);
        }
        return n;
    }

    /**
     * {@code class-load-percents}: empty (off), or text the engine accepts ({@link ClassConfig#parse}),
     * kept in the engine's canonical form (entries in the order given, trimmed).
     *
     * @throws IllegalArgumentException with the engine's reason
     */
    private static Object classLoadPercents(String v) {
        if (v.isEmpty()) {
            return "";
        }
        return ClassConfig.parse(v, null).classLoadPercentsText();
    }

    /**
     * {@code requestor-map} on its own: empty, or {@code regex:class} entries the engine accepts
     * with classes named by the engine's rule; whether each class is one of
     * {@code class-load-percents} is checked once both are known ({@link OptionsParser}). Kept in
     * the engine's canonical form.
     *
     * @throws IllegalArgumentException with the engine's reason
     */
    private static Object requestorMap(String v) {
        StringJoiner classes = new StringJoiner(";");
        Set<String> seen = new LinkedHashSet<>();
        for (String entry : v.split(";")) {
            String e = entry.trim();
            if (e.isEmpty()) {
                continue; // as the engine: empty entries are ignored
            }
            int colon = e.lastIndexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException("requestor-map entry '" + e
                        + "' has no ':'; expected regex:class, e.g. report-.*:batch");
            }
            String cls = e.substring(colon + 1).trim();
            try {
                ClassConfig.parse(cls + ":1", null); // the engine's rule for a class name
            } catch (IllegalArgumentException notAName) {
                throw new IllegalArgumentException("requestor-map entry '" + e + "' has class name '" + cls
                        + "'; a class name is one or more of A-Z a-z 0-9 . _ -");
            }
            if (seen.add(cls)) {
                classes.add(cls + ":1");
            }
        }
        if (seen.isEmpty()) {
            return "";
        }
        // Every class it names at an equal share: the engine then checks each entry and regex.
        return ClassConfig.parse(classes.toString(), v).requestorMapText();
    }

    private static Object rebalanceThreshold(String v) {
        int n = (Integer) intIn(v, 0, ClassConfig.MAX_REBALANCE_THRESHOLD_PERCENT);
        // The engine's own check. Not through TurntableQueue.builder(): that would initialize the
        // engine's queue class (and its warm-up) in premain, for a default value.
        ClassConfig.checkRebalanceThreshold(n);
        return n;
    }
}
