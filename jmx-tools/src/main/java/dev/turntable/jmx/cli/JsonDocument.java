package dev.turntable.jmx.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The one JSON document {@code turntablectl --json} prints on stdout: the command's result, its
 * failure, or, when a signal stops the JVM first ({@code timeout}, Ctrl-C), what the command had
 * gathered with an error. Whichever comes first is printed and nothing after it, so a script
 * that reads stdout gets exactly one document. Thread-safe: the command's thread prints through
 * it, and the JVM's shutdown hook may at the same time ({@link #printStopped}).
 */
final class JsonDocument {

    private final PrintStream out;
    /** Guarded by {@code this}. */
    private boolean printed;
    /** What a running command has gathered so far ({@code watch}'s frames), or null. */
    private volatile Supplier<Map<String, Object>> gathered;

    JsonDocument(PrintStream out) {
        this.out = out;
    }

    /** Prints {@code doc} as the document, unless one was printed already; returns whether it did. */
    synchronized boolean print(Object doc) {
        if (printed) {
            return false;
        }
        String text = Json.write(doc); // first: if this fails, a later document may still be printed
        printed = true;
        out.println(text);
        out.flush();
        return true;
    }

    /**
     * Prints the failure document: what the command had gathered before it failed or was stopped
     * ({@link #gathering}; {@code watch}'s frames so far), followed by {@code "error": {"exitCode",
     * "message"}}.
     */
    boolean printError(Integer exitCode, String message) {
        Supplier<Map<String, Object>> source = gathered;
        Map<String, Object> doc = source == null ? new LinkedHashMap<>() : new LinkedHashMap<>(source.get());
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("exitCode", exitCode);
        error.put("message", message);
        doc.put("error", error);
        return print(doc);
    }

    /** A running command's source of what it has gathered so far, for {@link #printError}. */
    void gathering(Supplier<Map<String, Object>> source) {
        gathered = source;
    }

    /**
     * From the shutdown hook: if the command has printed nothing yet, prints what it gathered with
     * an error saying it was stopped. The exit code is the JVM's (128 + the signal's number), which
     * this cannot know, so {@code exitCode} is null.
     */
    void printStopped() {
        printError(null, "stopped by a signal before the command finished");
    }

    /** A list that the command's thread appends to and {@link #printStopped} copies, safely. */
    static <T> List<T> sharedList() {
        return Collections.synchronizedList(new ArrayList<>());
    }

    /** A copy of a {@link #sharedList}, taken under its lock. */
    static <T> List<T> copyOf(List<T> shared) {
        synchronized (shared) {
            return new ArrayList<>(shared);
        }
    }
}
