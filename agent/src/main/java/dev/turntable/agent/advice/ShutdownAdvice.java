package dev.turntable.agent.advice;

import dev.turntable.agent.bootstrap.TurntableBridge;
import java.util.concurrent.BlockingQueue;
import java.util.function.Consumer;
import net.bytebuddy.asm.Advice;

/**
 * Advice inlined at the (normal) exit of {@code ThreadPoolExecutor.shutdown()} and
 * {@code shutdownNow()}: tells the engine of a managed pool that its executor shut down, so that
 * idle workers stop waiting indefinitely and leave once the queue is empty (as
 * {@code TurntableExecutor} does for itself), and no worker retires any more. For any other pool
 * it costs one class comparison. Stateless; runs on the thread that shuts the pool down and never
 * throws into it.
 */
public final class ShutdownAdvice {

    private ShutdownAdvice() {
    }

    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(@Advice.FieldValue("workQueue") BlockingQueue<Runnable> workQueue) {
        Class<?> engine = TurntableBridge.engineQueueClass;
        if (engine != null && workQueue != null && workQueue.getClass() == engine) {
            Consumer<Object> hook = TurntableBridge.ownerShutDown;
            if (hook != null) {
                hook.accept(workQueue);
            }
        }
    }
}
