package dev.turntable.pool.testing;

import dev.turntable.pool.Ticker;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/** A {@link Ticker} the test moves by hand: heartbeats and rebalancing then follow no real clock. Any thread. */
public final class ManualTicker implements Ticker {

    private final AtomicLong now = new AtomicLong(5_000_000_000L);

    @Override
    public long nanoTime() {
        return now.get();
    }

    public void advanceMillis(long ms) {
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(ms));
    }
}
