package dev.turntable.agent.advice;

import dev.turntable.agent.bootstrap.TurntableBridge;
import java.util.concurrent.BlockingQueue;
import java.util.function.Consumer;
import net.bytebuddy.asm.Advice;

/**
 * Advice inlined at the entry of {@code ThreadPoolExecutor.reject(Runnable)}, the one place every
 * rejection passes before the pool's {@code RejectedExecutionHandler} runs: counts it, for managed
 * pools only, so {@code RejectedTaskCount} needs no wrapper around the application's handler.
 * For any other pool it costs one class comparison. Stateless; runs on the submitting thread and
 * never throws into it.
 */
public final class RejectAdvice {

    private RejectAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.This Object pool,
                      @Advice.FieldValue("workQueue") BlockingQueue<Runnable> workQueue) {
        Class<?> engine = TurntableBridge.engineQueueClass;
        if (engine != null && workQueue != null && workQueue.getClass() == engine) {
            Consumer<Object> hook = TurntableBridge.poolRejected;
            if (hook != null) {
                hook.accept(pool);
            }
        }
    }
}
