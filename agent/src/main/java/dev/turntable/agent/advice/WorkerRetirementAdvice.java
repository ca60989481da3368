package dev.turntable.agent.advice;

import dev.turntable.agent.bootstrap.TurntableBridge;
import java.util.function.Predicate;
import net.bytebuddy.asm.Advice;

/**
 * Advice inlined at the exit of {@code ThreadPoolExecutor.runWorker(Worker)}, including its exit
 * by a throwable: when the engine retired the worker (it threw its retirement signal out of
 * {@code take()}), the worker loop ended abruptly, {@code processWorkerExit} (in
 * {@code runWorker}'s {@code finally}, so before this advice) has already started the
 * replacement thread, and all that is left is for the signal not to reach the thread's
 * {@code UncaughtExceptionHandler}: the advice replaces it by a normal return. Any other
 * throwable (a task's exception) goes on as without the agent. It runs once per worker thread,
 * at its end; on a normal return it costs one null check. Stateless; never throws into the worker.
 */
public final class WorkerRetirementAdvice {

    private WorkerRetirementAdvice() {
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Thrown(readOnly = false) Throwable thrown) {
        if (thrown != null) {
            Predicate<Throwable> retired = TurntableBridge.retirementSignal;
            if (retired != null && retired.test(thrown)) {
                thrown = null;
            }
        }
    }
}
