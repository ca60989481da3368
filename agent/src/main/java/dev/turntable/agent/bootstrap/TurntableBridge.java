package dev.turntable.agent.bootstrap;

import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The hooks that advice inlined into {@code java.base} calls: a class typed with JDK interfaces
 * only, so JDK code can see it while the agent's logic stays in the agent's class loader. Any
 * thread may read or write the fields; the agent sets them once at start. A {@code null} hook
 * means "do nothing", so the advice leaves the pool untouched.
 *
 * <p>A template, never loaded as it is: the agent defines a copy renamed
 * {@code java.util.concurrent.TurntableBridge} in {@code java.base}, renames the advice's
 * references to match, and sets the copy's fields by reflection ({@code BootClasses}).
 */
public final class TurntableBridge {

    /**
     * Called at the entry of {@code ThreadPoolExecutor}'s 7-argument constructor with its
     * arguments {@code {corePoolSize, maximumPoolSize, keepAliveTime, unit, workQueue,
     * threadFactory, handler}}. Returns {@code null} to leave the pool alone, else
     * {@code {replacementQueueOrNull, token}}: the token is handed to {@link #poolConstructed}.
     */
    public static volatile Function<Object[], Object[]> poolConstructing;

    /** Called when that constructor returns normally: the new pool and the token from {@link #poolConstructing}. */
    public static volatile BiConsumer<Object, Object> poolConstructed;

    /** Called when a {@code ForkJoinPool} constructor returns (once per constructor in a chain). */
    public static volatile Consumer<Object> forkJoinPoolConstructed;

    /** The engine's queue class; a pool whose work queue is of this exact class is managed. */
    public static volatile Class<?> engineQueueClass;

    /** Called on a worker thread of a managed pool as it leaves the pool, with the pool's work queue. */
    public static volatile Consumer<Object> workerExiting;

    /**
     * Called when a managed pool rejects a task, with the pool: on the submitting thread, at the
     * entry of {@code ThreadPoolExecutor.reject(Runnable)}, just before the pool's own
     * {@code RejectedExecutionHandler} runs (which the agent never replaces).
     */
    public static volatile Consumer<Object> poolRejected;

    /**
     * Called on a worker thread whose {@code ThreadPoolExecutor.runWorker} is ending by a
     * throwable, at the exit of {@code runWorker} (after {@code processWorkerExit} has started
     * the replacement worker): true if it is the engine's retirement signal, which the advice
     * then swallows so that it never reaches the thread's {@code UncaughtExceptionHandler}.
     */
    public static volatile Predicate<Throwable> retirementSignal;

    /**
     * Called when {@code shutdown()} or {@code shutdownNow()} of a managed pool returns, with the
     * pool's work queue, so the engine lets idle workers leave once the queue is empty.
     */
    public static volatile Consumer<Object> ownerShutDown;

    /**
     * Called at the entry of a managed pool's {@code shutdownNow()} with the pool's work queue and
     * {@code true}, before the executor drains it; again with {@code false} if the call then
     * throws (a security manager refused it), on the thread that shuts the pool down.
     */
    public static volatile BiConsumer<Object, Boolean> ownerStopping;

    private TurntableBridge() {
    }
}
