package dev.turntable.jmx.cli;

/**
 * A command that cannot go on, with the exit code and the one-line message turntablectl prints
 * to stderr. Immutable; any thread.
 */
final class CliException extends Exception {

    private static final long serialVersionUID = 1L;

    private final int exitCode;
    private final boolean showUsage;

    private CliException(int exitCode, String message, boolean showUsage, Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
        this.showUsage = showUsage;
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
