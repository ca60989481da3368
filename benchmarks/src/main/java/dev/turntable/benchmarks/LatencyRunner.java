package dev.turntable.benchmarks;

import dev.turntable.benchmarks.HeterogeneousLatencyBenchmark.Config;
import dev.turntable.benchmarks.HeterogeneousLatencyBenchmark.Result;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * Drives {@link HeterogeneousLatencyBenchmark} (JMH does not): one JVM, every pool and load
 * interleaved within each round, several rounds, one JSON file of per-round percentiles for
 * {@code run.sh}'s report to take medians of.
 *
 * <pre>
 * java -cp benchmarks.jar dev.turntable.benchmarks.LatencyRunner \
 *     [--rounds 3] [--tasks 20000] [--warmup-tasks 2000] [--loads 0.25,0.40] \
 *     [--configs TPE,FJP,LEAST_USED+steal,...] [--out latency.json] \
 *     [--quiet-wait 10 --quiet-budget 120 --quiet-cpus 0.3 --retry-budget 90]
 * </pre>
 *
 * <p>Round 0 runs every segment once with few tasks and is discarded (JIT warm-up). Round
 * {@code r} then runs the configurations in an order rotated by {@code r}, each at every load,
 * with the arrival sequence of seed {@code r} (the same for every pool of that round).
 *
 * <p>The machine is shared: a latency segment run while another build takes a CPU measures that
 * build. With {@code --quiet-wait S} each segment first waits up to S seconds for the other
 * processes to use less than {@code --quiet-cpus} CPUs (at most {@code --quiet-budget} seconds of
 * waiting in all); with {@code --retry-budget S} a segment that they disturbed anyway (at least
 * {@value #BUSY_CPUS} CPUs on average) is rerun, up to 3 attempts and S seconds of reruns in all,
 * and the attempt with the least competition is kept. The JSON records for every segment the
 * CPUs the others used, the wait and the attempts, so the report can tell quiet rounds apart.
 */
public final class LatencyRunner {

    /** A segment during which other processes used this many CPUs or more is rerun (budget permitting). */
    static final double BUSY_CPUS = 0.5;
    private static final int MAX_ATTEMPTS = 3;

    private LatencyRunner() {
    }

    public static void main(String[] args) throws IOException {
        int rounds = 3;
        int tasks = 20_000;
        int warmupTasks = 2_000;
        double[] loads = {0.25, 0.40};
        List<Config> configs = HeterogeneousLatencyBenchmark.allConfigs();
        Path out = null;
        double quietCpus = 0.3;
        double quietWaitSeconds = 0;
        double quietBudgetSeconds = 0;
        double retryBudgetSeconds = 0;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            String v = i + 1 < args.length ? args[i + 1] : null;
            switch (a) {
                case "--rounds": rounds = Integer.parseInt(v); i++; break;
                case "--tasks": tasks = Integer.parseInt(v); i++; break;
                case "--warmup-tasks": warmupTasks = Integer.parseInt(v); i++; break;
                case "--loads":
                    loads = Arrays.stream(v.split(",")).mapToDouble(Double::parseDouble).toArray();
                    i++;
                    break;
                case "--configs": configs = select(configs, v.split(",")); i++; break;
                case "--out": out = Path.of(v); i++; break;
                case "--quiet-cpus": quietCpus = Double.parseDouble(v); i++; break;
                case "--quiet-wait": quietWaitSeconds = Double.parseDouble(v); i++; break;
                case "--quiet-budget": quietBudgetSeconds = Double.parseDouble(v); i++; break;
                case "--retry-budget": retryBudgetSeconds = Double.parseDouble(v); i++; break;
                case "-h":
                case "--help":
                    System.out.println("usage: LatencyRunner [--rounds 3] [--tasks 20000] [--warmup-tasks 2000] "
                            + "[--loads 0.25,0.40] [--configs TPE,FJP,LEAST_USED+steal,...] [--out latency.json] "
                            + "[--quiet-wait SECONDS --quiet-budget SECONDS --quiet-cpus 0.3 --retry-budget SECONDS]");
                    return;
                default: throw new IllegalArgumentException("unknown argument " + a
                        + " (see --help)");
            }
        }
        if (rounds < 1 || tasks < 1 || warmupTasks < 0) {
            throw new IllegalArgumentException("rounds and tasks must be at least 1");
        }
        for (double load : loads) {
            HeterogeneousLatencyBenchmark.intervalNanos(load); // validates
        }
        PrintStream log = System.err;
        log.printf(Locale.ROOT, "latency: %d rounds x %d configs x %d loads, %d tasks (+%d warm-up) each; "
                        + "tokens/us %.2f%n", rounds, configs.size(), loads.length, tasks, warmupTasks,
                Work.tokensPerMicro());

        // Round 0: JIT warm-up of every code path, discarded.
        int warmRoundTasks = Math.max(500, Math.min(tasks, 3_000));
        for (Config c : configs) {
            for (double load : loads) {
                HeterogeneousLatencyBenchmark.run(c, load, 200, warmRoundTasks, 0);
            }
        }

        StringBuilder json = new StringBuilder();
        json.append("{\n  \"settings\": {")
                .append(String.format(Locale.ROOT,
                        "\"rounds\": %d, \"tasks\": %d, \"warmupTasks\": %d, \"workers\": %d, "
                                + "\"shortNanos\": %d, \"longNanos\": %d, \"longFraction\": %.3f, "
                                + "\"tokensPerMicro\": %.4f, \"quietCpus\": %.2f, \"quietWaitSeconds\": %.1f, "
                                + "\"quietBudgetSeconds\": %.1f, \"retryBudgetSeconds\": %.1f, \"busyCpus\": %.2f",
                        rounds, tasks, warmupTasks, HeterogeneousLatencyBenchmark.WORKERS,
                        HeterogeneousLatencyBenchmark.SHORT_NANOS, HeterogeneousLatencyBenchmark.LONG_NANOS,
                        HeterogeneousLatencyBenchmark.LONG_FRACTION, Work.tokensPerMicro(), quietCpus,
                        quietWaitSeconds, quietBudgetSeconds, retryBudgetSeconds, BUSY_CPUS))
                .append("},\n  \"results\": [");
        boolean first = true;
        for (int round = 1; round <= rounds; round++) {
            int n = configs.size();
            for (int k = 0; k < n; k++) {
                Config c = configs.get((k + round - 1) % n);
                for (double load : loads) {
                    // Under a competing build the pools are overloaded by it, not by their own
                    // load: wait for a quiet moment first, and rerun a segment that the other
                    // processes disturbed anyway, keeping the quietest attempt (chosen by the
                    // machine's load, never by the latencies it got), all within time budgets.
                    long waitedMillis = 0;
                    int attempts = 0;
                    Result r = null;
                    for (;;) {
                        if (quietWaitSeconds > 0 && quietBudgetSeconds > 0) {
                            long budgetNanos = (long) (Math.min(quietWaitSeconds, quietBudgetSeconds) * 1e9);
                            long w = waitForQuiet(quietCpus, budgetNanos);
                            waitedMillis += w;
                            quietBudgetSeconds -= w / 1000.0;
                        }
                        long t0 = System.nanoTime();
                        Result attempt = HeterogeneousLatencyBenchmark.run(c, load, warmupTasks, tasks, round);
                        attempts++;
                        double others = attempt.machine.othersCpus;
                        if (r == null || others < r.machine.othersCpus) {
                            r = attempt;
                        }
                        if (Double.isNaN(others) || others < BUSY_CPUS || attempts >= MAX_ATTEMPTS
                                || retryBudgetSeconds <= 0) {
                            break;
                        }
                        retryBudgetSeconds -= (System.nanoTime() - t0) / 1e9;
                    }
                    double achieved = r.measured * 1e9 / r.wallNanos;
                    log.printf(Locale.ROOT, "round %d  %-40s load %.2f  short p50 %8.1f p99 %9.1f p99.9 %9.1f us  "
                                    + "all p99 %9.1f us  lag p99 %7.1f us  %.0f tasks/s  others %.2f CPUs  attempts %d%n",
                            round, c.label(), load, us(r.shortTasks, 50), us(r.shortTasks, 99),
                            us(r.shortTasks, 99.9), us(r.allTasks, 99), us(r.lag, 99), achieved, r.machine.othersCpus, attempts);
                    json.append(first ? "\n" : ",\n");
                    first = false;
                    json.append(String.format(Locale.ROOT,
                            "    {\"round\": %d, \"config\": \"%s\", \"pool\": \"%s\", \"stealing\": %s, "
                                    + "\"load\": %.2f, \"achievedPerSecond\": %.1f, \"short\": %s, \"all\": %s, "
                                    + "\"lag\": %s, \"othersCpu\": %s, \"stealCpu\": %s, \"quietWaitMillis\": %d, "
                                    + "\"attempts\": %d}",
                            round, c.label(), c.pool, c.isTurntable() ? c.stealing : "null", load, achieved,
                            percentiles(r.shortTasks), percentiles(r.allTasks), percentiles(r.lag),
                            num(r.machine.othersCpus), num(r.machine.stealCpus), waitedMillis, attempts));
                }
            }
        }
        json.append("\n  ]\n}\n");
        if (out != null) {
            Files.writeString(out, json, StandardCharsets.UTF_8);
            log.println("latency: wrote " + out);
        } else {
            System.out.print(json);
        }
    }

    /**
     * Waits, up to {@code maxNanos}, until other processes use less than {@code cpus} CPUs over a
     * 100 ms sample: latency under a competing build measures the overload, not the pool. Returns
     * the milliseconds waited. The segment runs either way; its JSON says how busy the machine was.
     */
    private static long waitForQuiet(double cpus, long maxNanos) {
        long start = System.nanoTime();
        CpuSampler sampler = new CpuSampler();
        while (System.nanoTime() - start < maxNanos) {
            sampler.start();
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            double others = sampler.stop().othersCpus;
            if (Double.isNaN(others) || others < cpus) {
                break;
            }
        }
        return (System.nanoTime() - start) / 1_000_000;
    }

    private static List<Config> select(List<Config> all, String[] labels) {
        List<Config> out = new ArrayList<>();
        for (String l : labels) {
            Config found = null;
            for (Config c : all) {
                if (c.label().equals(l.trim())) {
                    found = c;
                }
            }
            if (found == null) {
                StringBuilder known = new StringBuilder();
                for (Config c : all) {
                    known.append(' ').append(c.label());
                }
                throw new IllegalArgumentException("unknown config " + l + "; known:" + known);
            }
            out.add(found);
        }
        return out;
    }

    private static String num(double v) {
        return Double.isNaN(v) ? "null" : String.format(Locale.ROOT, "%.3f", v);
    }

    private static double us(Histogram h, double percentile) {
        return h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(percentile) / 1000.0;
    }

    private static String percentiles(Histogram h) {
        return String.format(Locale.ROOT,
                "{\"count\": %d, \"p50\": %.2f, \"p90\": %.2f, \"p99\": %.2f, \"p999\": %.2f, \"max\": %.2f, \"mean\": %.2f}",
                h.getTotalCount(), us(h, 50), us(h, 90), us(h, 99), us(h, 99.9),
                h.getTotalCount() == 0 ? 0 : h.getMaxValue() / 1000.0,
                h.getTotalCount() == 0 ? 0 : h.getMean() / 1000.0);
    }
}
