package dev.turntable.agent;

import java.util.regex.Pattern;

/**
 * A shell-style pattern: {@code *} matches any run of characters (dots included), {@code ?} one
 * character, everything else itself, case-sensitively. Immutable; any thread.
 */
final class Glob {

    private final String text;
    private final Pattern regex;

    private Glob(String text, Pattern regex) {
        this.text = text;
        this.regex = regex;
    }

    static Glob of(String text) {
        StringBuilder rx = new StringBuilder();
        StringBuilder literal = new StringBuilder();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '*' || c == '?') {
                if (literal.length() > 0) {
                    rx.append(Pattern.quote(literal.toString()));
                    literal.setLength(0);
                }
                rx.append(c == '*' ? ".*" : ".");
            } else {
                literal.append(c);
            }
        }
        if (literal.length() > 0) {
            rx.append(Pattern.quote(literal.toString()));
        }
        return new Glob(text, Pattern.compile(rx.toString(), Pattern.DOTALL));
    }

    boolean matches(String s) {
        return s != null && regex.matcher(s).matches();
    }

    /** Wildcards in the pattern: fewer means more specific. */
    int wildcards() {
        int n = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '*' || c == '?') {
                n++;
            }
        }
        return n;
    }

    String text() {
        return text;
    }

    @Override
    public String toString() {
        return text;
    }
}
