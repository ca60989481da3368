package dev.turntable.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How much CPU the rest of the machine used while a measurement ran: busy time of all CPUs from
 * {@code /proc/stat} minus this process's own ({@code /proc/self/stat}), and the hypervisor's
 * steal time, both in CPUs (0..nproc) averaged over the interval. On a shared 2-vCPU machine this
 * says which numbers were taken while another build competed for the CPUs. Linux only; elsewhere
 * (or if {@code /proc} cannot be read) every value is {@code NaN}.
 */
public final class CpuSampler {

    private static final double TICKS_PER_SECOND = 100.0; // USER_HZ on Linux

    private long busyTicks;
    private long stealTicks;
    private long selfTicks;
    private long nanos;
    private boolean ok;

    /** The CPUs other processes used and the steal since the last {@link #start()}. */
    public static final class Usage {
        public final double othersCpus;
        public final double stealCpus;

        Usage(double othersCpus, double stealCpus) {
            this.othersCpus = othersCpus;
            this.stealCpus = stealCpus;
        }
    }

    public void start() {
        long[] s = read();
        ok = s != null;
        if (ok) {
            busyTicks = s[0];
            stealTicks = s[1];
            selfTicks = s[2];
        }
        nanos = System.nanoTime();
    }

    public Usage stop() {
        long[] s = read();
        double seconds = (System.nanoTime() - nanos) / 1e9;
        if (!ok || s == null || seconds <= 0) {
            return new Usage(Double.NaN, Double.NaN);
        }
        double others = ((s[0] - busyTicks) - (s[2] - selfTicks)) / TICKS_PER_SECOND / seconds;
        double steal = (s[1] - stealTicks) / TICKS_PER_SECOND / seconds;
        return new Usage(Math.max(0, others), Math.max(0, steal));
    }

    /** {busy ticks of all CPUs (steal excluded), steal ticks, this process's ticks}, or null. */
    private static long[] read() {
        try {
            String cpu = Files.readAllLines(Path.of("/proc/stat")).get(0);
            String[] f = cpu.trim().split("\\s+"); // cpu user nice system idle iowait irq softirq steal ...
            long busy = Long.parseLong(f[1]) + Long.parseLong(f[2]) + Long.parseLong(f[3])
                    + Long.parseLong(f[6]) + Long.parseLong(f[7]);
            long steal = f.length > 8 ? Long.parseLong(f[8]) : 0;
            String self = Files.readString(Path.of("/proc/self/stat"));
            String[] g = self.substring(self.lastIndexOf(')') + 2).trim().split("\\s+");
            long selfTicks = Long.parseLong(g[11]) + Long.parseLong(g[12]); // utime, stime (fields 14, 15)
            return new long[] {busy, steal, selfTicks};
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
