package dev.turntable.agent.bootstrap;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * What the agent's code in {@code ThreadPoolExecutor} and {@code ForkJoinPool} calls: one static
 * method per place the agent hooks (the {@code Instrumenter} inserts a call to it), and the
 * hooks those methods call, typed with JDK interfaces only, so JDK code can see this class while
 * the agent's logic stays in the agent's class loader. Any thread may read or write the fields;
 * the agent sets them once at start. A {@code null} hook means "do nothing", so the pool is left
 * untouched. The methods never throw into the JDK code that calls them: whatever a hook throws
 * is dropped there, as the pool must work whatever the agent does.
 *
 * <p>A template, never loaded as it is: the agent defines a copy renamed
 * {@code java.util.concurrent.TurntableBridge} in {@code java.base} ({@code BootClasses}), calls
 * it by that name ({@code AdviceWriter}) and sets the copy's fields by reflection.
 */
final class TurntableBridge {

    /**
     * Called at the entry of {@code ThreadPoolExecutor}'s 7-argument constructor with its
     * arguments {@code {corePoolSize, maximumPoolSize, keepAliveTime, unit, workQueue,
     * threadFactory, handler}}. Returns {@code null} to leave the pool alone, else
     * {@code {replacementQueueOrNull, token}}: the token is handed to {@link #poolConstructed}.
     */
    static volatile Function<Object[], Object[]> poolConstructing;

    /** Called when that constructor returns normally: the new pool and the token from {@link #poolConstructing}. */
    static volatile BiConsumer<Object, Object> poolConstructed;

    /** Called when a {@code ForkJoinPool} constructor returns (once per constructor in a chain). */
    static volatile Consumer<Object> forkJoinPoolConstructed;

    /** The engine's queue class; a pool whose work queue is of this exact class is managed. */
    static volatile Class<?> engineQueueClass;

    /** Called on a worker thread of a managed pool as it leaves the pool, with the pool's work queue. */
    static volatile Consumer<Object> workerExiting;

    /**
     * Called on a new worker thread of a managed pool as its {@code runWorker} begins, with the
     * pool's work queue and the task the thread was created with (never null here).
     */
    static volatile BiConsumer<Object, Object> workerStarting;

    /**
     * Called when {@code ThreadPoolExecutor.addWorker} of a managed pool is asked for a core
     * thread to run a task first, on the submitting thread, with {pool, its work queue, that
     * task}: true if the engine queued the task instead (a single-worker pool's), and
     * started a thread for it if one was needed (see {@link #queuesFirstTask}).
     */
    static volatile Predicate<Object[]> firstTaskQueueing;

    /**
     * Called when a managed pool rejects a task, with the pool: on the submitting thread, at the
     * entry of {@code ThreadPoolExecutor.reject(Runnable)}, just before the pool's own
     * {@code RejectedExecutionHandler} runs (which the agent never replaces).
     */
    static volatile Consumer<Object> poolRejected;

    /**
     * Called on a worker thread whose {@code ThreadPoolExecutor.runWorker} is ending by a
     * throwable, at the exit of {@code runWorker} (after {@code processWorkerExit} has started
     * the replacement worker): true if it is the engine's retirement signal, which the advice
     * then swallows so that it never reaches the thread's {@code UncaughtExceptionHandler}.
     */
    static volatile Predicate<Throwable> retirementSignal;

    /**
     * Called when {@code shutdown()} or {@code shutdownNow()} of a managed pool returns, with the
     * pool's work queue, so the engine lets idle workers leave once the queue is empty.
     */
    static volatile Consumer<Object> ownerShutDown;

    /**
     * Called at the entry of a managed pool's {@code shutdownNow()} with the pool's work queue and
     * {@code true}, before the executor drains it; again with {@code false} if the call then
     * throws (a security manager refused it), on the thread that shuts the pool down.
     */
    static volatile BiConsumer<Object, Boolean> ownerStopping;

    /**
     * Called in a managed pool's {@code tryTerminate}, just before it calls the pool's
     * {@code terminated()} (so before {@code awaitTermination} can return), with the pool's work
     * queue, on the thread that completes the termination.
     */
    static volatile Consumer<Object> ownerTerminated;

    private TurntableBridge() {
    }

    /**
     * Called first thing in {@code ThreadPoolExecutor}'s 7-argument constructor (before it checks
     * or stores anything) with its arguments: returns what {@link #poolConstructing} answered,
     * or {@code null}. The constructor keeps it in a local variable of its own for
     * {@link #queueFor} and {@link #constructed}, so a pool built while this one is being built
     * (by another agent's code in the constructor, say) cannot take its place.
     */
    static Object constructing(int corePoolSize, int maximumPoolSize, long keepAliveTime, TimeUnit unit,
                               BlockingQueue<Runnable> workQueue, ThreadFactory threadFactory,
                               RejectedExecutionHandler handler) {
        try {
            Function<Object[], Object[]> hook = poolConstructing;
            return hook == null ? null : hook.apply(new Object[] {
                corePoolSize, maximumPoolSize, keepAliveTime, unit, workQueue, threadFactory, handler});
        } catch (Throwable ignored) {
            return null; // the pool is left as the application built it
        }
    }

    /** The work queue the constructor goes on with: the engine's, if {@code answer} holds one, else its own. */
    static BlockingQueue<Runnable> queueFor(Object answer, BlockingQueue<Runnable> workQueue) {
        try {
            Object queue = part(answer, 0);
            if (queue != null) {
                @SuppressWarnings("unchecked")
                BlockingQueue<Runnable> replacement = (BlockingQueue<Runnable>) queue;
                return replacement;
            }
        } catch (Throwable ignored) {
            // the queue the application gave
        }
        return workQueue;
    }

    /** Called as that constructor returns normally, with the new pool and what {@link #constructing} answered. */
    static void constructed(Object pool, Object answer) {
        try {
            Object token = part(answer, 1);
            BiConsumer<Object, Object> hook = poolConstructed;
            if (token != null && hook != null) {
                hook.accept(pool, token);
            }
        } catch (Throwable ignored) {
            // the pool works as the JDK built it
        }
    }

    /** Part {@code i} of {@link #poolConstructing}'s answer {@code {queueOrNull, token}}, or {@code null}. */
    private static Object part(Object answer, int i) {
        return answer instanceof Object[] && ((Object[]) answer).length == 2 ? ((Object[]) answer)[i] : null;
    }

    /** Called as each {@code ForkJoinPool} constructor returns normally (once per constructor in a chain). */
    static void forkJoinPoolCreated(Object pool) {
        try {
            Consumer<Object> hook = forkJoinPoolConstructed;
            if (hook != null) {
                hook.accept(pool);
            }
        } catch (Throwable ignored) {
            // only the agent's table misses the pool
        }
    }

    /** Whether {@code workQueue} is the engine's: the pool is managed. One class comparison otherwise. */
    private static boolean managed(Object workQueue) {
        Class<?> engine = engineQueueClass;
        return engine != null && workQueue != null && workQueue.getClass() == engine;
    }

    /**
     * Calls {@code hook} with {@code argument} if the pool whose work queue is {@code workQueue}
     * is managed; drops whatever it throws. What a dropped call costs: a worker that left
     * unannounced is drained by the engine's housekeeper; a rejection goes uncounted (the pool's
     * own handler still runs); after a shutdown idle workers leave at their next timed wake-up.
     */
    private static void ifManaged(Object workQueue, Consumer<Object> hook, Object argument) {
        try {
            if (hook != null && managed(workQueue)) {
                hook.accept(argument);
            }
        } catch (Throwable ignored) {
            // see above
        }
    }

    /** Called at the entry of {@code runWorker}, with the pool's work queue and the worker's first task (or null). */
    static void workerStart(Object workQueue, Object firstTask) {
        try {
            BiConsumer<Object, Object> hook = workerStarting;
            if (hook != null && firstTask != null && managed(workQueue)) {
                hook.accept(workQueue, firstTask);
            }
        } catch (Throwable ignored) {
            // see ifManaged: the thread then joins when it first asks the queue for a task
        }
    }

    /**
     * Called at the entry of {@code addWorker(firstTask, core)}: true if the task was queued
     * instead, and the method is then to return true at once (the task is accepted) without
     * making a thread for it. For a managed single-worker pool asked for a core thread while
     * tasks wait in its queue (a worker left and its replacement is not made yet),
     * ThreadPoolExecutor would run the task on the new thread ahead of all of them, which broke
     * a single-thread executor's order at each worker's lifetime boundary. Queued, it waits its
     * turn; the engine
     * has then re-checked the pool's run state as {@code execute} does and started a core
     * thread without a task of its own if the pool is below its core size
     * ({@code TurntableQueue.queueBehindWaiting}, which answers false only with the task not
     * queued). False lets {@code addWorker} go on as it would. Nothing it throws reaches the pool.
     */
    static boolean queuesFirstTask(Object pool, Object workQueue, Object firstTask, boolean core) {
        try {
            Predicate<Object[]> hook = firstTaskQueueing;
            // The array only here: a thread is about to be made, which costs far more.
            return core && firstTask != null && hook != null && managed(workQueue)
                    && hook.test(new Object[] {pool, workQueue, firstTask});
        } catch (Throwable ignored) {
            return false; // the hook answers for itself once the task is queued: see Takeover.onFirstTask
        }
    }

    /** Called at the entry of {@code processWorkerExit}, with the pool's work queue. */
    static void workerExit(Object workQueue) {
        ifManaged(workQueue, workerExiting, workQueue);
    }

    /** Called at the entry of {@code reject(Runnable)}, with the pool and its work queue. */
    static void rejecting(Object pool, Object workQueue) {
        ifManaged(workQueue, poolRejected, pool);
    }

    /**
     * Called when {@code runWorker} ends by {@code thrown}: true if it is the engine's retirement
     * signal, which the calling code then swallows (returns normally) instead of rethrowing.
     */
    static boolean swallows(Throwable thrown) {
        try {
            Predicate<Throwable> retired = retirementSignal;
            return retired != null && retired.test(thrown);
        } catch (Throwable ignored) {
            return false;
        }
    }

    /** Called as {@code shutdown()} or {@code shutdownNow()} returns normally, with the pool's work queue. */
    static void shutDown(Object workQueue) {
        ifManaged(workQueue, ownerShutDown, workQueue);
    }

    /** Called in {@code tryTerminate} just before {@code terminated()}, with the pool's work queue. */
    static void terminating(Object workQueue) {
        ifManaged(workQueue, ownerTerminated, workQueue);
    }

    /**
     * Called at the entry of {@code shutdownNow()} with {@code stopping} true, and with false if
     * it then throws, with the pool's work queue.
     */
    static void stopping(Object workQueue, boolean stopping) {
        try {
            if (managed(workQueue)) {
                BiConsumer<Object, Boolean> hook = ownerStopping;
                if (hook != null) {
                    hook.accept(workQueue, stopping);
                }
            }
        } catch (Throwable ignored) {
            // the drain still returns every queued task
        }
    }
}
