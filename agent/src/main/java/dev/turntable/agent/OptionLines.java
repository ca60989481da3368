package dev.turntable.agent;

import java.util.ArrayList;
import java.util.List;

/**
 * The lines of one parse, each a problem and what follows from it. What follows is decided
 * at the end: once any problem leaves the application untouched, "using the default" and
 * the like would be false for the others, so those lines then say the problem alone. Not
 * thread-safe: one parse fills and reads it.
 */
final class OptionLines {
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
            boolean keep = l[1] != null && (!untouched || l[1].equals(OptionsParser.UNTOUCHED));
            out.add(keep ? l[0] + "; " + l[1] : l[0]);
        }
        return List.copyOf(out);
    }
}
