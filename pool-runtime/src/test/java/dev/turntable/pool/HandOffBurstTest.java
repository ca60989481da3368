package dev.turntable.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * A burst of tiny tasks from one thread into a hand-off pool: ThreadPoolExecutor hands each to
 * an idle worker, starts a thread when it finds none, and rejects when it may not. With the
 * engine standing in for a {@code SynchronousQueue}, as many tasks must find a worker as with
 * the JDK's queue. They did not while idle hand-off workers yielded: on 2 CPUs every worker of a
 * 16-thread pool was reserved and none got to run, so 93% of a 20,000-task burst was rejected
 * (a {@code SynchronousQueue} pool: 2-4%), and a cached pool grew to 115-203 threads (15-22).
 * Each figure is the median of three rounds, each on a fresh pool, so that one round slowed by
 * a busy neighbour does not decide it; the bounds sit far from both the old and the new engine.
 */
class HandOffBurstTest {

    private static final int ROUNDS = 3;
    private static final int BURST = 20_000;
    private static final int THREADS = 16;

    @Test
    void aBurstIntoAWarmBoundedHandOffPoolIsRejectedNoMoreThanWithASynchronousQueue() throws Exception {
        int[] engine = new int[ROUNDS];
        int[] jdk = new int[ROUNDS];
        for (int r = 0; r < ROUNDS; r++) {
            engine[r] = rejectedOfBurst(() -> TurntableQueue.builder().handOff().build());
            jdk[r] = rejectedOfBurst(SynchronousQueue::new);
        }
        assertTrue(median(engine) <= BURST / 4, "tasks of a " + BURST + "-task burst rejected per round: engine "
                + Arrays.toString(engine) + ", SynchronousQueue " + Arrays.toString(jdk));
    }

    @Test
    void aBurstIntoACachedPoolStartsAboutAsManyThreadsAsWithASynchronousQueue() throws Exception {
        int[] engine = new int[ROUNDS];
        int[] jdk = new int[ROUNDS];
        for (int r = 0; r < ROUNDS; r++) {
            engine[r] = threadsForBurst(TurntableQueue.builder().handOff().build());
            jdk[r] = threadsForBurst(new SynchronousQueue<>());
        }
        assertTrue(median(engine) <= 60, "threads a cached pool made for a burst of 5,000 tasks, per round: engine "
                + Arrays.toString(engine) + ", SynchronousQueue " + Arrays.toString(jdk));
    }

    /** A pool of 0 to {@value #THREADS} threads, all started and idle, then a burst: how many were rejected. */
    private static int rejectedOfBurst(Supplier<BlockingQueue<Runnable>> queue) throws Exception {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(0, THREADS, 60, TimeUnit.SECONDS, queue.get());
        try {
            CountDownLatch started = new CountDownLatch(THREADS);
            CountDownLatch release = new CountDownLatch(1);
            for (int i = 0; i < THREADS; i++) {
                pool.execute(() -> {
                    started.countDown();
                    awaitQuietly(release);
                });
            }
            assertTrue(started.await(30, TimeUnit.SECONDS), "the pool's threads did not start");
            release.countDown();
            // every thread back waiting for work: no task active
            org.awaitility.Awaitility.await().atMost(30, TimeUnit.SECONDS).until(() -> pool.getActiveCount() == 0);
            AtomicInteger ran = new AtomicInteger();
            int rejected = 0;
            for (int i = 0; i < BURST; i++) {
                try {
                    pool.execute(ran::incrementAndGet);
                } catch (RejectedExecutionException e) {
                    rejected++;
                }
            }
            pool.shutdown();
            assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS), "pool did not terminate");
            assertEquals(BURST, ran.get() + rejected, "every task ran or was rejected, once");
            return rejected;
        } finally {
            pool.shutdownNow();
        }
    }

    /** A cached pool's largest size after a burst of 5,000 tasks. */
    private static int threadsForBurst(BlockingQueue<Runnable> queue) throws Exception {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS, queue);
        try {
            AtomicInteger ran = new AtomicInteger();
            for (int i = 0; i < 5_000; i++) {
                pool.execute(ran::incrementAndGet);
            }
            pool.shutdown();
            assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS), "pool did not terminate");
            assertEquals(5_000, ran.get());
            return pool.getLargestPoolSize();
        } finally {
            pool.shutdownNow();
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static int median(int[] values) {
        int[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}
