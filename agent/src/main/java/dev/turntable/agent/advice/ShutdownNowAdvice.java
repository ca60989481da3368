package dev.turntable.agent.advice;

import dev.turntable.agent.bootstrap.TurntableBridge;
import java.util.concurrent.BlockingQueue;
import java.util.function.BiConsumer;
import net.bytebuddy.asm.Advice;

/**
 * Advice inlined at the entry (and exceptional exit) of {@code ThreadPoolExecutor.shutdownNow()}:
 * tells the engine of a managed pool that the executor is about to drain its queue, so that a
 * restartable task rebalancing stopped, still on its way back, is not put back after the drain
 * (where nothing would run it); if {@code shutdownNow()} throws, it says so again. For any other
 * pool it costs one class comparison. Stateless; runs on the thread that shuts the pool down and
 * never throws into it. Both methods are inlined into {@code java.base}, which sees only the
 * bridge (renamed into {@code java.util.concurrent}): they call nothing of this class.
 */
public final class ShutdownNowAdvice {

    private ShutdownNowAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.FieldValue("workQueue") BlockingQueue<Runnable> workQueue) {
        Class<?> engine = TurntableBridge.engineQueueClass;
        if (engine != null && workQueue != null && workQueue.getClass() == engine) {
            BiConsumer<Object, Boolean> hook = TurntableBridge.ownerStopping;
            if (hook != null) {
                hook.accept(workQueue, Boolean.TRUE);
            }
        }
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.FieldValue("workQueue") BlockingQueue<Runnable> workQueue,
                     @Advice.Thrown Throwable thrown) {
        Class<?> engine = TurntableBridge.engineQueueClass;
        if (thrown != null && engine != null && workQueue != null && workQueue.getClass() == engine) {
            BiConsumer<Object, Boolean> hook = TurntableBridge.ownerStopping;
            if (hook != null) {
                hook.accept(workQueue, Boolean.FALSE); // refused: nothing was stopped
            }
        }
    }
}
