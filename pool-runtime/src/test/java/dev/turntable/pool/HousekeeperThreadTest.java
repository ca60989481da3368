package dev.turntable.pool;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URL;
import java.net.URLClassLoader;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The housekeeper thread serves every pool of its class loader, so it must not hold the class
 * loader of the application whose worker happened to start it: in an application server, that
 * would keep an undeployed web application's classes in memory as long as any other pool lives.
 */
class HousekeeperThreadTest {

    @Test
    void theHousekeeperHoldsNoApplicationsClassLoader() throws Exception {
        AtomicReference<TurntableExecutor> built = new AtomicReference<>();
        try (URLClassLoader webApp = new URLClassLoader(new URL[0], getClass().getClassLoader())) {
            Thread deployer = new Thread(() -> {
                // Workers inherit this loader, as a web application's threads carry its own.
                TurntableExecutor pool = TurntableExecutor.builder().workers(2).build();
                built.set(pool);
                pool.execute(() -> { });
            });
            deployer.setContextClassLoader(webApp);
            deployer.start();
            deployer.join();
            TurntableExecutor pool = built.get();
            try {
                await().atMost(Duration.ofSeconds(20)).until(() -> !housekeepers().isEmpty());
                for (Thread t : housekeepers()) {
                    assertEquals(null, t.getContextClassLoader(), t + " holds a class loader");
                }
            } finally {
                pool.shutdownNow();
                assertTrue(pool.awaitTermination(20, TimeUnit.SECONDS));
            }
        }
    }

    private static List<Thread> housekeepers() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("turntable-housekeeper")).toList();
    }
}
