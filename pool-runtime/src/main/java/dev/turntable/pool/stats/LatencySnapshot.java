package dev.turntable.pool.stats;

import java.util.Objects;
import org.HdrHistogram.Histogram;

/**
 * An immutable summary of one latency distribution (percentiles, maximum and sample count, all
 * durations in nanoseconds); any thread may create, share and read it.
 *
 * <p>Produced by {@link LatencyRecorder#intervalSnapshot()}: recording and summarising are separate
 * classes, so holders of a snapshot can never disturb the recording. Values carry the histogram's
 * precision (3 significant digits): each percentile is the highest value equivalent to the recorded
 * one, at most 0.1% above it.
 */
public final class LatencySnapshot {

    /** The summary of no samples: every value is {@code 0}. */
    public static final LatencySnapshot EMPTY = new LatencySnapshot(0, 0, 0, 0, 0, 0);

    private final long p50Nanos;
    private final long p90Nanos;
    private final long p99Nanos;
    private final long p999Nanos;
    private final long maxNanos;
    private final long count;

    private LatencySnapshot(long p50Nanos, long p90Nanos, long p99Nanos, long p999Nanos,
                            long maxNanos, long count) {
        this.p50Nanos = p50Nanos;
        this.p90Nanos = p90Nanos;
        this.p99Nanos = p99Nanos;
        this.p999Nanos = p999Nanos;
        this.maxNanos = maxNanos;
        this.count = count;
    }

    /**
     * Summarises a histogram of nanosecond values; {@link #EMPTY} when it holds no samples. The
     * caller must keep {@code histogram} unchanged during the call; the result does not refer to it.
     */
    public static LatencySnapshot of(Histogram histogram) {
        Objects.requireNonNull(histogram, "histogram");
        long total = histogram.getTotalCount();
        if (total == 0) {
            return EMPTY;
        }
        return new LatencySnapshot(
                histogram.getValueAtPercentile(50.0),
                histogram.getValueAtPercentile(90.0),
                histogram.getValueAtPercentile(99.0),
                histogram.getValueAtPercentile(99.9),
                histogram.getMaxValue(),
                total);
    }

    /** Median (50th percentile), nanoseconds. */
    public long p50Nanos() {
        return p50Nanos;
    }

    /** 90th percentile, nanoseconds. */
    public long p90Nanos() {
        return p90Nanos;
    }

    /** 99th percentile, nanoseconds. */
    public long p99Nanos() {
        return p99Nanos;
    }

    /** 99.9th percentile, nanoseconds. */
    public long p999Nanos() {
        return p999Nanos;
    }

    /** Largest sample, nanoseconds (to histogram precision). */
    public long maxNanos() {
        return maxNanos;
    }

    /**
     * Number of samples summarised: a count of tasks only where every task is recorded. A pool's
     * wait-time snapshot ({@code TurntableQueue.waitTimeSnapshot()}) summarises a 1-in-8 sample
     * of its tasks, and an interval's snapshot may lack samples a worker had not yet flushed.
     */
    public long count() {
        return count;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof LatencySnapshot)) {
            return false;
        }
        LatencySnapshot that = (LatencySnapshot) o;
        return p50Nanos == that.p50Nanos && p90Nanos == that.p90Nanos && p99Nanos == that.p99Nanos
                && p999Nanos == that.p999Nanos && maxNanos == that.maxNanos && count == that.count;
    }

    @Override
    public int hashCode() {
        return Objects.hash(p50Nanos, p90Nanos, p99Nanos, p999Nanos, maxNanos, count);
    }

    @Override
    public String toString() {
        return "LatencySnapshot{count=" + count
                + ", p50Nanos=" + p50Nanos
                + ", p90Nanos=" + p90Nanos
                + ", p99Nanos=" + p99Nanos
                + ", p999Nanos=" + p999Nanos
                + ", maxNanos=" + maxNanos + '}';
    }
}
