package dev.turntable.agent;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The agent's only output: one line per event on standard error, prefixed {@value #PREFIX}.
 * Any thread may call it. Unexpected failures are capped so a broken JDK cannot flood the log.
 */
final class Log {

    static final String PREFIX = "[turntable] ";
    private static final int MAX_UNEXPECTED = 20;
    private static final AtomicInteger UNEXPECTED = new AtomicInteger();

    private Log() {
    }

    /** The lines the current thread prints while it loads the agent ({@link #capturing}), or null. */
    private static final ThreadLocal<java.util.List<String>> CAPTURE = new ThreadLocal<>();

    static void line(String message) {
        System.err.println(PREFIX + message);
        java.util.List<String> c = CAPTURE.get();
        if (c != null) {
            c.add(message);
        }
    }

    /**
     * Keeps a copy of every line the calling thread prints, into {@code into}, until
     * {@link #stopCapturing}: what one load of the agent said, for {@link AgentStatus}.
     */
    static void capturing(java.util.List<String> into) {
        CAPTURE.set(into);
    }

    static void stopCapturing() {
        CAPTURE.remove();
    }

    /** Something that should not happen; the agent left the pool or the call alone. */
    static void unexpected(String what, Throwable t) {
        unexpectedLine(what + " failed, left untouched: " + t);
    }

    /** Something that should not happen, said as {@code text}; counted against the same cap. */
    static void unexpectedLine(String text) {
        int n = UNEXPECTED.incrementAndGet();
        if (n <= MAX_UNEXPECTED) {
            line(text + (n == MAX_UNEXPECTED ? " (further failures are not printed)" : ""));
        }
    }
}
