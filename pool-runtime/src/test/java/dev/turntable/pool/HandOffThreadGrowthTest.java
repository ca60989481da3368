package dev.turntable.pool;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URL;
import java.net.URLClassLoader;
import java.util.Arrays;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Future;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.jctools.queues.atomic.MpmcAtomicArrayQueue;
import org.junit.jupiter.api.Test;

/**
 * A cached pool ({@code Executors.newCachedThreadPool}'s shape: core 0, no maximum, direct
 * hand-off) serving one caller's sequential {@code submit(task).get()} loop needs two or three
 * threads: each task ends before the next is submitted, and ThreadPoolExecutor starts a thread
 * only when a hand-off finds no idle worker. A plain {@code SynchronousQueue} pool ends such a
 * loop with 2-4 threads. The engine used to make 20-50 for the first 50 calls of a fresh JVM:
 * its first worker spent milliseconds loading the slot and queue classes under the registration
 * lock, reservable by nobody, while the caller made a thread per call.
 *
 * <p>That happens once per class loader, so each round builds the engine in a fresh class loader
 * (the test JVM has long loaded and compiled the copy the other tests use).
 */
class HandOffThreadGrowthTest {

    private static final int CALLS = 1_000;
    private static final int ROUNDS = 3;
    /**
     * The median round may make at most this many threads. A SynchronousQueue makes 2-3 here,
     * the engine 3-5 since its classes load up front, and 8-13 before (each measured on a
     * loaded 2-CPU machine, where the engine's fresh code runs slowest). The median of three
     * rounds keeps one round slowed by a busy neighbour from failing the test.
     */
    private static final int MOST_THREADS = 6;

    @Test
    void aSequentialSubmitGetLoopOnAFreshlyLoadedEngineNeedsAboutAsFewThreadsAsASynchronousQueue() throws Exception {
        int[] engine = new int[ROUNDS];
        int[] jdk = new int[ROUNDS];
        for (int r = 0; r < ROUNDS; r++) {
            engine[r] = largestPoolAfterLoop(freshlyLoadedHandOffQueue());
            jdk[r] = largestPoolAfterLoop(new SynchronousQueue<>());
        }
        int[] sorted = engine.clone();
        Arrays.sort(sorted);
        assertTrue(sorted[ROUNDS / 2] <= MOST_THREADS, "the engine's pool grew to " + Arrays.toString(engine)
                + " threads in " + ROUNDS + " rounds of " + CALLS + " sequential calls (a SynchronousQueue's: "
                + Arrays.toString(jdk) + ")");
    }

    /**
     * A hand-off TurntableQueue from a class loader of its own: the engine's classes loaded
     * afresh and not yet compiled, as in an application's first calls.
     */
    @SuppressWarnings("unchecked")
    private static BlockingQueue<Runnable> freshlyLoadedHandOffQueue() throws Exception {
        URL[] path = {
            TurntableQueue.class.getProtectionDomain().getCodeSource().getLocation(),
            MpmcAtomicArrayQueue.class.getProtectionDomain().getCodeSource().getLocation(),
            Histogram.class.getProtectionDomain().getCodeSource().getLocation(),
        };
        // Not closed: the pool's worker threads load the rest of the engine's classes from it.
        // Dropped with the pool (the engine's housekeeper thread of this loader then ends).
        URLClassLoader fresh = new URLClassLoader(path, ClassLoader.getPlatformClassLoader());
        Class<?> queueClass = fresh.loadClass(TurntableQueue.class.getName());
        Object builder = queueClass.getMethod("builder").invoke(null);
        builder.getClass().getMethod("handOff").invoke(builder);
        return (BlockingQueue<Runnable>) builder.getClass().getMethod("build").invoke(builder);
    }

    /** Runs the loop on a fresh cached pool over {@code queue}; returns its largest size. */
    private static int largestPoolAfterLoop(BlockingQueue<Runnable> queue) throws Exception {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS, queue);
        try {
            for (int i = 0; i < CALLS; i++) {
                int n = i;
                Future<Integer> f = pool.submit(() -> n * 31);
                f.get(30, TimeUnit.SECONDS);
            }
            return pool.getLargestPoolSize();
        } finally {
            pool.shutdownNow();
            assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS), "pool did not terminate");
        }
    }
}
