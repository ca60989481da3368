package dev.turntable.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.turntable.pool.testing.CountingThreadFactory;
import dev.turntable.pool.testing.ManualTicker;
import dev.turntable.pool.testing.PoolCleanup;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.LockSupport;
import org.awaitility.Awaitility;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Seeded stress of task classes with rebalancing: 2-8 workers, 2-4 classes, a short minimum
 * duration, plain tasks (which get classes held), {@link RestartableTask}s, and parents waiting
 * for children that land in whichever class their worker thread maps to (fewer parents than
 * workers, so a plain ThreadPoolExecutor always makes progress). Every task must end exactly
 * once. Before held classes' loans went to other classes, 3 of these 20 seeds stalled for good.
 */
final class HeldClassesStressTest {

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();

    static final class Restartable implements RestartableTask {
        final int id;
        final AtomicIntegerArray completions;
        final int units;
        volatile boolean complete;

        Restartable(int id, AtomicIntegerArray completions, int units) {
            this.id = id;
            this.completions = completions;
            this.units = units;
        }

        @Override
        public void run() {
            complete = false;
            for (int u = 0; u < units; u++) {
                if (Thread.currentThread().isInterrupted()) {
                    return;
                }
                LockSupport.parkNanos(200_000); // a unit of work
            }
            complete = true;
            completions.incrementAndGet(id);
        }

        @Override
        public boolean isComplete() {
            return complete;
        }
    }

    static java.util.stream.LongStream seeds() {
        String only = System.getProperty("churn.only");
        if (only != null) {
            return java.util.Arrays.stream(only.split(",")).mapToLong(Long::parseLong);
        }
        return java.util.stream.LongStream.rangeClosed(1, Long.getLong("churn.seeds", 20));
    }

    @ParameterizedTest
    @org.junit.jupiter.params.provider.MethodSource("seeds")
    void everyTaskEndsExactlyOnceWithoutAStall(long seed) throws Exception {
        Random rnd = new Random(seed);
        int workers = 2 + rnd.nextInt(7);
        int classes = 2 + rnd.nextInt(3);
        String[] names = {"a", "b", "c", "d"};
        StringBuilder shares = new StringBuilder();
        StringBuilder map = new StringBuilder();
        for (int i = 0; i < classes; i++) {
            shares.append(i > 0 ? ";" : "").append(names[i]).append(':').append(10 + rnd.nextInt(60));
            map.append(i > 0 ? ";" : "").append(names[i]).append("-.*:").append(names[i]);
        }
        int threshold = 5 + rnd.nextInt(20);
        ManualTicker ticker = new ManualTicker();
        TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(workers).ticker(ticker)
                .rebalanceThreshold(threshold).rebalanceMinimumDurationMillis(rnd.nextInt(3))
                .threadFactory(new CountingThreadFactory("churn")).build());
        TurntableQueue q = pool.getTurntableQueue();
        q.setTaskClasses(shares.toString(), map.toString());
        List<Rebalance> rebalances = new CopyOnWriteArrayList<>();
        q.addRebalanceListener(rebalances::add);
        int perClass = 60;
        int n = perClass * classes;
        AtomicIntegerArray completions = new AtomicIntegerArray(n);
        Semaphore parents = new Semaphore(Math.max(1, workers - 1));
        AtomicBoolean driving = new AtomicBoolean(true);
        Thread driver = new Thread(() -> {
            while (driving.get()) {
                ticker.advanceMillis(1);
                q.housekeep();
                LockSupport.parkNanos(300_000); // pacing, not a wait for state
            }
        }, "driver");
        driver.setDaemon(true);
        driver.start();
        List<Thread> submitters = new ArrayList<>();
        List<Future<?>> futures = new CopyOnWriteArrayList<>();
        for (int ci = 0; ci < classes; ci++) {
            int base = ci * perClass;
            long subSeed = rnd.nextLong();
            Thread t = new Thread(() -> {
                Random r = new Random(subSeed);
                for (int k = 0; k < perClass; k++) {
                    int id = base + k;
                    int kind = r.nextInt(4);
                    int units = 1 + r.nextInt(40);
                    if (kind == 0) {
                        pool.execute(new Restartable(id, completions, units));
                    } else if (kind == 1 && parents.tryAcquire()) {
                        futures.add(pool.submit(() -> {
                            try {
                                                    pool.submit(() -> LockSupport.parkNanos(100_000)).get(); // child: smallest class
                                completions.incrementAndGet(id);
                            } catch (Exception e) {
                                throw new IllegalStateException(e);
                            } finally {
                                parents.release();
                            }
                        }));
                    } else {
                        pool.execute(() -> {
                                            LockSupport.parkNanos(units * 200_000L); // plain, cannot be stopped
                            completions.incrementAndGet(id);
                        });
                    }
                    if (r.nextInt(8) == 0) {
                        LockSupport.parkNanos(1_000_000); // bursts
                    }
                }
            }, names[ci] + "-submitter");
            submitters.add(t);
            t.start();
        }
        for (Thread t : submitters) {
            t.join();
        }
        try {
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> {
                for (int i = 0; i < n; i++) {
                    if (completions.get(i) == 0) {
                        return false;
                    }
                }
                return true;
            });
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("stalled: seed " + seed + " workers=" + workers + " shares=" + shares
                    + " waiting=" + q.getWaitingTasksByClass() + " running=" + q.getRunningTasksByClass()
                    + " rebalances=" + rebalances.size(), e);
        } finally {
            driving.set(false);
        }
        for (Future<?> f : futures) {
            f.get(30, TimeUnit.SECONDS);
        }
        for (int i = 0; i < n; i++) {
            assertEquals(1, completions.get(i), "task " + i + " ended once; seed " + seed);
        }
    }
}
