package dev.turntable.agent.advice;

import dev.turntable.agent.bootstrap.TurntableBridge;
import java.util.concurrent.BlockingQueue;
import java.util.function.Consumer;
import net.bytebuddy.asm.Advice;

/**
 * Advice inlined at the entry of {@code ThreadPoolExecutor.processWorkerExit(Worker, boolean)},
 * which runs on the worker thread as it leaves the pool: tells the engine, for managed pools only.
 * For any other pool it costs one class comparison. Stateless; never throws into the worker.
 */
public final class WorkerExitAdvice {

    private WorkerExitAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.FieldValue("workQueue") BlockingQueue<Runnable> workQueue) {
        Class<?> engine = TurntableBridge.engineQueueClass;
        if (engine != null && workQueue != null && workQueue.getClass() == engine) {
            Consumer<Object> hook = TurntableBridge.workerExiting;
            if (hook != null) {
                hook.accept(workQueue);
            }
        }
    }
}
