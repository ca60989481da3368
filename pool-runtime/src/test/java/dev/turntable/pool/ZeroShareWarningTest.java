package dev.turntable.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.testing.PoolCleanup;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The warning that requestors no regex matches go to a class at 0% (their tasks never start) is
 * given when some can, and not when a catch-all regex sends every requestor elsewhere: a review
 * saw it for {@code bsub.*:b;.*:a}, where nothing falls through to b.
 */
final class ZeroShareWarningTest {

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();
    private final Logger logger = Logger.getLogger(TurntableQueue.class.getName());
    private final List<String> warnings = new CopyOnWriteArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord r) {
            warnings.add(r.getMessage());
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    private Level levelBefore;

    @BeforeEach
    void listen() {
        // Another test may have quietened the engine's logger (ChaosTest does), or used up the
        // settings warned about once per JVM.
        levelBefore = logger.getLevel();
        logger.setLevel(Level.ALL);
        TaskClassSettings.WARNED_ZERO_FALLBACK.clear();
        logger.addHandler(capture);
    }

    @AfterEach
    void stop() {
        logger.removeHandler(capture);
        logger.setLevel(levelBefore);
    }

    private List<String> zeroShareWarnings(String className) {
        return warnings.stream().filter(m -> m.contains("task class '" + className + "' is at 0%")).toList();
    }

    @Test
    void requestorsThatFallThroughToAZeroClassAreWarnedAbout() {
        cleanup.track(TurntableExecutor.builder().workers(1).taskClasses("warnA:100;warnB:0", "warnBsub.*:warnB").build());
        assertEquals(1, zeroShareWarnings("warnB").size(), "warned: " + warnings);
    }

    @Test
    void aCatchAllRegexLeavesNothingToFallThroughAndNoWarning() {
        cleanup.track(TurntableExecutor.builder().workers(1).taskClasses("quietA:100;quietB:0", "quietBsub.*:quietB;.*:quietA")
                .build());
        assertTrue(zeroShareWarnings("quietB").isEmpty(), "no warning: " + warnings);
    }
}
