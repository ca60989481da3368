package dev.turntable.pool;

import static dev.turntable.pool.testing.Waits.awaitGone;
import static dev.turntable.pool.testing.Waits.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.turntable.pool.classes.ClassConfig;
import dev.turntable.pool.testing.PoolCleanup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Changes of the class shares and of the requestor map made at the same moment both take effect.
 *
 * <p>Why a user would notice: two operators (or a script and a console) changing the two halves
 * of the task-class configuration at once each got a normal return, and one change was silently
 * lost: each setter read the other half before the registration lock and wrote it back stale.
 */
final class ConcurrentClassChangesTest {

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();

    /**
     * setClassLoadPercents and setRequestorMap from two JMX consoles at once: each reads the
     * other half of the configuration outside the registration lock, so whichever applies second
     * writes back the stale half and the first change is silently lost (both calls return
     * normally).
     */
    @Test
    void sharesAndMapChangedAtOnceBothTakeEffect() throws Exception {
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
