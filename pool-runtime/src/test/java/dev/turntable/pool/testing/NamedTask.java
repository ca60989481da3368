package dev.turntable.pool.testing;

import java.util.List;

/**
 * Tasks that print as their name: for tests that read a queue's order off its {@code toString},
 * or the order tasks ran in off a list each adds its name to.
 */
public final class NamedTask {

    private NamedTask() {
    }

    /** A no-op task whose {@code toString} is {@code name}. */
    public static Runnable named(String name) {
        return new Runnable() {
            @Override
            public void run() {
            }

            @Override
            public String toString() {
                return name;
            }
        };
    }

    /**
     * A task that adds {@code name} to {@code ran} when it runs (make {@code ran} a synchronized
     * list: workers add to it) and whose {@code toString} is {@code name}.
     */
    public static Runnable recording(String name, List<String> ran) {
        return new Runnable() {
            @Override
            public void run() {
                ran.add(name);
            }

            @Override
            public String toString() {
                return name;
            }
        };
    }
}
