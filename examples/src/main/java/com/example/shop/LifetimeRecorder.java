package com.example.shop;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Records the worker lifetimes Turntable publishes over JMX ({@code WorkerLifetimes} of every
 * {@code dev.turntable:type=Pool} MBean) while the shop runs, and prints them as a sawtooth: one
 * line per worker, one character per sample, the block's height the lifetime against the limit.
 * Plain JMX: the shop still does not depend on Turntable, and without the agent it records
 * nothing. {@link #start} and {@link #print} are called on the main thread; sampling runs on its
 * own daemon thread.
 */
final class LifetimeRecorder {

    private static final String LEVELS = " ▁▂▃▄▅▆▇█";

    private final long periodMillis;
    private final Map<String, List<int[]>> samples = new TreeMap<>();
    private final Map<String, Integer> limits = new TreeMap<>();
    private Thread thread;

    LifetimeRecorder(long periodMillis) {
        this.periodMillis = periodMillis;
    }

    void start() {
        thread = new Thread(this::record, "lifetime-recorder");
        thread.setDaemon(true);
        thread.start();
    }

    private void record() {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        try {
            ObjectName pattern = new ObjectName("dev.turntable:type=Pool,*");
            while (!Thread.currentThread().isInterrupted()) {
                for (ObjectName name : server.queryNames(pattern, null)) {
                    try {
                        int[] lifetimes = (int[]) server.getAttribute(name, "WorkerLifetimes");
                        int limit = (Integer) server.getAttribute(name, "MaxLifetimeTasks");
                        synchronized (samples) {
                            samples.computeIfAbsent(name.getKeyProperty("name"), k -> new ArrayList<>()).add(lifetimes);
                            limits.put(name.getKeyProperty("name"), limit);
                        }
                    } catch (Exception gone) {
                        // pool terminated meanwhile, or no such attribute: skip this sample
                    }
                }
                Thread.sleep(periodMillis); // a sampling period, not a wait for state
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            System.err.println("lifetime recorder stopped: " + e);
        }
    }

    /** Stops sampling and prints each pool's sawtooth, at most {@code width} samples wide. */
    void print(int width) {
        thread.interrupt();
        synchronized (samples) {
            if (samples.isEmpty()) {
                System.out.println("no Turntable pools seen (run under the agent to record worker lifetimes)");
                return;
            }
            samples.forEach((pool, rows) -> {
                int limit = limits.getOrDefault(pool, 0);
                int workers = rows.stream().mapToInt(r -> r.length).max().orElse(0);
                int max = limit > 0 ? limit : Math.max(1, rows.stream().flatMapToInt(java.util.Arrays::stream).max().orElse(1));
                int step = Math.max(1, (rows.size() + width - 1) / width);
                System.out.printf("worker lifetimes of %s (limit %d, one column per %d ms):%n",
                        pool, limit, step * periodMillis);
                int crowded = 0;
                for (int[] r : rows) {
                    int atLimit = 0;
                    for (int v : r) {
                        atLimit += limit > 0 && v >= limit ? 1 : 0;
                    }
                    crowded += atLimit >= 2 ? 1 : 0;
                }
                System.out.printf("  samples with two or more workers at the limit (draining together): %d of %d%n",
                        crowded, rows.size());
                for (int w = 0; w < workers; w++) {
                    StringBuilder line = new StringBuilder(String.format("  worker %-2d ", w));
                    for (int s = 0; s < rows.size(); s += step) {
                        int[] r = rows.get(s);
                        int v = w < r.length ? r[w] : 0;
                        int level = (int) Math.min(LEVELS.length() - 1, Math.round(v * 8.0 / max));
                        line.append(LEVELS.charAt(level));
                    }
                    System.out.println(line);
                }
            });
        }
    }
}
