package dev.turntable.agent;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class InstrumenterTest {

    @Test
    void thisJdkHasWhatTheAdviceNeeds() {
        assertNull(Instrumenter.unsupportedReason());
    }

    @Test
    void thisJdkHasTheRunWorkerMethodThatRetirementIsCaughtIn() {
        assertNull(Instrumenter.retirementUnsupportedReason());
    }

    @Test
    void thisJdkHasTheRejectMethodThatRejectionsAreCountedAt() {
        assertTrue(Instrumenter.countsRejections());
    }

    @Test
    void onlyTheTwoAdvisedClassesReachByteBuddy() {
        assertTrue(Instrumenter.OnlyAdvisedClasses.isAdvised("java/util/concurrent/ThreadPoolExecutor"));
        assertTrue(Instrumenter.OnlyAdvisedClasses.isAdvised("java/util/concurrent/ForkJoinPool"));
        assertFalse(Instrumenter.OnlyAdvisedClasses.isAdvised("java/util/concurrent/ScheduledThreadPoolExecutor"));
        assertFalse(Instrumenter.OnlyAdvisedClasses.isAdvised("com/acme/ThreadPoolExecutor"));
        assertFalse(Instrumenter.OnlyAdvisedClasses.isAdvised(null));
    }
}
