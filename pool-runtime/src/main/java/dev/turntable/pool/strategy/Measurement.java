package dev.turntable.pool.strategy;

import java.util.Arrays;
import java.util.Locale;

/**
 * What the time-based strategies ({@code FAIR_SHARE} and the weighted round robins) measure to
 * estimate a worker's next task duration. Immutable; any thread.
 */
public enum Measurement {
    /** Wall-clock time from a task's start to its end on the worker. */
    RUN_TIME(Statistic.RUN_TIME),
    /** Time from a task's submission to its start. */
    WAIT_TIME(Statistic.WAIT_TIME),
    /** CPU time the worker thread spent inside the task (the JVM's stand-in for event-loop utilisation). */
    CPU_TIME(Statistic.CPU_TIME);

    private final Statistic statistic;

    Measurement(Statistic statistic) {
        this.statistic = statistic;
    }

    /** The raw statistic this measurement samples. */
    public Statistic statistic() {
        return statistic;
    }

    /**
     * Parses a measurement name as strategy names are read: trimmed, case-insensitively, with
     * {@code -} read as {@code _} ({@code run-time} is {@code RUN_TIME}).
     *
     * @throws IllegalArgumentException naming the value and the allowed names
     */
    public static Measurement parse(String name) {
        if (name != null) {
            String key = name.trim().toUpperCase(Locale.ROOT).replace('-', '_');
            for (Measurement m : values()) {
                if (m.name().equals(key)) {
                    return m;
                }
            }
        }
        throw new IllegalArgumentException("measurement '" + name + "' is not one of "
                + Arrays.toString(values()));
    }
}
