package com.example.shop;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/** How many tasks each worker thread ran, by thread name. Any thread may count or read. */
final class TaskCounts {

    private final ConcurrentHashMap<String, LongAdder> counts = new ConcurrentHashMap<>();

    void countCurrentThread() {
        counts.computeIfAbsent(Thread.currentThread().getName(), k -> new LongAdder()).increment();
    }

    /** Thread name to count, sorted by name. */
    Map<String, Long> snapshot() {
        Map<String, Long> out = new TreeMap<>();
        counts.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }

    long total() {
        return counts.values().stream().mapToLong(LongAdder::sum).sum();
    }
}
