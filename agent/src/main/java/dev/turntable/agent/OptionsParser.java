package dev.turntable.agent;

import dev.turntable.pool.classes.ClassConfig;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * Reads the agent's options from its three sources, by precedence: agent options
 * ({@code key=value,key=value}), system properties ({@code -Dturntable.<key>}), the
 * {@code config=<file>} properties file, then the defaults. Every problem becomes one message
 * line naming the key, the value and what is allowed. The task-class keys
 * ({@link OptionKey#TASK_CLASS_KEYS}) go together: a bad value of any of them, or a requestor map
 * naming a class the shares do not, leaves task classes off. Stateless; any thread.
 */
final class OptionsParser {

    /** System properties carry this prefix. */
    static final String PROPERTY_PREFIX = "turntable.";
    static final String CONFIG = "config";

    private static final Pattern POOL_NAME_KEY = Pattern.compile("pool\\.(.+)\\.name");
    private static final String UNTOUCHED = "leaving the application untouched";
    /** What a bad value of a task-class key leads to: all of them are applied, or none. */
    static final String CLASSES_OFF = "task classes stay off";

    /** Reads a config file. */
    interface ConfigLoader {
        Properties load(String path) throws IOException;
    }

    /**
     * What the parse gives: the effective options, the lines to print, and whether a problem
     * makes it unsafe to take over anything at all.
     */
    record Result(Options options, List<String> messages, boolean untouched) {
    }

    private OptionsParser() {
    }

    static Result parse(String agentArgs, Properties system) {
        return parse(agentArgs, system, OptionsParser::loadFile);
    }

    static Result parse(String agentArgs, Properties system, ConfigLoader loader) {
        List<String> messages = new ArrayList<>();
        boolean untouched = false;

        Map<String, String> args = new LinkedHashMap<>();
        if (agentArgs != null) {
            for (String item : agentArgs.split(",")) {
                String t = item.trim();
                if (t.isEmpty()) {
                    continue;
                }
                int eq = t.indexOf('=');
                if (eq <= 0) {
                    messages.add("option '" + t + "' is not key=value (options are separated by ',', list"
                            + " entries inside a value by ';'); " + UNTOUCHED);
                    untouched = true;
                    continue;
                }
                args.put(normaliseKey(t.substring(0, eq)), t.substring(eq + 1).trim());
            }
        }

        Map<String, String> file = new LinkedHashMap<>();
        String configPath = args.containsKey(CONFIG) ? args.get(CONFIG) : system.getProperty(PROPERTY_PREFIX + CONFIG);
        if (configPath != null && !configPath.isBlank()) {
            try {
                Properties p = loader.load(configPath.trim());
                for (String name : p.stringPropertyNames()) {
                    file.put(normaliseKey(name), p.getProperty(name).trim());
                }
            } catch (IOException | RuntimeException e) {
                messages.add("option config=" + configPath + " cannot be read (" + e
                        + "), allowed: a readable .properties file; " + UNTOUCHED);
                untouched = true;
            }
        }

        reportUnknown(args, "", messages);
        reportUnknown(file, " (config file)", messages);

        Map<OptionKey, Object> values = new EnumMap<>(OptionKey.class);
        Map<OptionKey, String> raws = new EnumMap<>(OptionKey.class);
        boolean classesOff = false;
        for (OptionKey k : OptionKey.values()) {
            String raw;
            String source;
            if (args.containsKey(k.key)) {
                raw = args.get(k.key);
                source = "";
            } else if (system.getProperty(PROPERTY_PREFIX + k.key) != null) {
                raw = system.getProperty(PROPERTY_PREFIX + k.key);
                source = " (system property " + PROPERTY_PREFIX + k.key + ")";
            } else if (file.containsKey(k.key)) {
                raw = file.get(k.key);
                source = " (config file)";
            } else {
                continue;
            }
            try {
                values.put(k, k.parse(raw));
                raws.put(k, raw);
            } catch (IllegalArgumentException e) {
                if (OptionKey.TASK_CLASS_KEYS.contains(k)) {
                    messages.add(notAllowed(k, raw, source, e) + "; " + CLASSES_OFF);
                    classesOff = true;
                    continue;
                }
                String then = k.safeToDefault ? "using the default " + shown(k) : UNTOUCHED;
                messages.add("option " + k.key + "=" + raw + source + " is not allowed: " + k.allowed + "; " + then);
                untouched |= !k.safeToDefault;
            }
        }
        Map<OptionKey, String> notes = new EnumMap<>(OptionKey.class);
        String percents = (String) values.getOrDefault(OptionKey.CLASS_LOAD_PERCENTS, "");
        String map = (String) values.getOrDefault(OptionKey.REQUESTOR_MAP, "");
        if (!classesOff && !percents.isEmpty()) {
            try {
                // Together, as the engine will take them: the map may name only these classes.
                ClassConfig.parse(percents, map, (Integer) values.getOrDefault(OptionKey.REBALANCE_THRESHOLD, 0),
                        TimeUnit.MILLISECONDS.toNanos((Long) values.getOrDefault(OptionKey.REBALANCE_MIN_DURATION_MS, 0L)));
            } catch (IllegalArgumentException e) {
                // The engine's reason names the classes the map may use.
                messages.add("option " + OptionKey.REQUESTOR_MAP.key + "=" + raws.get(OptionKey.REQUESTOR_MAP)
                        + " is not allowed: " + e.getMessage() + "; " + CLASSES_OFF);
                classesOff = true;
            }
        } else if (!classesOff && !map.isEmpty()) {
            messages.add("option " + OptionKey.REQUESTOR_MAP.key + "=" + raws.get(OptionKey.REQUESTOR_MAP)
                    + " has no effect without " + OptionKey.CLASS_LOAD_PERCENTS.key + "; task classes are off");
        }
        if (classesOff) {
            values.remove(OptionKey.CLASS_LOAD_PERCENTS);
            values.remove(OptionKey.REQUESTOR_MAP);
            notes.put(OptionKey.CLASS_LOAD_PERCENTS, CLASSES_OFF + ": a task-class option was not allowed");
        }

        Map<String, String> names = new LinkedHashMap<>();
        collectPoolNames(file, names);
        for (String p : system.stringPropertyNames()) {
            if (p.startsWith(PROPERTY_PREFIX + "pool.")) {
                names.put(p.substring(PROPERTY_PREFIX.length()), system.getProperty(p).trim());
            }
        }
        collectPoolNames(args, names);
        List<Options.PoolNameRule> rules = new ArrayList<>();
        for (Map.Entry<String, String> e : names.entrySet()) {
            java.util.regex.Matcher m = POOL_NAME_KEY.matcher(e.getKey());
            if (!m.matches() || !validPoolName(e.getValue())) {
                messages.add("option " + e.getKey() + "=" + e.getValue() + " is not allowed: pool.<creation-site-glob>.name"
                        + " with a name of letters, digits, '.', '_' and '-', not ending in -<digits>; using the default name");
                continue;
            }
            rules.add(new Options.PoolNameRule(Glob.of(m.group(1)), e.getValue()));
        }

        return new Result(new Options(values, rules, notes), List.copyOf(messages), untouched);
    }

    /**
     * {@code option <key>=<value> is not allowed: <reason>; allowed: <what>}, the reason being the
     * engine's (left out when it only repeats the value).
     */
    private static String notAllowed(OptionKey k, String raw, String source, IllegalArgumentException e) {
        raw = raw == null ? "" : raw;
        String reason = e.getMessage();
        boolean says = reason != null && !reason.isBlank() && !reason.trim().equals(raw.trim());
        return "option " + k.key + "=" + raw + source + " is not allowed: " + (says ? reason + "; allowed: " : "")
                + k.allowed;
    }

    static boolean validPoolName(String name) {
        return name.matches("[A-Za-z0-9._-]+") && !name.matches(".*-[0-9]+");
    }

    private static String shown(OptionKey k) {
        if (!k.defaultText.isEmpty()) {
            return k.defaultText;
        }
        return k == OptionKey.WEIGHTS ? "(derived from the CPUs)" : "(none)";
    }

    private static String normaliseKey(String key) {
        String k = key.trim();
        return k.startsWith("pool.") ? k : k.toLowerCase(Locale.ROOT);
    }

    private static void reportUnknown(Map<String, String> source, String where, List<String> messages) {
        for (Map.Entry<String, String> e : source.entrySet()) {
            String k = e.getKey();
            if (OptionKey.byKey(k) == null && !k.equals(CONFIG) && !k.startsWith("pool.")) {
                messages.add("unknown option '" + k + "'" + where + " ignored; known: "
                        + String.join(", ", OptionKey.keys()) + ", config, pool.<creation-site-glob>.name");
            }
        }
    }

    private static void collectPoolNames(Map<String, String> source, Map<String, String> into) {
        for (Map.Entry<String, String> e : source.entrySet()) {
            if (e.getKey().startsWith("pool.")) {
                into.put(e.getKey(), e.getValue());
            }
        }
    }

    private static Properties loadFile(String path) throws IOException {
        Path p = Paths.get(path);
        Properties props = new Properties();
        try (InputStream in = Files.newInputStream(p)) {
            props.load(in);
        }
        return props;
    }
}
