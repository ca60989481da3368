package dev.turntable.agent;

/**
 * Whether the agent's managed pools can retire workers ({@code max-lifetime-tasks},
 * {@code recycleWorker}): only when {@code ThreadPoolExecutor.runWorker(Worker)} exists and carries
 * the hook that swallows the engine's retirement signal, which the agent's transformer reports as
 * the class is transformed. Until then, and if it never happens, the engine must not throw that
 * signal (the application's {@code UncaughtExceptionHandler} would see it), so managed queues are
 * built without retirement and {@code max-lifetime-tasks} stays 0. Any thread; the state is
 * volatile and the latest report wins.
 */
final class Retirement {

    /** Why this JDK cannot retire workers, from its shape; {@code null} if it can. */
    private final String unsupported;
    private volatile boolean adviceInstalled;
    private volatile String failure = "the advice on ThreadPoolExecutor.runWorker is not installed";

    Retirement() {
        this(Instrumenter.retirementUnsupportedReason());
    }

    /** @param unsupported why this JDK cannot retire workers whatever happens, or {@code null} */
    Retirement(String unsupported) {
        this.unsupported = unsupported;
    }

    /** A retirement state for tests and for a JDK known to support it: installed. */
    static Retirement installed() {
        Retirement r = new Retirement(null);
        r.adviceInstalled();
        return r;
    }

    /** {@code ThreadPoolExecutor} was transformed with the agent's advice. */
    void adviceInstalled() {
        adviceInstalled = unsupported == null;
    }

    /** Transforming {@code ThreadPoolExecutor} failed; the class stays as it was. */
    void adviceFailed(String why) {
        failure = why;
        adviceInstalled = false;
    }

    /** Whether managed queues may retire workers. */
    boolean supported() {
        return adviceInstalled;
    }

    /** Why not, or {@code null} when supported. */
    String unavailableReason() {
        if (adviceInstalled) {
            return null;
        }
        return unsupported != null ? unsupported : failure;
    }

    /**
     * The one line to print after the advice was installed when {@code max-lifetime-tasks} asks for
     * retirement that this JVM cannot do, or {@code null}.
     */
    String unavailableLine(Options options) {
        int asked = options.maxLifetimeTasks();
        String why = unavailableReason();
        if (asked <= 0 || why == null) {
            return null;
        }
        return "option " + OptionKey.MAX_LIFETIME_TASKS.key + "=" + asked + " cannot take effect: worker retirement"
                + " is unavailable on this JVM (" + System.getProperty("java.version") + "): " + why
                + "; workers are never retired, " + OptionKey.MAX_LIFETIME_TASKS.key + " stays 0";
    }
}
