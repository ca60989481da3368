package dev.turntable.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * Randomized: a hand-off pool (1-4 workers, random core, keep-alive, lifetimes, wait-time
 * stamps) whose rejection handler blocks the submitter ({@code put} or a timed {@code offer}),
 * several producers, random interrupts of producers, and a shutdown or shutdownNow at a random
 * moment. Checks that every accepted task ran once or came back from shutdownNow once (not
 * both), that no rejected task ever ran, that the pool terminates, and counts producers stranded
 * in a put after termination (as with a SynchronousQueue). 150 rounds by default (a few seconds); more with -Dstress.rounds=N
 * [-Dstress.seed=S].
 */
final class HandOffPutStressTest {

    private static final int UNKNOWN = 0;
    private static final int ACCEPTED = 1;
    private static final int REJECTED = 2;

    final Map<String, LongAdder> counts = new java.util.concurrent.ConcurrentSkipListMap<>();
    final List<String> failures = new ArrayList<>();

    void count(String what) {
        counts.computeIfAbsent(what, k -> new LongAdder()).increment();
    }

    void count(String what, long n) {
        counts.computeIfAbsent(what, k -> new LongAdder()).add(n);
    }

    @Test
    void stress() throws Exception {
        int rounds = Integer.getInteger("stress.rounds", 150);
        long seed = Long.getLong("stress.seed", System.nanoTime());
        System.out.println("stress seed " + seed + ", rounds " + rounds);
        long t0 = System.nanoTime();
        for (int r = 0; r < rounds; r++) {
            round(r, new Random(seed + r));
            if (failures.size() > 20) {
                break;
            }
        }
        System.out.printf("stress: %d rounds in %.1f s%n", rounds, (System.nanoTime() - t0) / 1e9);
        counts.forEach((k, v) -> System.out.println("  " + k + ": " + v.sum()));
        failures.forEach(f -> System.out.println("FAILURE " + f));
        assertEquals(List.of(), failures);
    }

    final class Task implements Runnable {
        final int id;
        final int spinNanos;
        final AtomicIntegerArray runs;

        Task(int id, int spinNanos, AtomicIntegerArray runs) {
            this.id = id;
            this.spinNanos = spinNanos;
            this.runs = runs;
        }

        @Override
        public void run() {
            runs.incrementAndGet(id);
            if (spinNanos > 0) {
                long end = System.nanoTime() + spinNanos;
                while (System.nanoTime() < end) {
                    Thread.onSpinWait();
                }
            } else if (spinNanos < 0) {
                Thread.yield();
            }
        }

        @Override
        public String toString() {
            return "task-" + id;
        }
    }

    private void round(int round, Random rnd) throws Exception {
        int max = 1 + rnd.nextInt(4);
        int core = 1 + rnd.nextInt(max);
        long keepAliveMicros = "withdraw".equals(System.getProperty("stress.bias")) && rnd.nextBoolean() ? 0
                : new long[] {0, 200, 1_000, 5_000, 30_000}[rnd.nextInt(5)];
        boolean coreTimeOut = keepAliveMicros > 0 && rnd.nextInt(3) == 0;
        int lifetime = rnd.nextInt(3) == 0 ? 5 + rnd.nextInt(40) : 0;
        boolean stamps = rnd.nextBoolean();
        // -Dstress.bias=withdraw: puts that give up often (short offers, interrupts), handlers
        // that put after shutdown too, and plain shutdowns: the windows where a put's count
        // made a shut-down pool keep a worker and then vanished.
        boolean withdraw = "withdraw".equals(System.getProperty("stress.bias"));
        int handlerKind = withdraw ? 2 + rnd.nextInt(2) : rnd.nextInt(4); // 0,1: put; 2: offer 1 ms; 3: offer 0.2 ms
        boolean handlerChecksShutdown = !withdraw && rnd.nextInt(4) != 0;
        int producers = 2 + rnd.nextInt(3);
        int perProducer = 50 + rnd.nextInt(250);
        int n = producers * perProducer;
        int ending = withdraw ? rnd.nextInt(6) : rnd.nextInt(10); // 0-5 shutdown, 6-8 shutdownNow, 9 shutdown after all submitted
        int endAfterCompleted = rnd.nextInt(n + 1);
        int interrupts = rnd.nextInt(4) == 0 ? 0 : rnd.nextInt(30);
        String cfg = String.format("round %d: core %d max %d keepAlive %dus coreTimeOut %b lifetime %d stamps %b handler %d check %b"
                + " producers %d x %d ending %d at %d interrupts %d", round, core, max, keepAliveMicros, coreTimeOut,
                lifetime, stamps, handlerKind, handlerChecksShutdown, producers, perProducer, ending, endAfterCompleted, interrupts);

        RejectedExecutionHandler handler = (r, executor) -> {
            if (handlerChecksShutdown && executor.isShutdown()) {
                throw new RejectedExecutionException("shut down");
            }
            try {
                boolean ok;
                if (handlerKind <= 1) {
                    executor.getQueue().put(r);
                    ok = true;
                } else {
                    ok = executor.getQueue().offer(r, handlerKind == 2 ? 1_000 : 200, TimeUnit.MICROSECONDS);
                }
                if (!ok) {
                    throw new RejectedExecutionException("timed out");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new RejectedExecutionException(e);
            }
        };
        TurntableExecutor.Builder b = TurntableExecutor.builder().workers(core).maximumWorkers(max).handOff()
                .rejectionHandler(handler);
        if (keepAliveMicros > 0) {
            b.keepAlive(keepAliveMicros, TimeUnit.MICROSECONDS).allowCoreThreadTimeOut(coreTimeOut);
        }
        if (lifetime > 0) {
            b.maxLifetimeTasks(lifetime);
        }
        if (stamps) {
            b.latencyHistograms(true); // wait times are stamped: TimedTask wrappers on puts too
        }
        TurntableExecutor pool = b.build();

        AtomicIntegerArray runs = new AtomicIntegerArray(n);
        AtomicIntegerArray status = new AtomicIntegerArray(n);
        Task[] tasks = new Task[n];
        for (int i = 0; i < n; i++) {
            int k = rnd.nextInt(20);
            int spin = k < 12 ? rnd.nextInt(20_000) : k < 16 ? 0 : k < 18 ? -1 : 100_000 + rnd.nextInt(900_000);
            tasks[i] = new Task(i, spin, runs);
        }
        AtomicInteger submitted = new AtomicInteger();
        Thread[] ps = new Thread[producers];
        for (int p = 0; p < producers; p++) {
            int from = p * perProducer;
            ps[p] = new Thread(() -> {
                for (int i = from; i < from + perProducer; i++) {
                    try {
                        pool.execute(tasks[i]);
                        status.set(i, ACCEPTED);
                    } catch (RejectedExecutionException e) {
                        status.set(i, REJECTED);
                        if (e.getCause() instanceof InterruptedException && pool.isTerminated()) {
                            count("producer stranded in a put after termination (interrupted)");
                        } else if (e.getCause() instanceof InterruptedException) {
                            count("put interrupted");
                        } else if ("timed out".equals(e.getMessage())) {
                            count("timed offer gave up");
                        }
                    }
                    Thread.interrupted(); // an interrupt meant for one put only
                    submitted.incrementAndGet();
                }
            }, "producer-" + p);
        }
        for (Thread t : ps) {
            t.start();
        }
        // Interrupts at random moments, and the ending once enough tasks completed.
        List<Runnable> unrun = null;
        boolean ended = false;
        int interruptsLeft = interrupts;
        long roundDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            boolean alive = false;
            for (Thread t : ps) {
                alive |= t.isAlive();
            }
            if (!ended && (ending == 9 ? !alive : pool.getCompletedTaskCount() >= endAfterCompleted || !alive)) {
                ended = true;
                if (ending <= 5 || ending == 9) {
                    pool.shutdown();
                    count("shutdown");
                } else {
                    unrun = pool.shutdownNow();
                    count("shutdownNow");
                }
            }
            if (interruptsLeft > 0 && rnd.nextInt(8) == 0) {
                ps[rnd.nextInt(producers)].interrupt();
                interruptsLeft--;
                count("producer interrupts");
            }
            if (ended && !alive) {
                break;
            }
            if (ended && pool.isTerminated()) {
                // Producers still alive after termination: stuck in a put no one will take (as
                // with a SynchronousQueue: a handler that puts after shutdown), or just finishing.
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (!awaitAllDead(ps, 1) && System.nanoTime() < until) {
                    for (Thread t : ps) {
                        if (t.isAlive() && LockSupport.getBlocker(t) == pool.getQueue()) {
                            t.interrupt();
                        }
                    }
                }
                if (!awaitAllDead(ps, 1)) {
                    failures.add(cfg + ": producers alive after termination and interrupts\n" + dump(ps, pool));
                }
                break;
            }
            if (System.nanoTime() > roundDeadline) {
                failures.add(cfg + ": round did not finish: terminated " + pool.isTerminated() + " size "
                        + pool.getQueue().size() + " " + pool + "\n" + dump(ps, pool));
                break;
            }
            LockSupport.parkNanos(rnd.nextInt(300_000));
        }
        if (!pool.awaitTermination(10, TimeUnit.SECONDS)) {
            failures.add(cfg + ": not terminated: " + pool + " size " + pool.getQueue().size() + "\n" + dump(ps, pool));
            count("TERMINATION HANG");
            List<Runnable> more = pool.shutdownNow();
            pool.awaitTermination(10, TimeUnit.SECONDS);
            if (unrun == null) {
                unrun = more;
            } else {
                unrun = new ArrayList<>(unrun);
                unrun.addAll(more);
            }
        }
        for (Thread t : ps) {
            t.join(10_000);
        }
        Map<Runnable, Integer> returned = new IdentityHashMap<>();
        if (unrun != null) {
            for (Runnable r : unrun) {
                returned.merge(r, 1, Integer::sum);
                if (!(r instanceof Task)) {
                    failures.add(cfg + ": shutdownNow returned a foreign object " + r.getClass() + " " + r);
                }
            }
            count("tasks returned by shutdownNow", unrun.size());
        }
        int accepted = 0;
        int rejected = 0;
        for (int i = 0; i < n; i++) {
            int st = status.get(i);
            int ran = runs.get(i);
            int back = returned.getOrDefault(tasks[i], 0);
            if (st == ACCEPTED) {
                accepted++;
                if (ran + back != 1) {
                    failures.add(cfg + ": accepted task " + i + " ran " + ran + " returned " + back);
                }
            } else if (st == REJECTED) {
                rejected++;
                if (ran != 0 || back != 0) {
                    failures.add(cfg + ": rejected task " + i + " ran " + ran + " returned " + back);
                }
            } else {
                failures.add(cfg + ": task " + i + " never resolved (producer stuck?) ran " + ran);
            }
        }
        count("rounds");
        count("tasks accepted", accepted);
        count("tasks rejected", rejected);
        count("tasks run", pool.getCompletedTaskCount());
        if (pool.getQueue().size() != 0) {
            count("size() > 0 after termination");
        }
    }

    private static boolean awaitAllDead(Thread[] ps, long millis) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        for (Thread t : ps) {
            long left = TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime());
            if (left > 0) {
                t.join(left);
            }
            if (t.isAlive()) {
                return false;
            }
        }
        return true;
    }

    private static String dump(Thread[] ps, ThreadPoolExecutor pool) {
        StringBuilder sb = new StringBuilder();
        for (ThreadInfo ti : ManagementFactory.getThreadMXBean().dumpAllThreads(false, false)) {
            String name = ti.getThreadName();
            if (name.startsWith("producer-") || name.startsWith("pool-")) {
                sb.append(name).append(' ').append(ti.getThreadState()).append('\n');
                for (StackTraceElement e : ti.getStackTrace()) {
                    sb.append("    at ").append(e).append('\n');
                }
            }
        }
        return sb.toString();
    }
}
