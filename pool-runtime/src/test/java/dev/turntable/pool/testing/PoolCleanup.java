package dev.turntable.pool.testing;

import static java.util.concurrent.TimeUnit.MILLISECONDS;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A JUnit extension for per-test cleanup: after each test (and after the test class's own
 * {@code @AfterEach} methods) it opens every latch the test registered, so no task stays blocked,
 * then stops every pool the test made and fails the test if one does not terminate. Register it
 * on an instance field, {@code @RegisterExtension final PoolCleanup cleanup = new PoolCleanup();}
 * (one instance per test, as JUnit makes one test-class instance per test). {@link #track} and
 * {@link #latch} may be called from any thread.
 */
public final class PoolCleanup implements AfterEachCallback {

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
    public void afterEach(ExtensionContext context) {
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
