package com.sun.jersey.example;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Stands for an application library whose package merely looks like the JDK's (Jersey 1.x,
 * Metro, Mojarra, JavaMail and Grizzly all live under {@code com.sun.}): loaded from the class
 * path by the application class loader, it builds its pools as any application code does.
 */
public final class LegacyClient {

    private LegacyClient() {
    }

    /** The client's async pool, built as Jersey 1.x builds its own. */
    public static ExecutorService asyncPool() {
        return Executors.newFixedThreadPool(2);
    }
}
