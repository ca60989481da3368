package dev.turntable.pool;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.testing.PoolCleanup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Letting core threads time out live: refused with a message saying what to do while the keep-alive is 0. */
class CoreThreadTimeOutTest {

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();

    @Test
    void refusedWhileTheKeepAliveIsZeroWithWhatToDoAndChangesNothing() {
        TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(1).build());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> pool.allowCoreThreadTimeOut(true));
        String expected = "allowCoreThreadTimeOut(true) is not allowed while the keep-alive is 0:"
                + " set a keep-alive above 0 first";
        assertTrue(String.valueOf(e.getMessage()).contains(expected), () -> "expected '" + expected + "' in: " + e.getMessage());
        assertFalse(pool.allowsCoreThreadTimeOut());

        pool.setKeepAliveTime(1, SECONDS);
        pool.allowCoreThreadTimeOut(true);
        assertTrue(pool.allowsCoreThreadTimeOut());
    }
}
