package dev.turntable.agent.advice;

import dev.turntable.agent.bootstrap.TurntableBridge;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Function;
import net.bytebuddy.asm.Advice;

/**
 * Advice inlined into {@code ThreadPoolExecutor}'s 7-argument constructor (every other
 * constructor, and {@code Executors.newFixedThreadPool}/{@code newSingleThreadExecutor}, go
 * through it). On entry it may replace the {@code workQueue} argument before the constructor
 * stores it; on exit it reports the finished pool. Stateless; its code runs on the thread that
 * constructs the pool, and never throws into it.
 */
public final class PoolConstructorAdvice {

    private PoolConstructorAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    @SuppressWarnings("unchecked")
    static Object enter(@Advice.Argument(0) int corePoolSize,
                        @Advice.Argument(1) int maximumPoolSize,
                        @Advice.Argument(2) long keepAliveTime,
                        @Advice.Argument(3) TimeUnit unit,
                        @Advice.Argument(value = 4, readOnly = false) BlockingQueue<Runnable> workQueue,
                        @Advice.Argument(5) ThreadFactory threadFactory,
                        @Advice.Argument(6) RejectedExecutionHandler handler) {
        Function<Object[], Object[]> hook = TurntableBridge.poolConstructing;
        if (hook == null) {
            return null;
        }
        Object[] answer = hook.apply(new Object[] {
            corePoolSize, maximumPoolSize, keepAliveTime, unit, workQueue, threadFactory, handler});
        if (answer == null) {
            return null;
        }
        if (answer[0] != null) {
            workQueue = (BlockingQueue<Runnable>) answer[0];
        }
        return answer[1];
    }

    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(@Advice.This Object pool, @Advice.Enter Object token) {
        if (token != null) {
            BiConsumer<Object, Object> hook = TurntableBridge.poolConstructed;
            if (hook != null) {
                hook.accept(pool, token);
            }
        }
    }
}
