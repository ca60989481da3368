package dev.turntable.pool.testing;

/** Tasks that do nothing and print as their name, for tests that read a queue's order off its {@code toString}. */
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
}
