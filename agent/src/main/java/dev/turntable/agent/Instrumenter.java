package dev.turntable.agent;

import static net.bytebuddy.matcher.ElementMatchers.isConstructor;
import static net.bytebuddy.matcher.ElementMatchers.isStatic;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.returns;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.turntable.agent.advice.ForkJoinPoolAdvice;
import dev.turntable.agent.advice.PoolConstructorAdvice;
import dev.turntable.agent.advice.RejectAdvice;
import dev.turntable.agent.advice.ShutdownAdvice;
import dev.turntable.agent.advice.ShutdownNowAdvice;
import dev.turntable.agent.advice.WorkerExitAdvice;
import dev.turntable.agent.advice.WorkerRetirementAdvice;
import java.io.IOException;
import java.lang.instrument.IllegalClassFormatException;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.security.ProtectionDomain;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.agent.builder.ResettableClassFileTransformer;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.dynamic.scaffold.MethodGraph;
import net.bytebuddy.dynamic.scaffold.TypeValidation;
import net.bytebuddy.utility.JavaModule;

/**
 * Installs the advice with Byte Buddy: {@code RETRANSFORMATION} with class format changes
 * disabled (no field or method is ever added to a JDK class, so agents that retransform later
 * keep working), and an {@code ignore()} (replacing Byte Buddy's default, which skips JDK
 * classes) that lets through exactly the two JDK classes advised and nothing else. In
 * {@code ThreadPoolExecutor} it advises the 7-argument constructor, {@code processWorkerExit},
 * {@code reject}, {@code runWorker} (so a retired worker's signal never reaches the application)
 * and {@code shutdown}/{@code shutdownNow}; in {@code ForkJoinPool} its constructors. Every
 * failure is reported as one line. Called once, on the thread that runs
 * {@code premain}/{@code agentmain}.
 */
final class Instrumenter {

    static final String TPE = "java.util.concurrent.ThreadPoolExecutor";
    static final String FJP = "java.util.concurrent.ForkJoinPool";

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
     * method that {@link RejectAdvice} counts rejections at (JDK 8 to 25 do). Without it the agent
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
     * Installs the advice.
     *
     * @param retirement told when {@code ThreadPoolExecutor} was transformed (with the
     *                   {@code runWorker} advice, when the JDK has that method), or could not be
     */
    static void install(Instrumentation inst, Retirement retirement) {
        // DECORATE and ForDeclaredMethods: the advice only visits method bodies, so Byte Buddy need
        // not resolve the classes' hierarchies; redefineOnly: retransform the two classes without
        // matching every loaded class; OnlyAdvisedClasses: later class loads skip Byte Buddy.
        new AgentBuilder.Default(new ByteBuddy()
                        .with(TypeValidation.DISABLED)
                        .with(MethodGraph.Compiler.ForDeclaredMethods.INSTANCE))
                .disableClassFormatChanges()
                .with(AgentBuilder.TypeStrategy.Default.DECORATE)
                .with((AgentBuilder.TransformerDecorator) OnlyAdvisedClasses::new)
                .with(new TransformationListener(retirement))
                .ignore(not(named(TPE).or(named(FJP))))
                .with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION)
                .redefineOnly(ThreadPoolExecutor.class, ForkJoinPool.class)
                .with(new RedefinitionFailures(retirement))
                .type(named(TPE))
                .transform(Instrumenter::adviseThreadPoolExecutor)
                .type(named(FJP))
                .transform(Instrumenter::adviseForkJoinPool)
                .installOn(inst);
    }

    private static DynamicType.Builder<?> adviseThreadPoolExecutor(DynamicType.Builder<?> builder, TypeDescription type,
                                                                   ClassLoader loader, JavaModule module,
                                                                   ProtectionDomain domain) {
        return builder
                .visit(advice(PoolConstructorAdvice.class)
                        .on(isConstructor().and(takesArguments(7)).and(takesArgument(4, BlockingQueue.class))))
                .visit(advice(WorkerExitAdvice.class)
                        .on(named("processWorkerExit").and(takesArguments(2))))
                .visit(advice(RejectAdvice.class)
                        .on(named("reject").and(takesArguments(Runnable.class)).and(not(isStatic()))))
                .visit(advice(WorkerRetirementAdvice.class)
                        .on(named("runWorker").and(takesArguments(1)).and(returns(void.class))))
                .visit(advice(ShutdownNowAdvice.class)
                        .on(named("shutdownNow").and(takesArguments(0))))
                .visit(advice(ShutdownAdvice.class)
                        .on(named("shutdown").or(named("shutdownNow")).and(takesArguments(0))));
    }

    private static DynamicType.Builder<?> adviseForkJoinPool(DynamicType.Builder<?> builder, TypeDescription type,
                                                             ClassLoader loader, JavaModule module,
                                                             ProtectionDomain domain) {
        return builder.visit(advice(ForkJoinPoolAdvice.class).on(isConstructor()));
    }

    /**
     * The advice class {@code type} as Byte Buddy inlines it: read from its class file with its
     * references to the bridge renamed into {@code java.base} ({@link BootClasses#renamed}).
     */
    private static Advice advice(Class<?> type) {
        return Advice.to(TypeDescription.ForLoadedType.of(type), RenamedAdvice.INSTANCE);
    }

    /** Serves advice class files with the bridge renamed. Called on the installing thread. */
    enum RenamedAdvice implements ClassFileLocator {
        INSTANCE;

        @Override
        public Resolution locate(String name) throws IOException {
            return new Resolution.Explicit(BootClasses.renamed(name.replace('.', '/')));
        }

        @Override
        public void close() {
        }
    }

    /**
     * Hands Byte Buddy only the two advised classes: the transformer stays registered for the
     * JVM's life (so a later retransformation by another agent keeps the advice), and every other
     * class the application loads then costs one string comparison instead of a Byte Buddy
     * type-pool lookup. Called by the JVM on class-loading threads.
     */
    static final class OnlyAdvisedClasses extends ResettableClassFileTransformer.WithDelegation {

        OnlyAdvisedClasses(ResettableClassFileTransformer delegate) {
            super(delegate);
        }

        static boolean isAdvised(String internalName) {
            return "java/util/concurrent/ThreadPoolExecutor".equals(internalName)
                    || "java/util/concurrent/ForkJoinPool".equals(internalName);
        }

        @Override
        public byte[] transform(ClassLoader loader, String internalName, Class<?> redefined, ProtectionDomain domain,
                                byte[] bytes) throws IllegalClassFormatException {
            return isAdvised(internalName) ? classFileTransformer.transform(loader, internalName, redefined, domain, bytes) : null;
        }

        @Override
        public byte[] transform(Module module, ClassLoader loader, String internalName, Class<?> redefined,
                                ProtectionDomain domain, byte[] bytes) throws IllegalClassFormatException {
            return isAdvised(internalName)
                    ? classFileTransformer.transform(module, loader, internalName, redefined, domain, bytes) : null;
        }
    }

    /**
     * Reports a type that could not be transformed (the type stays as it was), and tells
     * {@link Retirement} when {@code ThreadPoolExecutor} was. Called by Byte Buddy on the thread
     * that loads or retransforms the class.
     */
    private static final class TransformationListener extends AgentBuilder.Listener.Adapter {
        private final Retirement retirement;

        TransformationListener(Retirement retirement) {
            this.retirement = retirement;
        }

        @Override
        public void onTransformation(TypeDescription type, ClassLoader classLoader, JavaModule module, boolean loaded,
                                     DynamicType dynamicType) {
            if (TPE.equals(type.getName())) {
                retirement.adviceInstalled();
            }
        }

        @Override
        public void onError(String typeName, ClassLoader classLoader, JavaModule module, boolean loaded,
                            Throwable throwable) {
            Log.line("could not instrument " + typeName + ", its pools are left untouched: " + throwable);
            if (TPE.equals(typeName)) {
                retirement.adviceFailed("ThreadPoolExecutor could not be instrumented: " + throwable);
            }
        }
    }

    /** Reports classes that could not be retransformed; they stay as they were. */
    private static final class RedefinitionFailures extends AgentBuilder.RedefinitionStrategy.Listener.Adapter {
        private final Retirement retirement;

        RedefinitionFailures(Retirement retirement) {
            this.retirement = retirement;
        }

        @Override
        public Iterable<? extends List<Class<?>>> onError(int index, List<Class<?>> batch, Throwable throwable,
                                                         List<Class<?>> types) {
            Log.line("could not retransform " + batch + ", left untouched: " + throwable);
            if (batch.contains(ThreadPoolExecutor.class)) {
                retirement.adviceFailed("ThreadPoolExecutor could not be retransformed: " + throwable);
            }
            return List.of();
        }

        @Override
        public void onComplete(int amount, List<Class<?>> types, Map<List<Class<?>>, Throwable> failures) {
            // each failure was reported by onError
        }
    }
}
