package dev.turntable.benchmarks;

import java.util.Arrays;
import java.util.Locale;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Busy CPU work of a given duration, as {@link Blackhole#consumeCPU} tokens calibrated against
 * {@link System#nanoTime()}. Tasks burn CPU rather than sleep: a sleeping task frees its core, and
 * the point of the heterogeneous mix is that a long task occupies a worker <em>and</em> a CPU.
 *
 * <p>Calibration runs once per JVM (lazily, on first use: for a JMH trial that is its
 * {@code @Setup(Level.Trial)}) unless the system property {@value #PROPERTY} gives the tokens per
 * microsecond. {@code run.sh} calibrates once up front and passes that value to every fork and to
 * the latency runner, so that "10 µs" is the same amount of work for every pool of a run, however
 * the machine was throttled during any one trial.
 *
 * <p>{@code java -cp benchmarks.jar dev.turntable.benchmarks.Work} prints the calibration.
 */
public final class Work {

    /** System property: {@code consumeCPU} tokens per microsecond, to skip calibration. */
    public static final String PROPERTY = "turntable.tokensPerMicro";

    private static volatile double tokensPerMicro;

    private Work() {
    }

    /** Tokens of {@link Blackhole#consumeCPU} that take about {@code nanos} of CPU on this machine. */
    public static long tokensFor(long nanos) {
        if (nanos <= 0) {
            return 0;
        }
        return Math.max(1, Math.round(tokensPerMicro() * nanos / 1000.0));
    }

    /** Burns {@code tokens} of CPU (no-op for 0). */
    public static void burn(long tokens) {
        if (tokens > 0) {
            Blackhole.consumeCPU(tokens);
        }
    }

    public static double tokensPerMicro() {
        double t = tokensPerMicro;
        if (t == 0) {
            synchronized (Work.class) {
                t = tokensPerMicro;
                if (t == 0) {
                    String given = System.getProperty(PROPERTY);
                    t = given != null && !given.isBlank() ? Double.parseDouble(given.trim()) : calibrate();
                    if (!(t > 0)) {
                        throw new IllegalStateException(PROPERTY + " must be positive: " + given);
                    }
                    tokensPerMicro = t;
                }
            }
        }
        return t;
    }

    /**
     * Measures tokens per microsecond: JIT-warms {@code consumeCPU}, then times 31 bursts of about
     * 2 ms and keeps the fastest quartile's mean. On a machine throttled in spells a slow burst
     * means the thread lost its CPU, not that the work is bigger, so the fast end is the truth.
     */
    static double calibrate() {
        long warmEnd = System.nanoTime() + 300_000_000L;
        while (System.nanoTime() < warmEnd) {
            Blackhole.consumeCPU(1_000);
        }
        // First guess of the rate, then size the bursts to ~2 ms.
        long t0 = System.nanoTime();
        Blackhole.consumeCPU(100_000);
        double guess = 100_000 / Math.max(1.0, (System.nanoTime() - t0) / 1000.0);
        long tokens = Math.max(1_000, (long) (guess * 2_000));
        double[] rates = new double[31];
        for (int i = 0; i < rates.length; i++) {
            long s = System.nanoTime();
            Blackhole.consumeCPU(tokens);
            long micros = Math.max(1, (System.nanoTime() - s) / 1000);
            rates[i] = (double) tokens / micros;
        }
        Arrays.sort(rates);
        double sum = 0;
        int n = rates.length / 4;
        for (int i = rates.length - n; i < rates.length; i++) {
            sum += rates[i];
        }
        return sum / n;
    }

    public static void main(String[] args) {
        double t = calibrate();
        if (args.length > 0 && args[0].equals("--value")) {
            System.out.println(String.format(Locale.ROOT, "%.4f", t));
            return;
        }
        System.out.printf(Locale.ROOT, "%.4f consumeCPU tokens per microsecond; 10 us = %d tokens, 1 ms = %d tokens%n",
                t, Math.round(t * 10), Math.round(t * 1000));
    }
}
