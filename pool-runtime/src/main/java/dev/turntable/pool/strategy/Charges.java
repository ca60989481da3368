package dev.turntable.pool.strategy;

/**
 * Saturating arithmetic and the charge-at-dispatch rule shared by the time-based strategies.
 * Stateless; any thread. Operands are non-negative; results saturate at {@link Long#MAX_VALUE}
 * instead of overflowing, so a huge total can never wrap around into the smallest.
 */
final class Charges {

    private Charges() {
    }

    /** {@code a + b} for non-negative operands, {@link Long#MAX_VALUE} on overflow. */
    static long add(long a, long b) {
        long sum = a + b;
        return sum < 0 ? Long.MAX_VALUE : sum;
    }

    /** {@code a * b} for non-negative operands, {@link Long#MAX_VALUE} on overflow. */
    static long multiply(long a, long b) {
        long product = a * b;
        return Math.multiplyHigh(a, b) != 0 || product < 0 ? Long.MAX_VALUE : product;
    }

    /** Tasks dispatched to the worker and not finished: queued plus running. */
    static long inFlight(WorkerView workers, int worker) {
        return (long) Math.max(0, workers.queued(worker)) + Math.max(0, workers.running(worker));
    }

    /**
     * A worker's history plus its in-flight tasks charged at its average per completed task
     * (at least 1 ns, so with no history it degrades to counting tasks): the charge is made the
     * moment a task is queued and corrected by the real time once it completes.
     */
    static long historyPlusInFlight(long historyNanos, long completed, long inFlight) {
        long perTaskNanos = completed > 0 ? Math.max(1L, historyNanos / completed) : 1L;
        return add(historyNanos, multiply(inFlight, perTaskNanos));
    }
}
