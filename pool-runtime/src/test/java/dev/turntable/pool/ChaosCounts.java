package dev.turntable.pool;

import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.LongAdder;

/** What the chaos rounds did, counted by name over the whole run and printed at its end. */
final class ChaosCounts {

    private final Map<String, LongAdder> counts = new ConcurrentSkipListMap<>();

    void count(String what) {
        counts.computeIfAbsent(what, k -> new LongAdder()).increment();
    }

    void count(String what, long n) {
        counts.computeIfAbsent(what, k -> new LongAdder()).add(n);
    }

    long get(String what) {
        LongAdder a = counts.get(what);
        return a == null ? 0 : a.sum();
    }

    /** One line per name, in name order. */
    void print() {
        counts.forEach((k, v) -> System.out.println("  " + k + ": " + v.sum()));
    }
}
