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
    private static final String UNTOUCHED = "leaving the application untouched";
    /** How a line names a value's source when it is the config file (agent options name none). */
    private static final String FROM_FILE = " (config file)";
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
        Lines messages = new Lines();
        boolean untouched = false;

        Map<String, String> args = new LinkedHashMap<>();
        // Per source: every value given for each key, as key=value, in order (see differing).
        Map<String, List<String>> argsGiven = new LinkedHashMap<>();
        Map<String, List<String>> propertiesGiven = new LinkedHashMap<>();
        Map<String, List<String>> fileGiven = new LinkedHashMap<>();
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
                record(args, argsGiven, normaliseKey(t.substring(0, eq)), t.substring(eq + 1).trim());
            }
        }

        // -Dturntable.<key>, by key as the other sources are (any case), with each one's own name.
        Map<String, String> properties = new LinkedHashMap<>();
        Map<String, String> propertyNames = new LinkedHashMap<>();
        for (String name : new java.util.TreeSet<>(system.stringPropertyNames())) {
            if (name.regionMatches(true, 0, PROPERTY_PREFIX, 0, PROPERTY_PREFIX.length())) {
                String key = normaliseKey(name.substring(PROPERTY_PREFIX.length()));
                record(properties, propertiesGiven, key, system.getProperty(name).trim());
                propertyNames.put(key, name);
            }
        }

        Map<String, String> file = new LinkedHashMap<>();
        boolean configInArgs = args.containsKey(CONFIG);
        String configPath = configInArgs ? args.get(CONFIG) : properties.get(CONFIG);
        String configSource = configInArgs ? "" : " (system property " + propertyNames.get(CONFIG) + ")";
        List<String> configsGiven = differing(configInArgs ? argsGiven : propertiesGiven, CONFIG);
        if (configsGiven != null) {
            messages.add(givenMoreThanOnce(CONFIG, configSource, configsGiven), UNTOUCHED);
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
                            record(file, fileGiven, normaliseKey(name), v.trim());
                        }
                    });
                }
                for (String name : p instanceof OrderedProperties ? ((OrderedProperties) p).names() : p.stringPropertyNames()) {
                    record(file, fileGiven, normaliseKey(name), p.getProperty(name).trim());
                }
                String nested = file.get(CONFIG);
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
        java.util.function.UnaryOperator<String> fromProperty = k -> " (system property " + propertyNames.get(k) + ")";
        // The values given in the source a key's value came from, by how a line names that source.
        java.util.function.Function<String, Map<String, List<String>>> givenIn =
                source -> source.isEmpty() ? argsGiven : source.equals(FROM_FILE) ? fileGiven : propertiesGiven;
        reportUnknown(args, k -> "", true, messages);
        reportUnknown(properties, fromProperty, false, messages);
        reportUnknown(file, k -> FROM_FILE, true, messages);

        Map<OptionKey, Object> values = new EnumMap<>(OptionKey.class);
        Map<OptionKey, String> raws = new EnumMap<>(OptionKey.class);
        Map<OptionKey, String> sources = new EnumMap<>(OptionKey.class);
        boolean classesOff = false;
        for (OptionKey k : OptionKey.values()) {
            String raw;
            String source;
            if (args.containsKey(k.key)) {
                raw = args.get(k.key);
                source = "";
            } else if (properties.containsKey(k.key)) {
                raw = properties.get(k.key);
                source = fromProperty.apply(k.key);
            } else if (file.containsKey(k.key)) {
                raw = file.get(k.key);
                source = FROM_FILE;
            } else {
                continue;
            }
            List<String> given = differing(givenIn.apply(source), k.key);
            if (given != null && !sameMeaning(k, given)) {
                // Which was meant is anyone's guess: handled as a value that is not allowed.
                String text = givenMoreThanOnce(k.key, source, given);
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
            if (source.isEmpty() && properties.containsKey(k.key)) {
                reportShadowed(k, properties.get(k.key), fromProperty.apply(k.key), winner, messages);
            }
            if (!source.equals(FROM_FILE) && file.containsKey(k.key)) {
                reportShadowed(k, file.get(k.key), FROM_FILE, winner, messages);
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
                String then = k.safeToDefault ? "using the default " + shown(k) : UNTOUCHED;
                messages.add(e instanceof OptionKey.Explained ? notAllowed(k, raw, source, e)
                        : "option " + k.key + "=" + raw + source + " is not allowed: " + k.allowed, then);
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

        Map<String, String> names = new LinkedHashMap<>();
        collectPoolNames(file, names);
        collectPoolNames(properties, names);
        collectPoolNames(args, names);
        List<Options.PoolNameRule> rules = new ArrayList<>();
        for (Map.Entry<String, String> e : names.entrySet()) {
            String key = e.getKey();
            String source = args.containsKey(key) ? "" : properties.containsKey(key) ? fromProperty.apply(key) : FROM_FILE;
            List<String> given = differing(givenIn.apply(source), key);
            if (given != null) {
                messages.add(givenMoreThanOnce(key, source, given), "using the default name");
                continue;
            }
            java.util.regex.Matcher m = POOL_NAME_KEY.matcher(e.getKey());
            if (!m.matches() || !validPoolName(e.getValue())) {
                messages.add("option " + e.getKey() + "=" + e.getValue() + " is not allowed: pool.<creation-site-glob>.name"
                        + " with a name of letters, digits, '.', '_' and '-', not ending in -<digits>", "using the default name");
                continue;
            }
            rules.add(new Options.PoolNameRule(Glob.of(m.group(1)), e.getValue()));
        }

        return new Result(new Options(values, rules, notes), messages.lines(untouched), untouched, messages.problems());
    }

    /**
     * Puts {@code key=value} into {@code into} (the last one wins) and notes it in
     * {@code given}, every value given for the key, in order ({@link #differing}).
     */
    private static void record(Map<String, String> into, Map<String, List<String>> given, String key, String value) {
        into.put(key, value);
        given.computeIfAbsent(key, k -> new ArrayList<>(1)).add(key + "=" + value);
    }

    /** Every value given for {@code key} ({@code key=value}), if it was given more than once and not always alike; else null. */
    private static List<String> differing(Map<String, List<String>> given, String key) {
        List<String> all = given.get(key);
        if (all == null || all.size() < 2) {
            return null;
        }
        for (String kv : all) {
            if (!kv.equals(all.get(0))) {
                return all;
            }
        }
        return null;
    }

    /**
     * Whether every value given for {@code k} (as {@code key=value}) means the same once parsed
     * ({@code fair_share} and {@code FAIR_SHARE}, {@code a;b} and {@code a; b}): no mistake then.
     * A value that does not parse differs from every other.
     */
    private static boolean sameMeaning(OptionKey k, List<String> given) {
        String first = null;
        for (String kv : given) {
            String text;
            try {
                text = Options.text(k, k.parse(kv.substring(kv.indexOf('=') + 1)));
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

    /** {@code option <key> is given 2 times (<key>=a, <key>=b), allowed: once}. */
    private static String givenMoreThanOnce(String key, String source, List<String> given) {
        return "option " + key + source + " is given " + given.size() + " times with different values ("
                + String.join(", ", given) + "), allowed: once";
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
     * The lines of one parse, each a problem and what follows from it. What follows is decided
     * at the end: once any problem leaves the application untouched, "using the default" and
     * the like would be false for the others, so those lines then say the problem alone.
     */
    private static final class Lines {
        /** Per line: the problem, what follows (or null), the problem as a client refusing it reads it (or null: not one). */
        private final List<String[]> lines = new ArrayList<>();

        /** {@code then}: what follows from the problem, or null when the text says it all. */
        void add(String text, String then) {
            lines.add(new String[] {text, then, text});
        }

        /**
         * A line whose problem a client that checks the agent options alone cannot judge
         * (it depends on keys the target's system properties or config file may set).
         */
        void addContextual(String text, String then) {
            lines.add(new String[] {text, then, null});
        }

        /** A line that a client refusing the options reads as {@code clientText}. */
        void add(String text, String then, String clientText) {
            lines.add(new String[] {text, then, clientText});
        }

        List<String> problems() {
            List<String> out = new ArrayList<>(lines.size());
            for (String[] l : lines) {
                if (l[2] != null) {
                    out.add(l[2]);
                }
            }
            return List.copyOf(out);
        }

        List<String> lines(boolean untouched) {
            List<String> out = new ArrayList<>(lines.size());
            for (String[] l : lines) {
                boolean keep = l[1] != null && (!untouched || l[1].equals(UNTOUCHED));
                out.add(keep ? l[0] + "; " + l[1] : l[0]);
            }
            return List.copyOf(out);
        }
    }

    /** One line for a bad value in a source that {@code winner} overrides, if it is bad. */
    private static void reportShadowed(OptionKey k, String raw, String source, String winner, Lines messages) {
        try {
            k.parse(raw);
        } catch (IllegalArgumentException e) {
            messages.add("option " + k.key + "=" + raw + source + " is not allowed: " + k.allowed,
                    "not used, " + winner + " takes precedence");
        }
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
    private static void reportUnknown(Map<String, String> source, java.util.function.UnaryOperator<String> where,
            boolean showValue, Lines messages) {
        for (Map.Entry<String, String> e : source.entrySet()) {
            String k = e.getKey();
            if (OptionKey.byKey(k) == null && !k.equals(CONFIG) && !k.equals(ATTACH_ID) && !k.startsWith("pool.")) {
                String option = "unknown option " + (showValue ? k + "=" + e.getValue() : k) + where.apply(k);
                String known = "known: " + String.join(", ", OptionKey.keys()) + ", config, pool.<creation-site-glob>.name";
                messages.add(option + " ignored; " + known, null, option + "; " + known);
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
