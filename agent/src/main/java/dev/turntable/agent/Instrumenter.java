package dev.turntable.agent;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.security.ProtectionDomain;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Installs the agent's hooks by retransformation (no field or method is ever added to a JDK
 * class, so agents that retransform later keep working), through a transformer that lets
 * through exactly the two JDK classes hooked. In {@code ThreadPoolExecutor} it hooks the
 * 7-argument constructor, {@code processWorkerExit}, {@code reject}, {@code runWorker} (so a
 * retired worker's signal never reaches the application) and {@code shutdown}/{@code shutdownNow};
 * in {@code ForkJoinPool} its constructors ({@link AdviceWriter}). Every failure is reported as
 * one line. Called once, on the thread that runs
 * {@code premain}/{@code agentmain}.
 */
final class Instrumenter {

    static final String TPE = "java.util.concurrent.ThreadPoolExecutor";

    private Instrumenter() {
    }

    /**
     * Whether this JDK's {@code ThreadPoolExecutor} has the members the advice relies on; when
     * it does not, the agent advises nothing (an unknown JDK leaves the application untouched).
     */
    static String unsupportedReason() {
        try {
            ThreadPoolExecutor.class.getConstructor(int.class, int.class, long.class, TimeUnit.class,
                    BlockingQueue.class, ThreadFactory.class, RejectedExecutionHandler.class);
            Field q = ThreadPoolExecutor.class.getDeclaredField("workQueue");
            if (!BlockingQueue.class.equals(q.getType())) {
                return "ThreadPoolExecutor.workQueue is a " + q.getType().getName();
            }
            for (Method m : ThreadPoolExecutor.class.getDeclaredMethods()) {
                if (m.getName().equals("processWorkerExit") && m.getParameterCount() == 2
                        && m.getParameterTypes()[1] == boolean.class) {
                    return null;
                }
            }
            return "ThreadPoolExecutor has no processWorkerExit(Worker, boolean)";
        } catch (ReflectiveOperationException | RuntimeException e) {
            return "ThreadPoolExecutor is not as expected: " + e;
        }
    }

    /**
     * Whether this JDK's {@code ThreadPoolExecutor} has the {@code reject(Runnable)} instance
     * method that the agent counts rejections at (JDK 8 to 25 do). Without it the agent
     * still runs; {@code RejectedTaskCount} of its pools then reads {@code -1}, not collected.
     */
    static boolean countsRejections() {
        try {
            Method m = ThreadPoolExecutor.class.getDeclaredMethod("reject", Runnable.class);
            return !java.lang.reflect.Modifier.isStatic(m.getModifiers());
        } catch (ReflectiveOperationException | RuntimeException e) {
            return false;
        }
    }

    /**
     * Why this JDK's {@code ThreadPoolExecutor} cannot retire workers under the agent, or
     * {@code null} if it can: retirement needs {@code runWorker(Worker)}, whose exit the advice
     * catches the retirement signal at, after its {@code finally} ran {@code processWorkerExit}
     * (which starts the replacement worker). JDK 8 to 25 have it.
     */
    static String retirementUnsupportedReason() {
        try {
            for (Method m : ThreadPoolExecutor.class.getDeclaredMethods()) {
                if (m.getName().equals("runWorker") && m.getParameterCount() == 1 && m.getReturnType() == void.class
                        && m.getParameterTypes()[0].getName().equals(TPE + "$Worker")) {
                    return null;
                }
            }
            return "ThreadPoolExecutor has no runWorker(Worker) to catch a retired worker's signal in";
        } catch (RuntimeException | LinkageError e) {
            return "ThreadPoolExecutor is not as expected: " + e;
        }
    }

    /**
     * Whether this JDK's {@code ThreadPoolExecutor.Worker} has the {@code Runnable firstTask}
     * field (JDK 8 to 25 do) that the {@code runWorker} advice passes to the engine, so that a
     * new thread shows as a worker while it runs the task it was created with. Without it that
     * advice is left out and such a thread joins when it first asks the queue for a task.
     */
    static boolean workerHasFirstTask() {
        try {
            Field f = Class.forName(TPE.replace('/', '.') + "$Worker", false, null).getDeclaredField("firstTask");
            return f.getType() == Runnable.class && !java.lang.reflect.Modifier.isStatic(f.getModifiers());
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return false;
        }
    }

    /**
     * Installs the advice: registers {@link AdviceTransformer} (for the JVM's life, so a later
     * retransformation by another agent keeps the advice) and retransforms the two classes, one
     * at a time, so that one failing leaves the other advised. A failure is reported as one line.
     *
     * @param retirement told when {@code ThreadPoolExecutor} was transformed (with the
     *                   {@code runWorker} advice, when the JDK has that method), or could not be
     */
    static void install(Instrumentation inst, Retirement retirement) {
        inst.addTransformer(new AdviceTransformer(retirement), true);
        for (Class<?> advised : List.of(ThreadPoolExecutor.class, ForkJoinPool.class)) {
            try {
                inst.retransformClasses(advised);
            } catch (Throwable e) { // the JVM refused the new class file: the class stays as it was
                Log.line("could not retransform " + advised.getName() + ", its pools are left untouched: " + e);
                if (advised == ThreadPoolExecutor.class) {
                    retirement.adviceFailed("ThreadPoolExecutor could not be retransformed: " + e);
                }
            }
        }
    }

    /**
     * The agent's class file transformer: hands the two advised classes to
     * {@link AdviceWriter#advise} and
     * returns {@code null} (unchanged) for every other class, after one string comparison, so
     * later class loads cost the application nearly nothing. Never throws: a class that cannot
     * be advised is reported in one line and left as it was. Called by the JVM on class-loading
     * and retransforming threads.
     *
     * <p>A plain {@code ClassFileTransformer} with ASM, not Byte Buddy: its {@code AgentBuilder}
     * generated its own Java 9 transformer class at first use (about 0.3 s of start-up), and its
     * advice machinery loaded some 1,000 classes more (most of the rest).
     */
    static final class AdviceTransformer implements ClassFileTransformer {
        private final Retirement retirement;

        AdviceTransformer(Retirement retirement) {
            this.retirement = retirement;
        }

        static boolean isAdvised(String internalName) {
            return AdviceWriter.TPE.equals(internalName) || AdviceWriter.FJP.equals(internalName);
        }

        @Override
        public byte[] transform(Module module, ClassLoader loader, String internalName, Class<?> redefined,
                                ProtectionDomain domain, byte[] classFile) {
            if (loader != null || !isAdvised(internalName)) {
                return null; // the JDK's own classes are in the bootstrap loader only
            }
            boolean tpe = AdviceWriter.TPE.equals(internalName);
            try {
                byte[] advised = AdviceWriter.advise(internalName, classFile);
                if (tpe) {
                    retirement.adviceInstalled();
                }
                return advised;
            } catch (Throwable e) {
                Log.line("could not instrument " + internalName.replace('/', '.') + ", its pools are left untouched: " + e);
                if (tpe) {
                    retirement.adviceFailed("ThreadPoolExecutor could not be instrumented: " + e);
                }
                return null;
            }
        }
    }
}
