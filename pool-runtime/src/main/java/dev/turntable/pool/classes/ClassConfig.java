package dev.turntable.pool.classes;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The task classes of a pool: each class's load share, the requestor-to-class map and the
 * rebalancing settings. Immutable; any thread.
 *
 * <h2>Text forms</h2>
 * <ul>
 * <li>{@code class-load-percents}: {@code name:share} entries separated by {@code ;}, e.g.
 * {@code interactive:75;batch:25}. A name is {@code [A-Za-z0-9._-]+}; a share is an integer from
 * 0 to {@value #MAX_SHARE}. Shares are relative: when they do not sum to 100 they are
 * normalised (see {@link #normalisedPercents()}); a positive share below 1% of the total is
 * rejected rather than silently normalised to 0%. At least one share must be above 0. A class
 * at 0% never starts a task: its tasks wait until its share is raised.</li>
 * <li>{@code requestor-map}: {@code regex:class} entries separated by {@code ;}, e.g.
 * {@code http-.*:interactive;report-.*:batch}. Each entry is split at its <em>last</em>
 * {@code :}, so a regex may contain {@code :} (class names cannot). It may be empty or null (the
 * option's default): every requestor then goes to the fallback class. A regex cannot contain
 * {@code ;}; write {@code \x3B} for it. Entries are tried in the order given and the first whose
 * regex matches the <em>whole</em> requestor wins, so a regex may appear only once.</li>
 * </ul>
 * Whitespace around entries, names, shares and regexes is ignored (write {@code \x20} for a
 * leading or trailing space of a regex); empty entries (e.g. a trailing {@code ;}) are ignored.
 * {@link #classLoadPercentsText()} and {@link #requestorMapText()} give texts that parse back to
 * an equal configuration.
 *
 * <h2>Class order</h2>
 * The planner's order, used by every index-based method here and in {@link LoadSnapshot} and
 * {@link LoadPlan}, is share descending, then name ascending. A requestor that matches no
 * regex goes to the class with the smallest normalised share (ties: the alphabetically first
 * name), as in Scoot; if that class is at 0%, such tasks never start.
 */
public final class ClassConfig {

    /** The largest share accepted for one class. */
    public static final int MAX_SHARE = 1_000_000;
    /** The largest rebalance threshold accepted: no spread can exceed 200 percentage points. */
    public static final int MAX_REBALANCE_THRESHOLD_PERCENT = 200;
    /** Scoot's default minimum time over the threshold before rebalancing: 4 minutes. */
    public static final long DEFAULT_REBALANCE_MINIMUM_DURATION_NANOS = TimeUnit.MINUTES.toNanos(4);

    private static final Pattern CLASS_NAME = Pattern.compile("[A-Za-z0-9._-]+");

    private final String[] names;            // planner order
    private final int[] shares;              // planner order, as configured
    private final int[] percents;            // planner order, normalised to sum to 100
    private final String[] inputOrderNames;  // order given in the text
    private final Pattern[] regexes;         // order given
    private final int[] regexClass;          // planner index per regex
    private final int fallbackClass;
    private final int rebalanceThresholdPercent;
    private final long rebalanceMinimumDurationNanos;

    private ClassConfig(String[] inputOrderNames, int[] inputShares, Pattern[] regexes,
                        String[] regexClassNames, int thresholdPercent, long minimumDurationNanos) {
        int n = inputOrderNames.length;
        Integer[] idx = new Integer[n];
        for (int i = 0; i < n; i++) {
            idx[i] = i;
        }
        Arrays.sort(idx, (a, b) -> inputShares[a] != inputShares[b]
                ? Integer.compare(inputShares[b], inputShares[a])
                : inputOrderNames[a].compareTo(inputOrderNames[b]));
        this.names = new String[n];
        this.shares = new int[n];
        for (int i = 0; i < n; i++) {
            names[i] = inputOrderNames[idx[i]];
            shares[i] = inputShares[idx[i]];
        }
        this.percents = normalise(names, shares);
        this.inputOrderNames = inputOrderNames.clone();
        this.regexes = regexes;
        this.regexClass = new int[regexes.length];
        for (int r = 0; r < regexes.length; r++) {
            regexClass[r] = classIndex(regexClassNames[r]);
        }
        int fallback = n - 1;
        for (int i = n - 2; i >= 0; i--) {
            if (percents[i] < percents[fallback]
                    || (percents[i] == percents[fallback] && names[i].compareTo(names[fallback]) < 0)) {
                fallback = i;
            }
        }
        this.fallbackClass = fallback;
        this.rebalanceThresholdPercent = thresholdPercent;
        this.rebalanceMinimumDurationNanos = minimumDurationNanos;
    }

    /**
     * Parses both texts; rebalancing off (threshold 0) with Scoot's default minimum duration.
     *
     * @throws IllegalArgumentException naming the offending value and what is allowed
     */
    public static ClassConfig parse(String classLoadPercents, String requestorMap) {
        return parse(classLoadPercents, requestorMap, 0, DEFAULT_REBALANCE_MINIMUM_DURATION_NANOS);
    }

    /**
     * Parses both texts and takes the rebalancing settings.
     *
     * @param rebalanceThresholdPercent delta entitlement spread, in percentage points, that must be
     *     exceeded before rebalancing; 0 turns rebalancing off; 0 to {@value #MAX_REBALANCE_THRESHOLD_PERCENT}
     * @param rebalanceMinimumDurationNanos how long the spread must stay above the threshold; at
     *     least 0 (0: the second consecutive plan over the threshold rebalances)
     * @throws IllegalArgumentException naming the offending value and what is allowed
     */
    public static ClassConfig parse(String classLoadPercents, String requestorMap,
                                    int rebalanceThresholdPercent, long rebalanceMinimumDurationNanos) {
        checkRebalanceThreshold(rebalanceThresholdPercent);
        if (rebalanceMinimumDurationNanos < 0) {
            throw new IllegalArgumentException("rebalance minimum duration " + rebalanceMinimumDurationNanos
                    + " ns is not allowed: nanoseconds from 0 to " + Long.MAX_VALUE);
        }
        List<String> names = new ArrayList<>();
        List<Integer> shares = new ArrayList<>();
        long total = 0;
        for (String entry : entries(classLoadPercents, "class-load-percents", "interactive:75;batch:25")) {
            int colon = entry.lastIndexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException("class-load-percents entry '" + entry
                        + "' has no ':'; expected name:share, e.g. batch:25");
            }
            String name = checkName(entry.substring(0, colon).trim(), "class-load-percents entry '" + entry + "'");
            if (names.contains(name)) {
                throw new IllegalArgumentException("class-load-percents names class '" + name
                        + "' twice; each class may appear once");
            }
            String shareText = entry.substring(colon + 1).trim();
            int share;
            try {
                // ASCII digits only: parseInt also takes a sign and other scripts' digits ('٥').
                share = shareText.chars().allMatch(c -> c >= '0' && c <= '9') ? Integer.parseInt(shareText) : -1;
            } catch (NumberFormatException e) {
                share = -1;
            }
            if (share < 0 || share > MAX_SHARE) {
                throw new IllegalArgumentException("share '" + shareText + "' of class '" + name
                        + "' is not allowed: an integer from 0 to " + MAX_SHARE);
            }
            names.add(name);
            shares.add(share);
            total += share;
        }
        if (total == 0) {
            throw new IllegalArgumentException("class-load-percents '" + classLoadPercents
                    + "' gives every class 0; at least one class needs a share above 0");
        }
        for (int i = 0; i < names.size(); i++) {
            if (shares.get(i) > 0 && shares.get(i) * 100L < total) {
                throw new IllegalArgumentException("share " + shares.get(i) + " of class '" + names.get(i)
                        + "' is below 1% of the total " + total + " and would normalise to 0%;"
                        + " give it 0 explicitly or a share of at least 1% of the total");
            }
        }
        List<Pattern> regexes = new ArrayList<>();
        List<String> regexClasses = new ArrayList<>();
        for (String entry : entries(requestorMap, "requestor-map", null)) {
            int colon = entry.lastIndexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException("requestor-map entry '" + entry
                        + "' has no ':'; expected regex:class, e.g. report-.*:batch");
            }
            String regex = entry.substring(0, colon).trim();
            String cls = entry.substring(colon + 1).trim();
            for (Pattern earlier : regexes) {
                if (earlier.pattern().equals(regex)) {
                    // The first entry always wins, so this one could never match; and a map keyed
                    // by regex (RequestorMap) could show only one of the two.
                    throw new IllegalArgumentException("requestor-map names regex '" + regex
                            + "' twice; each regex may appear once (the first entry for it always wins)");
                }
            }
            if (!names.contains(cls)) {
                throw new IllegalArgumentException("requestor-map entry '" + entry + "' names class '" + cls
                        + "', which is not in class-load-percents; allowed: " + names);
            }
            try {
                regexes.add(Pattern.compile(regex));
            } catch (PatternSyntaxException e) {
                throw new IllegalArgumentException("requestor-map regex '" + regex
                        + "' is not a valid java.util.regex pattern: " + e.getDescription()
                        + " near index " + e.getIndex(), e);
            }
            regexClasses.add(cls);
        }
        int[] shareArray = new int[shares.size()];
        for (int i = 0; i < shareArray.length; i++) {
            shareArray[i] = shares.get(i);
        }
        return new ClassConfig(names.toArray(new String[0]), shareArray, regexes.toArray(new Pattern[0]),
                regexClasses.toArray(new String[0]), rebalanceThresholdPercent, rebalanceMinimumDurationNanos);
    }

    /**
     * Checks a rebalance threshold as {@link #parse(String, String, int, long)} does, without
     * building a configuration (a builder checks one per pool).
     *
     * @throws IllegalArgumentException naming the value and what is allowed
     */
    public static void checkRebalanceThreshold(int rebalanceThresholdPercent) {
        if (rebalanceThresholdPercent < 0 || rebalanceThresholdPercent > MAX_REBALANCE_THRESHOLD_PERCENT) {
            throw new IllegalArgumentException("rebalance threshold " + rebalanceThresholdPercent
                    + " is not allowed: percentage points from 0 (off) to " + MAX_REBALANCE_THRESHOLD_PERCENT);
        }
    }

    /** Scoot's defaults: one class {@code c0:100}, requestor map {@code .*:c0}, rebalancing off. */
    public static ClassConfig defaults() {
        return parse("c0:100", ".*:c0");
    }

    /** This configuration with other rebalancing settings (same rules as {@link #parse(String, String, int, long)}). */
    public ClassConfig withRebalancing(int thresholdPercent, long minimumDurationNanos) {
        return parse(classLoadPercentsText(), requestorMapText(), thresholdPercent, minimumDurationNanos);
    }

    /** Number of classes. */
    public int classCount() {
        return names.length;
    }

    /** The class names in planner order (share descending, then name ascending). */
    public List<String> classNames() {
        return List.of(names);
    }

    /** The name of the class at {@code classIndex} (planner order). */
    public String className(int classIndex) {
        return names[classIndex];
    }

    /** The planner index of the class called {@code name}, or -1 if there is none. */
    public int classIndex(String name) {
        for (int i = 0; i < names.length; i++) {
            if (names[i].equals(name)) {
                return i;
            }
        }
        return -1;
    }

    /** The share of class {@code classIndex} as configured (before normalisation). */
    public int configuredShare(int classIndex) {
        return shares[classIndex];
    }

    /** The normalised percent of class {@code classIndex}; all of them sum to 100. */
    public int normalisedPercent(int classIndex) {
        return percents[classIndex];
    }

    /** Configured shares by class name, in the order the text gave them; unmodifiable. */
    public Map<String, Integer> configuredShares() {
        Map<String, Integer> out = new LinkedHashMap<>();
        for (String name : inputOrderNames) {
            out.put(name, shares[classIndex(name)]);
        }
        return Collections.unmodifiableMap(out);
    }

    /**
     * Normalised percents by class name, in planner order; unmodifiable; they sum to 100. When the
     * shares sum to 100 they are kept; otherwise every class but the first (largest share) gets
     * {@code floor(share * 100 / total)} and the first gets 100 minus the others.
     */
    public Map<String, Integer> normalisedPercents() {
        Map<String, Integer> out = new LinkedHashMap<>();
        for (int i = 0; i < names.length; i++) {
            out.put(names[i], percents[i]);
        }
        return Collections.unmodifiableMap(out);
    }

    /**
     * The planner index of the class of {@code requestor} ({@code null} is read as ""): the class
     * of the first regex, in the order given, that matches the whole requestor; else
     * {@link #fallbackClassIndex()}. Costs one regex match per entry tried.
     */
    public int classIndexFor(String requestor) {
        String r = requestor == null ? "" : requestor;
        for (int i = 0; i < regexes.length; i++) {
            if (regexes[i].matcher(r).matches()) {
                return regexClass[i];
            }
        }
        return fallbackClass;
    }

    /** The name of the class of {@code requestor}; see {@link #classIndexFor(String)}. */
    public String classFor(String requestor) {
        return names[classIndexFor(requestor)];
    }

    /** The class of requestors no regex matches: smallest normalised percent, ties by name. */
    public int fallbackClassIndex() {
        return fallbackClass;
    }

    /** Spread threshold in percentage points; 0 means rebalancing is off. */
    public int rebalanceThresholdPercent() {
        return rebalanceThresholdPercent;
    }

    /** How long the spread must stay above the threshold before tasks are stopped. */
    public long rebalanceMinimumDurationNanos() {
        return rebalanceMinimumDurationNanos;
    }

    /** Whether rebalancing is on (threshold above 0). */
    public boolean rebalancingEnabled() {
        return rebalanceThresholdPercent > 0;
    }

    /** The {@code class-load-percents} text, entries in the order given; parses back to the same shares. */
    public String classLoadPercentsText() {
        StringBuilder sb = new StringBuilder();
        for (String name : inputOrderNames) {
            sb.append(sb.length() == 0 ? "" : ";").append(name).append(':').append(shares[classIndex(name)]);
        }
        return sb.toString();
    }

    /** The {@code requestor-map} text, entries in the order given; parses back to the same map. */
    public String requestorMapText() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < regexes.length; i++) {
            sb.append(i == 0 ? "" : ";").append(regexes[i].pattern()).append(':').append(names[regexClass[i]]);
        }
        return sb.toString();
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof ClassConfig)) {
            return false;
        }
        ClassConfig c = (ClassConfig) o;
        return rebalanceThresholdPercent == c.rebalanceThresholdPercent
                && rebalanceMinimumDurationNanos == c.rebalanceMinimumDurationNanos
                && classLoadPercentsText().equals(c.classLoadPercentsText())
                && requestorMapText().equals(c.requestorMapText());
    }

    @Override
    public int hashCode() {
        return Objects.hash(classLoadPercentsText(), requestorMapText(), rebalanceThresholdPercent,
                rebalanceMinimumDurationNanos);
    }

    /**
     * {@code class-load-percents=<text> requestor-map=<text> rebalance-threshold=<n>
     * rebalance-minimum-duration-nanos=<n> normalised=<map>}; the two texts are those of
     * {@link #classLoadPercentsText()} and {@link #requestorMapText()}.
     */
    @Override
    public String toString() {
        return "class-load-percents=" + classLoadPercentsText() + " requestor-map=" + requestorMapText()
                + " rebalance-threshold=" + rebalanceThresholdPercent
                + " rebalance-minimum-duration-nanos=" + rebalanceMinimumDurationNanos
                + " normalised=" + normalisedPercents();
    }

    private static int[] normalise(String[] names, int[] shares) {
        long total = 0;
        for (int s : shares) {
            total += s;
        }
        int[] out = new int[shares.length];
        int others = 0;
        for (int i = 1; i < shares.length; i++) {
            out[i] = (int) (shares[i] * 100L / total);
            others += out[i];
        }
        out[0] = 100 - others;
        return out;
    }

    private static String checkName(String name, String where) {
        if (!CLASS_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(where + " has class name '" + name
                    + "'; a class name is one or more of A-Z a-z 0-9 . _ -");
        }
        return name;
    }

    private static List<String> entries(String text, String what, String example) {
        List<String> out = new ArrayList<>();
        if (text != null) {
            for (String e : text.split(";")) {
                if (!e.trim().isEmpty()) {
                    out.add(e.trim());
                }
            }
        }
        if (out.isEmpty() && example != null) {
            throw new IllegalArgumentException(what + " '" + text + "' is empty; it needs at least one entry, e.g. "
                    + example);
        }
        return out;
    }
}
