package dev.turntable.jmx.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * An aligned text table for turntablectl's human output: columns padded to their widest cell,
 * numbers right-aligned, everything else left-aligned. Not thread-safe: one per printout.
 */
final class Table {

    private final List<String> headers;
    private final List<List<String>> rows = new ArrayList<>();

    Table(List<String> headers) {
        this.headers = List.copyOf(headers);
    }

    Table(String... headers) {
        this(List.of(headers));
    }

    Table row(List<String> cells) {
        if (cells.size() != headers.size()) {
            throw new IllegalArgumentException(cells.size() + " cells for " + headers.size() + " columns");
        }
        rows.add(List.copyOf(cells));
        return this;
    }

    Table row(String... cells) {
        return row(List.of(cells));
    }

    boolean isEmpty() {
        return rows.isEmpty();
    }

    /** Prints the header line (unless {@code withHeader} is false) and the rows. */
    void print(PrintStream out, boolean withHeader) {
        int n = headers.size();
        int[] width = new int[n];
        boolean[] numeric = new boolean[n];
        for (int c = 0; c < n; c++) {
            width[c] = withHeader ? headers.get(c).length() : 0;
            numeric[c] = !rows.isEmpty();
            for (List<String> r : rows) {
                width[c] = Math.max(width[c], r.get(c).length());
                numeric[c] &= isNumeric(r.get(c));
            }
        }
        if (withHeader) {
            out.println(line(headers, width, numeric));
        }
        for (List<String> r : rows) {
            out.println(line(r, width, numeric));
        }
    }

    void print(PrintStream out) {
        print(out, true);
    }

    private static String line(List<String> cells, int[] width, boolean[] numeric) {
        StringBuilder sb = new StringBuilder();
        for (int c = 0; c < cells.size(); c++) {
            String s = cells.get(c);
            boolean last = c == cells.size() - 1;
            int pad = width[c] - s.length();
            if (numeric[c]) {
                sb.append(" ".repeat(pad)).append(s);
            } else {
                sb.append(s);
                if (!last) {
                    sb.append(" ".repeat(pad));
                }
            }
            if (!last) {
                sb.append("  ");
            }
        }
        return sb.toString().stripTrailing();
    }

    /**
     * Numbers, fractions of a limit ({@code 48/50}) and the placeholders shown in number columns
     * ({@code -}, {@code ?}, {@code n/c}).
     */
    private static boolean isNumeric(String s) {
        return s.equals("-") || s.equals("?") || s.equals(Values.NOT_COLLECTED)
                || s.matches("[-+]?[0-9][0-9.,]*(/s|/[0-9]+)?");
    }
}
