package dev.turntable.jmx.cli;

import java.io.PrintStream;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.management.ObjectName;

/**
 * turntablectl's {@code watch}: a live view of one pool (workers, queue depth, completed per
 * second, retired workers, run-time p99, and running and waiting tasks per class while task
 * classes are on), redrawn with an ANSI clear-screen on a terminal. One instance per run, used
 * by the thread that runs the command; not thread-safe.
 */
final class Watch {

    private static final String CLEAR_SCREEN = "\033[H\033[2J";
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss");

    private final PoolMBeans mbeans;
    private final PrintStream out;
    private final boolean json;
    private final JsonDocument document;

    /** @param document where the {@code --json} document goes, or null without {@code --json} */
    Watch(PoolMBeans mbeans, PrintStream out, JsonDocument document) {
        this.mbeans = mbeans;
        this.out = out;
        this.json = document != null;
        this.document = document;
    }

    /**
     * Redraws a live view every {@code intervalMillis} until interrupted, or {@code count} times
     * ({@code count < 0}: no limit). With {@code --json} it prints one document with every frame
     * at the end, so it needs a count.
     */
    void run(String pool, long intervalMillis, long count, boolean terminal) throws CliException {
        ObjectName n = mbeans.pool(pool);
        // Appended here; copied into the document if the watch fails or a signal stops it.
        List<Map<String, Object>> frames = JsonDocument.sharedList();
        if (json) {
            document.gathering(() -> document(pool, intervalMillis, JsonDocument.copyOf(frames)));
        }
        long previousCompleted = -1;
        long previousNanos = 0;
        for (long i = 0; count < 0 || i < count; i++) {
            if (i > 0) {
                try {
                    Thread.sleep(intervalMillis);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            Map<String, Object> a = mbeans.read(n, "Strategy", "PoolSize", "ActiveCount", "QueuedTaskCount",
                    "CompletedTaskCount", "RejectedTaskCount", "LatencyHistograms", "RunTimeMillis",
                    PoolMBeans.MAX_LIFETIME, PoolMBeans.RETIRED, PoolMBeans.WORKERS,
                    PoolMBeans.CLASS_LOAD_PERCENTS, PoolMBeans.RUNNING_BY_CLASS, PoolMBeans.WAITING_BY_CLASS);
            long nowNanos = System.nanoTime();
            long completed = a.get("CompletedTaskCount") instanceof Number ? ((Number) a.get("CompletedTaskCount")).longValue() : -1;
            Double perSecond = previousCompleted < 0 || completed < 0 ? null
                    : (completed - previousCompleted) * 1e9 / Math.max(1, nowNanos - previousNanos);
            previousCompleted = completed;
            previousNanos = nowNanos;
            Object p99 = a.get("RunTimeMillis") instanceof Map ? ((Map<?, ?>) a.get("RunTimeMillis")).get("p99") : null;
            int limit = PoolTables.lifetimeLimit(a.get(PoolMBeans.MAX_LIFETIME));
            Map<String, Object> frame = new LinkedHashMap<>();
            frame.put("time", LocalTime.now().format(CLOCK));
            frame.put("strategy", a.get("Strategy"));
            frame.put("poolSize", a.get("PoolSize"));
            frame.put("active", a.get("ActiveCount"));
            frame.put("queued", a.get("QueuedTaskCount"));
            frame.put("completed", a.get("CompletedTaskCount"));
            frame.put("completedPerSecond", perSecond);
            frame.put("rejected", a.get("RejectedTaskCount"));
            frame.put("runTimeP99Millis", p99);
            frame.put("maxLifetimeTasks", a.get(PoolMBeans.MAX_LIFETIME));
            frame.put("retiredWorkers", a.get(PoolMBeans.RETIRED));
            frame.put("workers", a.get(PoolMBeans.WORKERS));
            List<Map<String, Object>> classes = PoolTables.classRows(a);
            frame.put("classes", classes);
            if (json) {
                frames.add(frame);
                continue;
            }
            if (terminal) {
                out.print(CLEAR_SCREEN);
            } else if (i > 0) {
                out.println();
            }
            out.println("pool " + pool + "  strategy " + Values.text("Strategy", a.get("Strategy"))
                    + "  every " + intervalMillis + " ms" + (count < 0 ? ", Ctrl-C stops" : "")
                    + "  " + frame.get("time"));
            out.println("workers " + Values.text("PoolSize", a.get("PoolSize"))
                    + " (active " + Values.text("ActiveCount", a.get("ActiveCount")) + ")"
                    + "  queued " + Values.text("QueuedTaskCount", a.get("QueuedTaskCount"))
                    + "  completed " + Values.text("CompletedTaskCount", a.get("CompletedTaskCount"))
                    + " (" + (perSecond == null ? "-" : String.format(Locale.ROOT, "%.1f", perSecond)) + "/s)"
                    + "  rejected " + Values.text("RejectedTaskCount", a.get("RejectedTaskCount"))
                    + retiredText(a.get(PoolMBeans.RETIRED), limit)
                    + "  run p99 " + p99Text(p99, a.get("LatencyHistograms")));
            if (!classes.isEmpty()) {
                PoolTables.printClasses(out, classes);
            }
            PoolTables.printWorkers(out, a.get(PoolMBeans.WORKERS), limit);
            out.flush();
        }
        if (json) {
            document.print(document(pool, intervalMillis, JsonDocument.copyOf(frames)));
        }
    }

    private static Map<String, Object> document(String pool, long intervalMillis, List<Map<String, Object>> frames) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("pool", pool);
        doc.put("intervalMillis", intervalMillis);
        doc.put("frames", frames);
        return doc;
    }

    /** {@code retired 12 (lifetime 50)}; nothing from a JVM without worker retirement. */
    private static String retiredText(Object retired, int limit) {
        if (retired == null) {
            return "";
        }
        return "  retired " + Values.text(PoolMBeans.RETIRED, retired) + (limit > 0 ? " (lifetime " + limit + ")" : "");
    }

    private static String p99Text(Object p99, Object histograms) {
        if (Boolean.FALSE.equals(histograms)) {
            return "n/c (set LatencyHistograms true)";
        }
        String s = Values.text("p99", p99);
        return s.equals("-") ? "- (no task in the interval)" : s + " ms";
    }
}
