package dev.turntable.pool.testing;

import static java.util.concurrent.TimeUnit.MILLISECONDS;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;

/**
 * Per-test cleanup: opens every latch the test registered (so no task stays blocked), then stops
 * every pool the test made and checks that each one terminates.
 */
public final class PoolCleanup implements AutoCloseable {

    private final List<ExecutorService> pools = new CopyOnWriteArrayList<>();
    private final List<CountDownLatch> latches = new CopyOnWriteArrayList<>();

    /** Registers a pool to stop after the test; returns it. */
    public <T extends ExecutorService> T track(T pool) {
        pools.add(pool);
        return pool;
    }

    /** A new latch of {@code count} that is opened, if still closed, after the test. */
    public CountDownLatch latch(int count) {
        CountDownLatch latch = new CountDownLatch(count);
        latches.add(latch);
        return latch;
    }

    @Override
    public void close() {
        for (CountDownLatch latch : latches) {
            while (latch.getCount() > 0) {
                latch.countDown();
            }
        }
        for (ExecutorService pool : pools) {
            pool.shutdownNow();
        }
        AssertionError failure = null;
        for (ExecutorService pool : pools) {
            try {
                if (!pool.awaitTermination(Waits.LONG.toMillis(), MILLISECONDS)) {
                    failure = addTo(failure, new AssertionError("pool did not terminate after shutdownNow: " + pool));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                failure = addTo(failure, new AssertionError("interrupted while stopping " + pool, e));
            }
        }
        pools.clear();
        latches.clear();
        if (failure != null) {
            throw failure;
        }
    }

    private static AssertionError addTo(AssertionError first, AssertionError next) {
        if (first == null) {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }
}
