package dev.turntable.pool;

/**
 * The signal a {@link TurntableQueue} throws out of {@code take()} or {@code poll(...)} on a worker
 * thread that has to retire (it reached {@code max-lifetime-tasks}, or an operator recycled it):
 * ThreadPoolExecutor then ends that worker as if its task had thrown, and starts a replacement
 * through the pool's own ThreadFactory. It is thrown only on worker threads of executors that
 * declared, with {@link TurntableQueue#setRetirementSupported(boolean)}, that they catch it where
 * the worker's {@code run()} ends, so it never reaches the application's
 * {@code UncaughtExceptionHandler}; {@link TurntableExecutor} and the agent do. Any thread may call
 * {@link #isRetirement(Throwable)}.
 *
 * <p>One shared instance without a stack trace: throwing it costs no allocation.
 */
public final class WorkerRetirement extends RuntimeException {

    private static final long serialVersionUID = 1L;

    static final WorkerRetirement INSTANCE = new WorkerRetirement();

    private WorkerRetirement() {
        super("Turntable worker retired (max-lifetime-tasks or recycleWorker); the executor starts a"
                + " replacement. Seeing this means the executor did not declare retirement support.",
                null, false, false);
    }

    /** Whether {@code t} is the retirement signal, which the worker's run loop should swallow. */
    public static boolean isRetirement(Throwable t) {
        return t instanceof WorkerRetirement;
    }
}
