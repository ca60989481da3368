package dev.turntable.pool;

/**
 * A source of {@code System.nanoTime()}-like readings for the pool's housekeeping: heartbeats
 * (which worker is stuck in one task) and the hand-over between retiring workers. Tests inject
 * one they advance by hand; production uses {@link #system()}. Called from the housekeeping
 * thread and from monitoring calls, concurrently: implementations must be thread-safe.
 *
 * <p>The dispatch and take paths never read it: statistics use {@code System.nanoTime()}
 * directly, and only when the active strategy needs them.
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
