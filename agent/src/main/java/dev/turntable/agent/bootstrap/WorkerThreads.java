package dev.turntable.agent.bootstrap;

import java.lang.reflect.Field;

/**
 * Finds the {@code ThreadPoolExecutor} a live worker thread belongs to, for pools that existed
 * before the agent was attached. Stateless; any thread.
 *
 * <p>A template, never loaded as it is: the agent defines a copy renamed
 * {@code java.util.concurrent.TurntableWorkerThreads} in {@code java.base}, where reading the
 * JDK's private fields needs no {@code --add-opens}, and nothing is opened to the application.
 */
final class WorkerThreads {

    private static final String WORKER = "java.util.concurrent.ThreadPoolExecutor$Worker";

    private WorkerThreads() {
    }

    /**
     * The pool whose worker {@code t} is, or {@code null} if it is not a pool worker.
     *
     * @throws ReflectiveOperationException if this JDK's {@code Thread} or worker layout is unknown
     */
    static Object poolOf(Thread t) throws ReflectiveOperationException {
        Object task = runnableOf(t);
        if (task == null || !WORKER.equals(task.getClass().getName())) {
            return null;
        }
        Field outer = task.getClass().getDeclaredField("this$0");
        outer.setAccessible(true);
        return outer.get(task);
    }

    private static Object runnableOf(Thread t) throws ReflectiveOperationException {
        try {
            Field holder = Thread.class.getDeclaredField("holder"); // JDK 19 and later
            holder.setAccessible(true);
            Object h = holder.get(t);
            if (h == null) {
                return null;
            }
            Field task = h.getClass().getDeclaredField("task");
            task.setAccessible(true);
            return task.get(h);
        } catch (NoSuchFieldException e) {
            Field target = Thread.class.getDeclaredField("target"); // up to JDK 18
            target.setAccessible(true);
            return target.get(t);
        }
    }
}
