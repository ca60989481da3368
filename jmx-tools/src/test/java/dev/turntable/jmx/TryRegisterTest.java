package dev.turntable.jmx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.TurntableQueue;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link TurntableJmx#tryRegister}: a security manager's refusal of the registration itself is
 * thrown for the caller to try again later, and leaves nothing behind; other failures are
 * returned, as by {@code register}.
 */
class TryRegisterTest {

    private final MBeanServer real = MBeanServerFactory.newMBeanServer();
    private volatile boolean refusing = true;
    /** The real server, but for registrations refused as a security manager would while {@link #refusing}. */
    private final MBeanServer guarded = (MBeanServer) Proxy.newProxyInstance(MBeanServer.class.getClassLoader(),
            new Class<?>[] {MBeanServer.class}, (proxy, method, args) -> {
                if (refusing && method.getName().equals("registerMBean")) {
                    throw new SecurityException("refused by the test: registerMBean");
                }
                try {
                    return method.invoke(real, args);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
            });
    private final ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS,
            TurntableQueue.builder().expectedWorkers(1).build());

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    @Test
    void aRefusedRegistrationIsThrownAndTheSameCallWorksOnceAllowed() throws Exception {
        TurntableQueue q = (TurntableQueue) pool.getQueue();
        SecurityException e = assertThrows(SecurityException.class,
                () -> TurntableJmx.tryRegister(guarded, "orders", pool, q, () -> 7L));
        assertTrue(e.getMessage().contains("registerMBean"), e::toString);
        ObjectName name = new ObjectName("dev.turntable:type=Pool,name=orders");
        assertFalse(real.isRegistered(name));

        refusing = false;
        try (TurntableJmx.Registration r = TurntableJmx.tryRegister(guarded, "orders", pool, q, () -> 7L)) {
            assertTrue(r.isRegistered(), r::toString);
            assertEquals(7L, real.getAttribute(name, "RejectedTaskCount"));
        }
    }

    @Test
    void registerStillReturnsTheRefusalAsAFailure() {
        TurntableJmx.Registration r = TurntableJmx.register(guarded, "orders", pool, (TurntableQueue) pool.getQueue(),
                () -> 0L);
        assertFalse(r.isRegistered());
        assertTrue(r.failure().orElseThrow().contains("SecurityException"), r::toString);
    }

    @Test
    void otherFailuresAreReturnedNotThrown() {
        refusing = false;
        TurntableJmx.Registration r = TurntableJmx.tryRegister(guarded, "orders service", pool,
                (TurntableQueue) pool.getQueue(), () -> 0L);
        assertFalse(r.isRegistered());
        assertTrue(r.failure().isPresent(), r::toString);
    }
}
