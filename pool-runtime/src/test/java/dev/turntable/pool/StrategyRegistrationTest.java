package dev.turntable.pool;

import static dev.turntable.pool.testing.Waits.awaitLatch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.strategy.RoundRobin;
import dev.turntable.pool.strategy.Statistic;
import dev.turntable.pool.strategy.WorkerChoiceStrategy;
import dev.turntable.pool.strategy.WorkerView;
import dev.turntable.pool.testing.PoolCleanup;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A strategy of one's own is checked when it is registered, not when it is first chosen (maybe
 * live, much later), and its name reads as a selection of it does.
 */
class StrategyRegistrationTest {

    @RegisterExtension
    final PoolCleanup cleanup = new PoolCleanup();

    @Test
    void aFactoryMakingAStrategyOfAnotherNameIsRefusedAtRegistrationAndNothingIsRegistered() {
        TurntableExecutor.Builder b = TurntableExecutor.builder().workers(1);
        assertRefused("strategy factory for 'MINE' returned a strategy named 'ROUND_ROBIN': its name() must be 'MINE'",
                () -> b.registerStrategy("MINE", RoundRobin::new));
        TurntableExecutor pool = cleanup.track(b.build());
        assertFalse(pool.getAvailableStrategies().contains("MINE"), () -> pool.getAvailableStrategies().toString());
        assertRefused("strategy 'MINE' is not one of", () -> pool.setStrategy("MINE"));
        assertEquals("LEAST_USED", pool.getStrategy());
    }

    @Test
    void aFactoryThatReturnsNullOrThrowsIsRefusedAtRegistration() {
        TurntableQueueBuilder b = TurntableQueue.builder();
        assertRefused("strategy factory for 'MINE' returned null: it must return a new WorkerChoiceStrategy named 'MINE'",
                () -> b.registerStrategy("MINE", () -> null));
        assertRefused("strategy factory for 'MINE' threw java.lang.IllegalStateException: not configured",
                () -> b.registerStrategy("MINE", () -> {
                    throw new IllegalStateException("not configured");
                }));
        assertFalse(b.build().getAvailableStrategies().contains("MINE"));
    }

    @Test
    void aNameIsRegisteredAsSelectionsReadIt() throws InterruptedException {
        TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(2)
                .registerStrategy(" my-rule ", () -> firstAvailable("MY_RULE")).strategy("my-rule").build());
        assertEquals("MY_RULE", pool.getStrategy());
        assertTrue(pool.getAvailableStrategies().contains("MY_RULE"), () -> pool.getAvailableStrategies().toString());
        CountDownLatch ran = new CountDownLatch(1);
        pool.execute(ran::countDown);
        awaitLatch(ran, "a task under MY_RULE");

        pool.setStrategy("ROUND_ROBIN");
        pool.setStrategy("My_Rule");
        assertEquals("MY_RULE", pool.getStrategy());
    }

    @Test
    void aNameThatDoesNotReadAsAnIdentifierIsRefused() {
        TurntableQueueBuilder b = TurntableQueue.builder();
        assertRefused("strategy name '9LIVES' must read as [A-Z][A-Z0-9_]*",
                () -> b.registerStrategy("9LIVES", () -> firstAvailable("9LIVES")));
        assertRefused("strategy name 'my rule' must read as [A-Z][A-Z0-9_]*",
                () -> b.registerStrategy("my rule", () -> firstAvailable("MY RULE")));
    }

    @Test
    void aStrategyMayBeNamedBeforeItIsRegistered() {
        TurntableQueue queue = TurntableQueue.builder().strategy("fixed")
                .registerStrategy("FIXED", () -> firstAvailable("FIXED")).build();
        assertEquals("FIXED", queue.getStrategy());

        TurntableExecutor pool = cleanup.track(TurntableExecutor.builder().workers(1).strategy("FIXED")
                .registerStrategy("fixed", () -> firstAvailable("FIXED")).build());
        assertEquals("FIXED", pool.getStrategy());
    }

    @Test
    void anUnknownStrategyNameIsRefusedByBuildNamingTheRegisteredOnes() {
        TurntableQueueBuilder b = TurntableQueue.builder().strategy("NOPE")
                .registerStrategy("MINE", () -> firstAvailable("MINE"));
        assertRefused("strategy 'NOPE' is not one of [ROUND_ROBIN, LEAST_USED", b::build);
        assertRefused("LIFETIME_FIRST, MINE]", b::build);

        TurntableExecutor.Builder e = TurntableExecutor.builder().workers(1).strategy("NOPE");
        assertRefused("strategy 'NOPE' is not one of [ROUND_ROBIN", e::build);
        assertRefused("strategy null is not allowed: a strategy name: one of [ROUND_ROBIN",
                () -> TurntableQueue.builder().strategy(null));
    }

    @Test
    void aStrategyWhoseRequiredStatisticsIsNullIsRefusedAtRegistration() {
        TurntableQueueBuilder b = TurntableQueue.builder();
        assertRefused("strategy 'NO_STATS': requiredStatistics() returned null: it must return a set of Statistic",
                () -> b.registerStrategy("no-stats", () -> new NoStatistics("NO_STATS")));
        TurntableQueue queue = b.build();
        assertFalse(queue.getAvailableStrategies().contains("NO_STATS"), () -> queue.getAvailableStrategies().toString());
    }

    /** A set holding null would fail later the same way, inside the engine: refused at registration too. */
    @Test
    void aStrategyWhoseRequiredStatisticsHoldNullIsRefusedAtRegistration() {
        java.util.Set<Statistic> withNull = new java.util.HashSet<>();
        withNull.add(null);
        TurntableQueueBuilder b = TurntableQueue.builder();
        assertRefused("strategy 'HOLDS_NULL': requiredStatistics() [null] holds null",
                () -> b.registerStrategy("holds-null", () -> new TurntableQueueStatisticsTest.Declaring("HOLDS_NULL", withNull)));
        assertFalse(b.build().getAvailableStrategies().contains("HOLDS_NULL"));
    }

    private static void assertRefused(String expected, Executable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        assertTrue(String.valueOf(e.getMessage()).contains(expected), () -> "expected '" + expected + "' in: " + e.getMessage());
    }

    /** A strategy breaking the contract: its requiredStatistics() is null. */
    private record NoStatistics(String name) implements WorkerChoiceStrategy {
        @Override
        public Set<Statistic> requiredStatistics() {
            return null;
        }

        @Override
        public int choose(WorkerView workers, long nowNanos) {
            return NONE;
        }
    }

    /** The lowest available worker, under a name of the test's choosing, needing no statistics. */
    private static WorkerChoiceStrategy firstAvailable(String name) {
        return new TurntableQueueStatisticsTest.Declaring(name, Set.of());
    }
}
