package dev.turntable.benchmarks;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Which thread limits a pool's no-op throughput, second by second: runs
 * {@link DispatchBenchmark}'s loop (one producer, batches of {@value DispatchBenchmark#BATCH}
 * no-op tasks, two workers) outside JMH and prints, each second, the throughput and every busy
 * thread's share of a CPU and the CPU it last ran on (Linux only: read from
 * {@code /proc/self/task}). A producer near 100% is what bounds the pool; its cost per task is
 * its CPU share divided by the throughput.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.turntable.benchmarks.ThreadCpuProbe POOL [SECONDS]
 * </pre>
 *
 * <p>On this project's 2-vCPU VM it showed what the full runs call regimes: under
 * {@code LEAST_USED} the producer stayed at 85-97% of a CPU while the throughput moved between
 * 2.2 and 7.7 M/s from one second to the next, so its cost per task moved between ~120 and
 * ~430 ns with no change in scheduling; a {@code ThreadPoolExecutor}'s producer used 47-92%
 * (its workers, serialised by the queue's lock, bound it instead).
 */
public final class ThreadCpuProbe {

    /** One thread's line of {@code /proc/self/task/<tid>/stat}: name, CPU ticks, last CPU. */
    private record Sample(String name, long cpuTicks, int cpu) {
    }

    private ThreadCpuProbe() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1 || args.length > 2) {
            throw new IllegalArgumentException("usage: ThreadCpuProbe POOL [SECONDS] (POOL: TPE, FJP or a strategy name)");
        }
        String pool = args[0];
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 15;
        if (seconds <= 0) {
            throw new IllegalArgumentException("SECONDS must be positive, not " + seconds);
        }
        long ticksPerSecond = 100; // USER_HZ: the unit of utime and stime on Linux
        ExecutorService executor = Pools.create(pool, DispatchBenchmark.WORKERS, true, false);
        Thread.currentThread().setName("producer");
        Batch batch = new Batch();
        try {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            long secondEnd = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
            long ops = 0;
            Map<String, Sample> before = threads();
            while (System.nanoTime() < end) {
                batch.submitAndAwait(executor, DispatchBenchmark.BATCH, 0);
                ops += DispatchBenchmark.BATCH;
                if (System.nanoTime() >= secondEnd) {
                    Map<String, Sample> now = threads();
                    StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%6.2f M ops/s |", ops / 1e6));
                    for (Map.Entry<String, Sample> e : now.entrySet()) {
                        Sample was = before.get(e.getKey());
                        Sample is = e.getValue();
                        long percent = (is.cpuTicks - (was == null ? 0 : was.cpuTicks)) * 100 / ticksPerSecond;
                        if (percent >= 5) {
                            line.append(String.format(Locale.ROOT, " %s %d%% on cpu%d", is.name, percent, is.cpu));
                        }
                    }
                    System.out.println(line);
                    before = now;
                    ops = 0;
                    secondEnd = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
                }
            }
        } finally {
            Pools.shutdown(executor);
        }
    }

    /** Every thread of this process by {@code tid:name}. */
    private static Map<String, Sample> threads() throws IOException {
        Map<String, Sample> out = new HashMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                String stat;
                try {
                    stat = Files.readString(task.resolve("stat"));
                } catch (IOException e) {
                    continue; // the thread ended between the listing and the read
                }
                // "tid (name) state ..." where the name may hold spaces and parentheses
                int open = stat.indexOf('(');
                int close = stat.lastIndexOf(')');
                String name = stat.substring(open + 1, close);
                String[] fields = stat.substring(close + 2).split(" ");
                // fields[0] is field 3 (state): utime is field 14, stime 15, processor 39
                long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
                int cpu = Integer.parseInt(fields[36]);
                out.put(task.getFileName() + ":" + name, new Sample(name, ticks, cpu));
            }
        }
        return out;
    }
}
