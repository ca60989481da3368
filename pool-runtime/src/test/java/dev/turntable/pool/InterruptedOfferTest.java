package dev.turntable.pool;

import static dev.turntable.pool.testing.Waits.awaitGone;
import static dev.turntable.pool.testing.Waits.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A {@code put} or timed {@code offer} from a thread whose interrupt is pending (a rejection
 * handler on a thread being stopped, say) ends as it ends on the JDK queue the engine replaces:
 * the same result or exception, the same size afterwards, the same interrupt status. Each case
 * runs on the JDK queue and on the engine, and the two outcomes must match.
 */
final class InterruptedOfferTest {

    /** What a call did: its result or exception, the queue's size after it, and the interrupt status. */
    record Outcome(String result, int sizeAfter, boolean stillInterrupted) {
    }

    interface Call {
        Object on(BlockingQueue<Runnable> q, Runnable task) throws Exception;
    }

    private static final Call PUT = (q, t) -> {
        q.put(t);
        return "returned";
    };

    static Stream<Arguments> cases() {
        Call offerOneSecond = (q, t) -> q.offer(t, 1, TimeUnit.SECONDS);
        Call offerZero = (q, t) -> q.offer(t, 0, TimeUnit.SECONDS);
        Supplier<BlockingQueue<Runnable>> lbq = LinkedBlockingQueue::new;
        Supplier<BlockingQueue<Runnable>> abq = () -> new ArrayBlockingQueue<>(4);
        Supplier<BlockingQueue<Runnable>> sq = SynchronousQueue::new;
        Supplier<BlockingQueue<Runnable>> unbounded = () -> TurntableQueue.builder().unbounded().build();
        Supplier<BlockingQueue<Runnable>> bounded = () -> TurntableQueue.builder().bounded(4).build();
        Supplier<BlockingQueue<Runnable>> handOff = () -> TurntableQueue.builder().handOff().build();
        return Stream.of(
                Arguments.of("unbounded, put", lbq, unbounded, PUT),
                Arguments.of("unbounded, offer 1 s", lbq, unbounded, offerOneSecond),
                Arguments.of("unbounded, offer 0", lbq, unbounded, offerZero),
                Arguments.of("bounded with room, put", abq, bounded, PUT),
                Arguments.of("bounded with room, offer 1 s", abq, bounded, offerOneSecond),
                Arguments.of("bounded with room, offer 0", abq, bounded, offerZero),
                Arguments.of("hand-off without a taker, put", sq, handOff, PUT),
                Arguments.of("hand-off without a taker, offer 1 s", sq, handOff, offerOneSecond),
                Arguments.of("hand-off without a taker, offer 0", sq, handOff, offerZero));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void aPendingInterruptEndsTheCallAsOnTheReplacedQueue(String name, Supplier<BlockingQueue<Runnable>> jdk,
                                                          Supplier<BlockingQueue<Runnable>> engine, Call call) {
        Outcome expected = interrupted(jdk.get(), call);
        assertEquals(expected, interrupted(engine.get(), call), name);
    }

    static Stream<Arguments> handOffCases() {
        return cases().filter(a -> ((String) a.get()[0]).startsWith("hand-off"));
    }

    /**
     * With a taker waiting, as on this JDK's {@code SynchronousQueue}: a timed offer hands the
     * task off though the interrupt is pending, which stays set; a put does too on JDK 17, and
     * throws at once on JDK 25, whose put reads the interrupt first (and clears it), leaving
     * the taker waiting.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("handOffCases")
    void withATakerWaitingAPendingInterruptEndsTheCallAsOnTheReplacedQueue(String name, Supplier<BlockingQueue<Runnable>> jdk,
                                                                           Supplier<BlockingQueue<Runnable>> engine, Call call)
            throws Exception {
        Outcome expected = withTaker(jdk.get(), call);
        assertEquals(expected, withTaker(engine.get(), call), name);
    }

    /** The engine's reading of this JDK's {@code SynchronousQueue.put} agrees with what that put does. */
    @org.junit.jupiter.api.Test
    void theEngineKnowsWhetherThisJdksPutReadsTheInterruptFirst() throws Exception {
        Outcome jdk = withTaker(new SynchronousQueue<>(), PUT);
        assertEquals(jdk.result().equals("InterruptedException"), HandOffMode.SYNC_PUT_CHECKS_INTERRUPT_FIRST,
                "SynchronousQueue.put with a taker waiting and an interrupt pending: " + jdk + " on "
                        + Runtime.version());
    }

    private static Outcome interrupted(BlockingQueue<Runnable> q, Call call) {
        return callInterrupted(q, call, () -> { });
    }

    /** Calls with the interrupt pending; the interrupt status is read, and cleared, afterwards. */
    private static Outcome callInterrupted(BlockingQueue<Runnable> q, Call call, Runnable task) {
        Thread.currentThread().interrupt();
        String result;
        try {
            result = String.valueOf(call.on(q, task));
        } catch (Exception e) {
            result = e.getClass().getSimpleName();
        }
        boolean stillInterrupted = Thread.interrupted(); // clears it for the next case
        return new Outcome(result, q.size(), stillInterrupted);
    }

    /**
     * The call with a taker waiting. A call that returned handed the task to the taker; one that
     * threw handed nothing, and the taker, still waiting, is then interrupted to end it.
     */
    private static Outcome withTaker(BlockingQueue<Runnable> q, Call call) throws Exception {
        AtomicReference<Runnable> taken = new AtomicReference<>();
        Thread taker = new Thread(() -> {
            try {
                taken.set(q.take());
            } catch (InterruptedException e) {
                // ended by the test below: the call handed nothing
            }
        }, "taker");
        taker.start();
        eventually("the taker waits", () -> taker.getState() == Thread.State.WAITING);
        Runnable task = () -> { };
        Outcome outcome = callInterrupted(q, call, task);
        if (outcome.result().equals("InterruptedException")) {
            eventually("the taker still waits", () -> taker.getState() == Thread.State.WAITING
                    || taker.getState() == Thread.State.TIMED_WAITING);
            assertNull(taken.get(), "a call that threw handed nothing");
            taker.interrupt();
            awaitGone(taker);
            assertNull(taken.get(), "a call that threw handed nothing");
        } else {
            awaitGone(taker);
            assertSame(task, taken.get(), "the taker got the task");
        }
        // The size once the taker has the task: the engine's reads 1 for the instant a task is on
        // its way to the worker that took it (README), a SynchronousQueue's always 0.
        return new Outcome(outcome.result(), q.size(), outcome.stillInterrupted());
    }
}
