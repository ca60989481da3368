package dev.turntable.pool;

/**
 * A source of {@code System.nanoTime()}-like readings for the pool's housekeeping: heartbeats
 * (which worker is stuck in one task), the hand-over between retiring workers, rebalancing, and
 * the worker time task classes use. Tests inject one they advance by hand; production uses
 * {@link #system()}. Called from the housekeeping thread, monitoring calls, scheduling passes and
 * workers, concurrently: implementations must be thread-safe.
 *
 * <p>The dispatch and take paths of a pool without task classes never read it: statistics use
 * {@code System.nanoTime()} directly, and only when the active strategy needs them. With task
 * classes on, a worker reads it as it takes a classed task and as it comes back from it, and
 * each scheduling pass once.
 */
@FunctionalInterface
public interface Ticker {

    /** Nanoseconds from an arbitrary origin; only differences between readings mean anything. */
    long nanoTime();

    /** {@code System::nanoTime}. */
    static Ticker system() {
        return System::nanoTime;
    }
}
