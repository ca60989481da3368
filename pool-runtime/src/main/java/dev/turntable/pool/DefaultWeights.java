package dev.turntable.pool;

/**
 * The weight a worker gets when none is configured, for the weighted round robins. Stateless;
 * any thread.
 *
 * <p>A weight is milliseconds of task time a worker receives per turn. Only ratios between
 * weights change where tasks go; the absolute value sets how long a turn is, so how many
 * consecutive tasks one worker gets. The default is {@value #BASE_WEIGHT_MILLIS} ms when every
 * worker can have a CPU of its own, and that share of a CPU when workers outnumber CPUs
 * ({@code 10 * cpus / workers}, at least 1 ms): a turn is then about one scheduler time slice
 * of the CPU time the worker can really get. Unlike a figure derived from a CPU's clock speed,
 * it is the same on every run of the same machine and never absurd (1 to 10 ms).
 */
public final class DefaultWeights {

    /** A worker's turn when it has a CPU of its own. */
    public static final long BASE_WEIGHT_MILLIS = 10;
    /** The largest weight accepted anywhere: one minute of task time per turn. */
    public static final long MAX_WEIGHT_MILLIS = 60_000;

    private DefaultWeights() {
    }

    /**
     * Checks that {@code weightsMillis} holds one weight per worker of a pool that has from
     * {@code least} to {@code most} workers.
     *
     * @param what the setting's name, which the message starts with
     * @throws IllegalArgumentException naming the weights, how many there are and how many the pool takes
     */
    public static void requireOnePerWorker(String what, long[] weightsMillis, int least, int most) {
        int n = weightsMillis.length;
        if (n < least || n > most) {
            throw new IllegalArgumentException(what + " " + java.util.Arrays.toString(weightsMillis) + " has " + n
                    + (n == 1 ? " weight" : " weights") + "; this pool takes one per worker: "
                    + (least == most ? String.valueOf(least) : least + " to " + most) + (most == 1 ? " weight" : " weights"));
        }
    }

    /**
     * The default weight in ms for a pool of {@code workers} on a machine with {@code cpus} CPUs.
     * Non-positive arguments are read as 1.
     */
    public static long weightMillis(int cpus, int workers) {
        int c = Math.max(1, cpus);
        int w = Math.max(1, workers);
        if (w <= c) {
            return BASE_WEIGHT_MILLIS;
        }
        return Math.max(1, BASE_WEIGHT_MILLIS * c / w);
    }
}
