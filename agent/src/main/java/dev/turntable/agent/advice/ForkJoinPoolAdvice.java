package dev.turntable.agent.advice;

import dev.turntable.agent.bootstrap.TurntableBridge;
import java.util.function.Consumer;
import net.bytebuddy.asm.Advice;

/**
 * Advice inlined at the exit of every {@code ForkJoinPool} constructor, so the agent can list the
 * pool as seen and not managed. Stateless; never throws into the constructing thread.
 */
public final class ForkJoinPoolAdvice {

    private ForkJoinPoolAdvice() {
    }

    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(@Advice.This Object pool) {
        Consumer<Object> hook = TurntableBridge.forkJoinPoolConstructed;
        if (hook != null) {
            hook.accept(pool);
        }
    }
}
