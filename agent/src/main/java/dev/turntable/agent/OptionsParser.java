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
    /**
     * Not an option: the id a client gives one load of the agent so that it can find that load's
     * outcome ({@link dev.turntable.jmx.AgentLoadStatus}); 1 to 32 characters of 0-9 and a-f.
     */
    static final String ATTACH_ID = "attach-id";
    private static final Pattern ATTACH_ID_VALUE = Pattern.compile("[0-9a-f]{1,32}");

    private static final Pattern POOL_NAME_KEY = Pattern.compile("pool\\.(.+)\\.name");
    static final String UNTOUCHED = "leaving the application untouched";
    /** How a line names a value's source when it is the config file (agent options name none). */
    static final String FROM_FILE = " (config file)";
    /** What a bad value of a task-class key leads to: all of them are applied, or none. */
    static final String CLASSES_OFF = "task classes stay off";

    /** Reads a config file. */
    interface ConfigLoader {
        Properties load(String path) throws IOException;
    }

    /**
     * What the parse gives: the effective options, the lines to print, whether a problem makes
     * it unsafe to take over anything at all, and the problems alone, without what the agent
     * would do about each (for a client that refuses them and loads nothing).
     */
    record Result(Options options, List<String> messages, boolean untouched, List<String> problems) {
    }

    private OptionsParser() {
    }

    static Result parse(String agentArgs, Properties system) {
        return parse(agentArgs, system, OptionsParser::loadFile);
    }

    static Result parse(String agentArgs, Properties system, ConfigLoader loader) {
        OptionLines messages = new OptionLines();
        boolean untouched = false;

        OptionSource args = OptionSource.agentOptions();
        OptionSource properties = OptionSource.systemProperties();
        OptionSource file = OptionSource.configFile();
        List<OptionSource> byPrecedence = List.of(args, properties, file);
        if (agentArgs != null) {
            for (String item : agentArgs.split(",")) {
                String t = item.trim();
                if (t.isEmpty()) {
                    continue;
                }
                int eq = t.indexOf('=');
                if (eq <= 0) {
                    messages.add("option '" + t + "' is not key=value (options are separated by ',', list"
                            + " entries inside a value by ';'; in a regex, write a literal ',' or ';' as \\x2C or \\x3B)", UNTOUCHED);
                    untouched = true;
                    continue;
                }
                String key = normaliseKey(t.substring(0, eq));
                args.record(key, key, t.substring(eq + 1).trim());
            }
        }

        // -Dturntable.<key>, by key as the other sources are (any case), with each one's own name.
        for (String name : new java.util.TreeSet<>(system.stringPropertyNames())) {
            if (name.regionMatches(true, 0, PROPERTY_PREFIX, 0, PROPERTY_PREFIX.length())) {
                properties.record(normaliseKey(name.substring(PROPERTY_PREFIX.length())), name, system.getProperty(name).trim());
            }
        }

        OptionSource configFrom = args.has(CONFIG) ? args : properties;
        String configPath = configFrom.value(CONFIG);
        String configSource = configFrom.where(CONFIG);
        List<OptionSource.Given> configsGiven = configFrom.differing(CONFIG);
        List<OptionSource.Given> overriddenConfigs = configFrom == args ? properties.differing(CONFIG) : null;
        if (overriddenConfigs != null) {
            messages.add(properties.givenMoreThanOnce(CONFIG, overriddenConfigs), overriddenBy(CONFIG + "=" + configPath));
        }
        if (configsGiven != null) {
            messages.add(configFrom.givenMoreThanOnce(CONFIG, configsGiven), UNTOUCHED);
            untouched = true;
        } else if (configPath != null && configPath.isBlank()) {
            // Most likely an unset variable in a launch script: the file meant may narrow include.
            messages.add("option config=" + configSource + " is not allowed: the path of a readable .properties file",
                    UNTOUCHED);
            untouched = true;
        } else if (configPath != null) {
            try {
                Properties p = loader.load(configPath.trim());
                if (p instanceof OrderedProperties) {
                    ((OrderedProperties) p).repeated().forEach((name, values) -> {
                        for (String v : values) {
                            String key = normaliseKey(name);
                            file.record(key, key, v.trim());
                        }
                    });
                }
                for (String name : p instanceof OrderedProperties ? ((OrderedProperties) p).names() : p.stringPropertyNames()) {
                    String key = normaliseKey(name);
                    file.record(key, key, p.getProperty(name).trim());
                }
                String nested = file.value(CONFIG);
                if (nested != null) {
                    messages.add("option config=" + nested + FROM_FILE + " is not allowed: a config file cannot name"
                            + " another", "ignored");
                }
            } catch (IOException | RuntimeException e) {
                messages.add("option config=" + configPath + " cannot be read (" + e + absolute(configPath.trim())
                        + "), allowed: a readable .properties file", UNTOUCHED);
                untouched = true;
            }
        }
        reportUnknown(args, true, messages);
        reportUnknown(properties, false, messages);
        reportUnknown(file, true, messages);

        Map<OptionKey, Object> values = new EnumMap<>(OptionKey.class);
        Map<OptionKey, String> raws = new EnumMap<>(OptionKey.class);
        Map<OptionKey, String> sources = new EnumMap<>(OptionKey.class);
        boolean classesOff = false;
        for (OptionKey k : OptionKey.values()) {
            OptionSource from = firstWith(byPrecedence, k.key);
            if (from == null) {
                continue;
            }
            String raw = from.value(k.key);
            String source = from.where(k.key);
            List<OptionSource.Given> given = from.differing(k.key);
            if (given != null && !sameMeaning(k, given)) {
                // Which was meant is anyone's guess: handled as a value that is not allowed.
                String text = from.givenMoreThanOnce(k.key, given);
                if (OptionKey.TASK_CLASS_KEYS.contains(k)) {
                    messages.add(text, CLASSES_OFF);
                    classesOff = true;
                } else {
                    messages.add(text, k.safeToDefault ? "using the default " + shown(k) : UNTOUCHED);
                    untouched |= !k.safeToDefault;
                }
                continue;
            }
            // A bad value where a source of higher precedence sets the key is not used, but it is
            // still a mistake in a file or a launch script that will bite once that source goes.
            String winner = k.key + "=" + raw + source;
            for (OptionSource lower : below(byPrecedence, from)) {
                reportOverridden(k, lower, winner, messages);
            }
            try {
                values.put(k, k.parse(raw));
                raws.put(k, raw);
                sources.put(k, source);
            } catch (IllegalArgumentException e) {
                if (OptionKey.TASK_CLASS_KEYS.contains(k)) {
                    messages.add(notAllowed(k, raw, source, e), CLASSES_OFF);
                    classesOff = true;
                    continue;
                }
                messages.add(notAllowed(k, raw, source, e), k.safeToDefault ? "using the default " + shown(k) : UNTOUCHED);
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
                String text = "option " + OptionKey.REQUESTOR_MAP.key + "=" + raws.get(OptionKey.REQUESTOR_MAP)
                        + sources.getOrDefault(OptionKey.REQUESTOR_MAP, "") + " is not allowed: " + e.getMessage();
                if ("".equals(sources.get(OptionKey.REQUESTOR_MAP)) && "".equals(sources.get(OptionKey.CLASS_LOAD_PERCENTS))) {
                    messages.add(text, CLASSES_OFF);
                } else {
                    messages.addContextual(text, CLASSES_OFF); // one of them may come from the target
                }
                classesOff = true;
            }
        } else if (!classesOff && !map.isEmpty()) {
            // Contextual: a client checking its agent options alone cannot see shares the target sets.
            messages.addContextual("option " + OptionKey.REQUESTOR_MAP.key + "=" + raws.get(OptionKey.REQUESTOR_MAP)
                    + sources.getOrDefault(OptionKey.REQUESTOR_MAP, "") + " has no effect without "
                    + OptionKey.CLASS_LOAD_PERCENTS.key, "task classes are off");
        }
        if (classesOff) {
            values.remove(OptionKey.CLASS_LOAD_PERCENTS);
            values.remove(OptionKey.REQUESTOR_MAP);
            notes.put(OptionKey.CLASS_LOAD_PERCENTS, CLASSES_OFF + ": a task-class option was not allowed");
        }

        List<Options.PoolNameRule> rules = poolNames(byPrecedence, messages);
        return new Result(new Options(values, rules, notes), messages.lines(untouched), untouched, messages.problems());
    }

    /**
     * The {@code pool.<creation-site-glob>.name} rules, in the order their keys first appear (the
     * config file's first), each from the source of highest precedence that gives it.
     */
    private static List<Options.PoolNameRule> poolNames(List<OptionSource> byPrecedence, OptionLines messages) {
        java.util.Set<String> keys = new java.util.LinkedHashSet<>();
        for (int i = byPrecedence.size() - 1; i >= 0; i--) {
            for (String key : byPrecedence.get(i).values.keySet()) {
                if (key.startsWith("pool.")) {
                    keys.add(key);
                }
            }
        }
        List<Options.PoolNameRule> rules = new ArrayList<>();
        for (String key : keys) {
            OptionSource from = firstWith(byPrecedence, key);
            String name = from.value(key);
            List<OptionSource.Given> given = from.differing(key);
            if (given != null) {
                messages.add(from.givenMoreThanOnce(key, given), "using the default name");
                continue;
            }
            for (OptionSource lower : below(byPrecedence, from)) {
                List<OptionSource.Given> repeats = lower.differing(key);
                if (repeats != null) {
                    messages.add(lower.givenMoreThanOnce(key, repeats), overriddenBy(key + "=" + name + from.where(key)));
                }
            }
            java.util.regex.Matcher m = POOL_NAME_KEY.matcher(key);
            if (!m.matches() || !validPoolName(name)) {
                messages.add("option " + key + "=" + name + " is not allowed: pool.<creation-site-glob>.name"
                        + " with a name of letters, digits, '.', '_' and '-', not ending in -<digits>", "using the default name");
                continue;
            }
            rules.add(new Options.PoolNameRule(Glob.of(m.group(1)), name));
        }
        return rules;
    }

    /** The source of highest precedence that gives {@code key}, or null. */
    private static OptionSource firstWith(List<OptionSource> byPrecedence, String key) {
        for (OptionSource s : byPrecedence) {
            if (s.has(key)) {
                return s;
            }
        }
        return null;
    }

    /** The sources that {@code from} overrides: those after it. */
    private static List<OptionSource> below(List<OptionSource> byPrecedence, OptionSource from) {
        return byPrecedence.subList(byPrecedence.indexOf(from) + 1, byPrecedence.size());
    }

    /** What follows from a mistake in a source that {@code winner} ({@code key=value<source>}) overrides. */
    private static String overriddenBy(String winner) {
        return "not used, " + winner + " takes precedence";
    }

    /**
     * Whether every value given for {@code k} means the same once parsed ({@code fair_share}
     * and {@code FAIR_SHARE}, {@code a;b} and {@code a; b}): no mistake then. A value that does
     * not parse differs from every other.
     */
    private static boolean sameMeaning(OptionKey k, List<OptionSource.Given> given) {
        String first = null;
        for (OptionSource.Given g : given) {
            String text;
            try {
                text = Options.text(k, k.parse(g.value()));
            } catch (IllegalArgumentException e) {
                return false;
            }
            if (first == null) {
                first = text;
            } else if (!first.equals(text)) {
                return false;
            }
        }
        return true;
    }

    /** The {@value #ATTACH_ID} among the agent options, or null if there is none (or it is not an id). */
    static String attachId(String agentArgs) {
        if (agentArgs == null) {
            return null;
        }
        String id = null;
        for (String item : agentArgs.split(",")) {
            int eq = item.indexOf('=');
            if (eq > 0 && item.substring(0, eq).trim().equalsIgnoreCase(ATTACH_ID)) {
                String v = item.substring(eq + 1).trim();
                id = ATTACH_ID_VALUE.matcher(v).matches() ? v : null;
            }
        }
        return id;
    }

    /**
     * One line for a mistake in a source that {@code winner} overrides, if there is one: the
     * key given more than once with different values, or a value that is not allowed.
     */
    private static void reportOverridden(OptionKey k, OptionSource lower, String winner, OptionLines messages) {
        List<OptionSource.Given> repeats = lower.differing(k.key);
        if (repeats != null && !sameMeaning(k, repeats)) {
            messages.add(lower.givenMoreThanOnce(k.key, repeats), overriddenBy(winner));
            return;
        }
        String raw = lower.value(k.key);
        if (raw == null) {
            return;
        }
        try {
            k.parse(raw);
        } catch (IllegalArgumentException e) {
            messages.add(notAllowed(k, raw, lower.where(k.key), e), overriddenBy(winner));
        }
    }

    /**
     * {@code option <key>=<value><source> is not allowed: <reason>; allowed: <what>}, whichever
     * source the value comes from, used or overridden. The reason is the engine's for a task-class
     * key, or an {@link OptionKey.Explained} one (left out when it only repeats the value); the
     * other keys' reason is the value, or the part of it that is wrong, which the line shows anyway.
     */
    private static String notAllowed(OptionKey k, String raw, String source, IllegalArgumentException e) {
        raw = raw == null ? "" : raw;
        String reason = e.getMessage();
        boolean says = (e instanceof OptionKey.Explained || OptionKey.TASK_CLASS_KEYS.contains(k))
                && reason != null && !reason.isBlank() && !reason.trim().equals(raw.trim());
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

    /**
     * Keys in any case, as written in any source; a pool-name key keeps its creation-site glob as
     * written (globs match case-sensitively), with {@code pool.} and {@code .name} in lower case.
     */
    static String normaliseKey(String key) {
        String k = key.trim();
        String lower = k.toLowerCase(Locale.ROOT);
        if (lower.startsWith("pool.")) {
            return lower.endsWith(".name") && k.length() > "pool..name".length()
                    ? "pool." + k.substring(5, k.length() - 5) + ".name"
                    : "pool." + k.substring(5);
        }
        return lower;
    }

    /**
     * One line per unknown key. With its value, but for system properties: a {@code turntable.*}
     * property may be another program's, and its value is none of the agent's business to print.
     */
    private static void reportUnknown(OptionSource source, boolean showValue, OptionLines messages) {
        for (Map.Entry<String, String> e : source.values.entrySet()) {
            String k = e.getKey();
            if (OptionKey.byKey(k) == null && !k.equals(CONFIG) && !k.equals(ATTACH_ID) && !k.startsWith("pool.")) {
                String option = "unknown option " + (showValue ? k + "=" + e.getValue() : k) + source.where(k);
                String known = "known: " + String.join(", ", OptionKey.keys()) + ", config, pool.<creation-site-glob>.name";
                messages.add(option + " ignored; " + known, null, option + "; " + known);
            }
        }
    }

    /**
     * Reads a {@code .properties} file as {@link Properties#load(InputStream)} does (ISO 8859-1,
     * {@code \\u} escapes), but past a UTF-8 byte-order mark, which would otherwise become part
     * of the first key, and keeping the order of its lines for the messages.
     */
    private static Properties loadFile(String path) throws IOException {
        Path p = Paths.get(path);
        OrderedProperties props = new OrderedProperties();
        try (InputStream in = new java.io.BufferedInputStream(Files.newInputStream(p))) {
            in.mark(3);
            byte[] head = in.readNBytes(3);
            if (!(head.length == 3 && (head[0] & 0xFF) == 0xEF && (head[1] & 0xFF) == 0xBB && (head[2] & 0xFF) == 0xBF)) {
                in.reset();
            }
            props.load(in);
        }
        return props;
    }

    /** {@code "; that is <absolute path>"} for a relative path (read from this JVM's working directory), else "". */
    private static String absolute(String path) {
        try {
            Path p = Paths.get(path);
            return p.isAbsolute() ? "" : "; that is " + p.toAbsolutePath();
        } catch (RuntimeException e) {
            return "";
        }
    }

    /** Properties that remember the order in which {@code load} put their keys. */
    static final class OrderedProperties extends Properties {
        private static final long serialVersionUID = 1L;
        private final java.util.Set<String> names = new java.util.LinkedHashSet<>();
        /** Keys a later line set again, with each earlier value, in order (the last one is the property's). */
        private final Map<String, List<String>> earlier = new LinkedHashMap<>();

        @Override
        public synchronized Object put(Object key, Object value) {
            if (key instanceof String) {
                names.add((String) key);
                Object before = get(key);
                if (before instanceof String) {
                    earlier.computeIfAbsent((String) key, k -> new ArrayList<>()).add((String) before);
                }
            }
            return super.put(key, value);
        }

        /** The values that later lines replaced, by key. */
        synchronized Map<String, List<String>> repeated() {
            return earlier;
        }

        /** The string keys, in the order they were first put. */
        synchronized List<String> names() {
            List<String> out = new ArrayList<>();
            for (String n : names) {
                if (getProperty(n) != null) {
                    out.add(n);
                }
            }
            return out;
        }
    }
}
