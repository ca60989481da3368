package dev.turntable.jmx;

import dev.turntable.pool.stats.LatencySnapshot;
import javax.management.ConstructorParameters;

/**
 * The value of {@link PoolMXBean#getRunTimeMillis()} and {@link PoolMXBean#getWaitTimeMillis()}:
 * percentiles, maximum and sample count of one latency distribution over the last interval.
 * Immutable; any thread. JMX clients see {@code CompositeData} with the items {@code p50},
 * {@code p90}, {@code p99}, {@code p999}, {@code max} (milliseconds, {@code double}) and
 * {@code count} ({@code long}).
 *
 * <p>The interval: a read ends the current interval and starts the next one, unless the
 * previous interval ended less than {@value PoolAdapter#LATENCY_INTERVAL_MIN_MILLIS} ms ago, in
 * which case the read returns the previous interval's figures again. One poller (a Prometheus
 * scrape, {@code turntablectl watch}) therefore sees exactly the tasks since its previous read;
 * several pollers split the intervals between them.
 *
 * <p>When latency histograms are off every item is {@code -1} (not collected); with no sample
 * in the interval {@code count} is {@code 0} and the times are {@code NaN}. Times carry the
 * histogram's precision of three significant digits (recorded so; the value itself is the
 * bucket's, converted from nanoseconds without rounding).
 */
public final class LatencyStats {

    private final double p50;
    private final double p90;
    private final double p99;
    private final double p999;
    private final double max;
    private final long count;

    @ConstructorParameters({"p50", "p90", "p99", "p999", "max", "count"})
    public LatencyStats(double p50, double p90, double p99, double p999, double max, long count) {
        this.p50 = p50;
        this.p90 = p90;
        this.p99 = p99;
        this.p999 = p999;
        this.max = max;
        this.count = count;
    }

    /** Every item {@code -1}: histograms are off. */
    static LatencyStats notCollected() {
        return new LatencyStats(-1, -1, -1, -1, -1, -1);
    }

    static LatencyStats of(LatencySnapshot s) {
        if (s.count() == 0) {
            return new LatencyStats(Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, 0);
        }
        return new LatencyStats(millis(s.p50Nanos()), millis(s.p90Nanos()), millis(s.p99Nanos()),
                millis(s.p999Nanos()), millis(s.maxNanos()), s.count());
    }

    static double millis(long nanos) {
        return nanos / 1_000_000.0;
    }

    /** Median, ms. */
    public double getP50() {
        return p50;
    }

    /** 90th percentile, ms. */
    public double getP90() {
        return p90;
    }

    /** 99th percentile, ms. */
    public double getP99() {
        return p99;
    }

    /** 99.9th percentile, ms. */
    public double getP999() {
        return p999;
    }

    /** Largest sample, ms. */
    public double getMax() {
        return max;
    }

    /** Samples in the interval; {@code -1} when not collected. */
    public long getCount() {
        return count;
    }

    @Override
    public String toString() {
        return "LatencyStats{count=" + count + ", p50=" + p50 + ", p90=" + p90 + ", p99=" + p99
                + ", p999=" + p999 + ", max=" + max + '}';
    }
}
