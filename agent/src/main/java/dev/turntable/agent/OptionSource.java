package dev.turntable.agent;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One source of the agent's options (the agent options, the {@code -Dturntable.*} system
 * properties, or the config file): the value it gives each key (the last one given wins), every
 * value it gave each key (a key given more than once is a mistake the lines name), and how a
 * line names the source. Keys are normalised ({@link OptionsParser#normaliseKey}). Not
 * thread-safe: one parse fills and reads it.
 */
final class OptionSource {

    /** One value given for a key, as a line names it: the key, or a system property's own name. */
    record Given(String name, String value) {
        @Override
        public String toString() {
            return name + "=" + value;
        }
    }

    /** How a line about one key's value names the source, after the value ("" for the agent options; not for properties). */
    private final String where;
    /** How a line about a key given more than once names the source. */
    final String repeatWhere;
    /** Whether these are the system properties, whose lines name each value's own property. */
    private final boolean properties;

    /** By key: the value this source gives it (the last one given). */
    final Map<String, String> values = new LinkedHashMap<>();
    /** By key: every value given for it, in order. */
    private final Map<String, List<Given>> given = new LinkedHashMap<>();
    /** By key: the name of the (last) system property that gave it. */
    private final Map<String, String> names = new LinkedHashMap<>();

    private OptionSource(String where, String repeatWhere, boolean properties) {
        this.where = where;
        this.repeatWhere = repeatWhere;
        this.properties = properties;
    }

    static OptionSource agentOptions() {
        return new OptionSource("", "", false);
    }

    static OptionSource systemProperties() {
        // A repeat here is two spellings of one key (keys are read in any case): each names its property.
        return new OptionSource(null, " (system properties)", true);
    }

    static OptionSource configFile() {
        return new OptionSource(OptionsParser.FROM_FILE, OptionsParser.FROM_FILE, false);
    }

    /**
     * Notes {@code key=value}, given as {@code name} (a system property's name; else the key):
     * the source's value for the key from now on, and one more value given for it.
     */
    void record(String key, String name, String value) {
        values.put(key, value);
        names.put(key, name);
        given.computeIfAbsent(key, k -> new ArrayList<>(1)).add(new Given(properties ? name : key, value));
    }

    boolean has(String key) {
        return values.containsKey(key);
    }

    String value(String key) {
        return values.get(key);
    }

    /** How a line names this source after {@code key}'s value: "", " (config file)" or " (system property <name>)". */
    String where(String key) {
        return properties ? " (system property " + names.get(key) + ")" : where;
    }

    /** Every value given for {@code key}, if it was given more than once and not always the same text; else null. */
    List<Given> differing(String key) {
        List<Given> all = given.get(key);
        if (all == null || all.size() < 2) {
            return null;
        }
        for (Given g : all) {
            if (!g.value().equals(all.get(0).value())) {
                return all;
            }
        }
        return null;
    }

    /** {@code option <key><source> is given 2 times with different values (<key>=a, <key>=b), allowed: once}. */
    String givenMoreThanOnce(String key, List<Given> all) {
        List<String> shown = new ArrayList<>(all.size());
        for (Given g : all) {
            shown.add(g.toString());
        }
        return "option " + key + repeatWhere + " is given " + all.size() + " times with different values ("
                + String.join(", ", shown) + "), allowed: once";
    }
}
