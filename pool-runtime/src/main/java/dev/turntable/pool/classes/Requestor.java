package dev.turntable.pool.classes;

import java.util.Arrays;
import java.util.Locale;

/**
 * Where a task's requestor (the string the requestor map matches to a class) comes from: the
 * {@code requestor} option. Immutable; any thread.
 */
public enum Requestor {
    /** The submitting thread's name (the default): {@code http-nio-8080-exec-3}, {@code report-1}. */
    THREAD_NAME,
    /**
     * The task's class name. Tasks given to {@code submit} are wrapped in a {@code FutureTask}
     * first, so this tells them apart only for tasks given to {@code execute}.
     */
    TASK_CLASS,
    /** The pool's name: every task of a pool in one class (useful with one map for many pools). */
    POOL_NAME;

    /**
     * The value named by {@code text} (case-insensitive, {@code -} read as {@code _}).
     *
     * @throws IllegalArgumentException naming the value and the allowed ones
     */
    public static Requestor parse(String text) {
        if (text != null) {
            String key = text.trim().toUpperCase(Locale.ROOT).replace('-', '_');
            for (Requestor r : values()) {
                if (r.name().equals(key)) {
                    return r;
                }
            }
        }
        throw new IllegalArgumentException("requestor '" + text + "' is not one of " + Arrays.toString(values()));
    }
}
