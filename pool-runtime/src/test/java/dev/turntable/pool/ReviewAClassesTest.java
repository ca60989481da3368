package dev.turntable.pool;

import static dev.turntable.pool.testing.Waits.awaitGone;
import static dev.turntable.pool.testing.Waits.awaitLatch;
import static dev.turntable.pool.testing.Waits.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.classes.ClassConfig;
import dev.turntable.pool.testing.CountingThreadFactory;
import dev.turntable.pool.testing.PoolCleanup;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Review A: scratch tests of task classes that fail on the current code. */
final class ReviewAClassesTest {

    private final PoolCleanup cleanup = new PoolCleanup();

    @AfterEach
    void stopPools() {
        cleanup.close();
    }

    /**
     * setClassLoadPercents and setRequestorMap from two JMX consoles at once: each reads the
     * other half of the configuration outside the registration lock, so whichever applies second
     * writes back the stale half and the first change is silently lost (both calls return
     * normally).
     */
    @Test
    void concurrentPercentsAndMapChangesBothTakeEffect() throws Exception {
        TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(2)
                .taskClasses("a:50;b:50", "x-.*:a").build());
        TurntableQueue q = pool.getTurntableQueue();
        Thread setPercents;
        Thread setMap;
        synchronized (q.registration) {
            setPercents = new Thread(() -> q.setClassLoadPercents("a:70;b:30"), "set-percents");
            setPercents.start();
            eventually("percents waits for the lock", () -> setPercents.getState() == Thread.State.BLOCKED);
            setMap = new Thread(() -> q.setRequestorMap("y-.*:b"), "set-map");
            setMap.start();
            eventually("map waits for the lock", () -> setMap.getState() == Thread.State.BLOCKED);
        }
        awaitGone(setPercents);
        awaitGone(setMap);
        ClassConfig c = q.classConfig();
        assertEquals("a:70;b:30 / y-.*:b", c.classLoadPercentsText() + " / " + c.requestorMapText());
    }
}
