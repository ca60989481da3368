package dev.turntable.jmx.cli;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A command that cannot go on, with the exit code and the one-line message turntablectl prints
 * to stderr. Immutable; any thread.
 */
final class CliException extends Exception {

    private static final long serialVersionUID = 1L;

    private final int exitCode;
    private final boolean showUsage;
    private final transient Map<String, Object> document;

    private CliException(int exitCode, String message, boolean showUsage, Throwable cause,
            Map<String, Object> document) {
        super(message, cause);
        this.exitCode = exitCode;
        this.showUsage = showUsage;
        this.document = document == null ? null : Collections.unmodifiableMap(new LinkedHashMap<>(document));
    }

    private CliException(int exitCode, String message, boolean showUsage, Throwable cause) {
        this(exitCode, message, showUsage, cause, null);
    }

    /**
     * This failure, carrying what the command had gathered for its {@code --json} document before
     * it failed ({@code watch}'s frames so far), which is printed with the error instead of lost.
     */
    CliException withDocument(Map<String, Object> gathered) {
        CliException e = new CliException(exitCode, getMessage(), showUsage, getCause(), gathered);
        e.setStackTrace(getStackTrace());
        return e;
    }

    /** What the command had gathered for its {@code --json} document, or null. */
    Map<String, Object> document() {
        return document;
    }

    /** Exit 2, followed by the usage text: the command line itself is wrong. */
    static CliException usage(String message) {
        return new CliException(Turntablectl.EXIT_USAGE, message, true, null);
    }

    /**
     * Exit 2 without the usage text: a well-formed command naming something that is not there
     * (a pool, an attribute) or giving a value that is not allowed; the message says which.
     */
    static CliException invalid(String message) {
        return new CliException(Turntablectl.EXIT_USAGE, message, false, null);
    }

    /** Exit 3: the JVM (or the agent jar it needs) cannot be reached. */
    static CliException connect(String message, Throwable cause) {
        return new CliException(Turntablectl.EXIT_CONNECT, message, false, cause);
    }

    /** Exit 4: the JVM refused the value; {@code message} carries its reason. */
    static CliException refused(String message, Throwable cause) {
        return new CliException(Turntablectl.EXIT_REFUSED, message, false, cause);
    }

    int exitCode() {
        return exitCode;
    }

    boolean showUsage() {
        return showUsage;
    }
}
