package dev.turntable.agent;

import dev.turntable.pool.DefaultWeights;
import dev.turntable.pool.strategy.Measurement;
import dev.turntable.pool.strategy.StrategyRegistry;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The agent's options, as the contract lists them: each key's default, how its text is parsed and
 * checked, what a message says is allowed, whether this version implements it, and whether a bad
 * value may fall back to the default (else the agent leaves the application untouched).
 * Immutable; any thread.
 */
enum OptionKey {

    INCLUDE("include", "*", true, false,
            "globs over pool names separated by ';', of letters, digits, '.', '_', '-', '*' and '?'"),
    EXCLUDE("exclude", "", true, false,
            "globs over pool names separated by ';', of letters, digits, '.', '_', '-', '*' and '?'"),
    STRATEGY("strategy", StrategyRegistry.defaultName(), true, true,
            "one of " + String.join(", ", StrategyRegistry.builtIn().names())),
    MEASUREMENT("measurement", Measurement.RUN_TIME.name(), true, true, "one of " + names(Measurement.values())),
    MEDIAN("median", "false", true, true, "true or false"),
    WEIGHTS("weights", "", true, true,
            "worker weights in ms from 1 to " + DefaultWeights.MAX_WEIGHT_MILLIS
                    + " separated by ';' (e.g. 500;500;250), or empty for weights derived from the CPUs"),
    TASK_STEALING("task-stealing", "true", true, true, "true or false"),
    MAX_LIFETIME_TASKS("max-lifetime-tasks", "0", true, true, "an integer from 0 (off) to " + Integer.MAX_VALUE),
    MAX_CONCURRENT_TASKS("max-concurrent-tasks", "0", true, true,
            "an integer from 0 (no limit) to " + Integer.MAX_VALUE),
    HEARTBEAT_TIMEOUT_MS("heartbeat-timeout-ms", "60000", true, true,
            "milliseconds from 0 (off) to " + Long.MAX_VALUE),
    WORKER_SELECT_TIMEOUT_MS("worker-select-timeout-ms", "5000", true, true,
            "milliseconds from 0 to " + Long.MAX_VALUE),
    CLASS_LOAD_PERCENTS("class-load-percents", "", false, true,
            "class:percent entries separated by ';', classes of letters, digits, '_' and '-', percents"
                    + " from 1 to 100 (e.g. interactive:70;batch:30), or empty for off"),
    REQUESTOR_MAP("requestor-map", "", false, true,
            "regex:class entries separated by ';' (e.g. http-.*:interactive;report-.*:batch), or empty"),
    REQUESTOR("requestor", "THREAD_NAME", false, true, "one of THREAD_NAME, TASK_CLASS, POOL_NAME"),
    REBALANCE_THRESHOLD("rebalance-threshold", "0", false, true, "percentage points from 0 (off) to 100"),
    REBALANCE_MIN_DURATION_MS("rebalance-min-duration-ms", "240000", false, true,
            "milliseconds from 0 to " + Long.MAX_VALUE),
    JMX("jmx", "true", true, true, "true or false");

    private static final Pattern GLOB = Pattern.compile("[A-Za-z0-9._*?-]+");
    private static final Pattern CLASS_NAME = Pattern.compile("[A-Za-z0-9_-]+");

    final String key;
    final String defaultText;
    final boolean implemented;
    final boolean safeToDefault;
    final String allowed;

    OptionKey(String key, String defaultText, boolean implemented, boolean safeToDefault, String allowed) {
        this.key = key;
        this.defaultText = defaultText;
        this.implemented = implemented;
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
                return globs(v);
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
                return longIn(v, 0, Long.MAX_VALUE);
            case CLASS_LOAD_PERCENTS:
                return classPercents(v);
            case REQUESTOR_MAP:
                return requestorMap(v);
            case REQUESTOR:
                return oneOf(v, "THREAD_NAME", "TASK_CLASS", "POOL_NAME");
            case REBALANCE_THRESHOLD:
                return intIn(v, 0, 100);
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

    private static List<String> items(String v) {
        List<String> out = new ArrayList<>();
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

    private static Object globs(String v) {
        List<Glob> out = new ArrayList<>();
        for (String g : items(v)) {
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
        try {
            n = Long.parseLong(v.replace("_", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(v);
        }
        if (n < min || n > max) {
            throw new IllegalArgumentException(v);
        }
        return n;
    }

    private static Object oneOf(String v, String... allowed) {
        String key = v.toUpperCase(Locale.ROOT).replace('-', '_');
        if (!Arrays.asList(allowed).contains(key)) {
            throw new IllegalArgumentException(v);
        }
        return key;
    }

    private static Object classPercents(String v) {
        Map<String, Integer> out = new LinkedHashMap<>();
        for (String entry : items(v)) {
            int colon = entry.lastIndexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException(entry);
            }
            String name = entry.substring(0, colon).trim();
            if (!CLASS_NAME.matcher(name).matches() || out.containsKey(name)) {
                throw new IllegalArgumentException(entry);
            }
            out.put(name, (Integer) intIn(entry.substring(colon + 1).trim(), 1, 100));
        }
        return Collections.unmodifiableMap(out);
    }

    private static Object requestorMap(String v) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String entry : items(v)) {
            int colon = entry.lastIndexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException(entry);
            }
            String regex = entry.substring(0, colon).trim();
            String cls = entry.substring(colon + 1).trim();
            try {
                Pattern.compile(regex);
            } catch (PatternSyntaxException e) {
                throw new IllegalArgumentException(entry);
            }
            if (!CLASS_NAME.matcher(cls).matches()) {
                throw new IllegalArgumentException(entry);
            }
            out.put(regex, cls);
        }
        return Collections.unmodifiableMap(out);
    }
}
