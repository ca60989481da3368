package dev.turntable.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.agent.CreationSite.Frame;
import dev.turntable.agent.CreationSite.Origin;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CreationSiteTest {

    /** An application's pool subclass, as the stack sees it. */
    static class AppPool extends ThreadPoolExecutor {
        AppPool() {
            super(1, 1, 0, java.util.concurrent.TimeUnit.SECONDS, new java.util.concurrent.LinkedBlockingQueue<>());
        }
    }

    private static Frame f(String cls, String method) {
        return new Frame(cls, method, null);
    }

    private static Frame ctor(Class<?> type) {
        return new Frame(type.getName(), "<init>", type);
    }

    private static final Frame HOOK = f("dev.turntable.agent.Takeover", "onConstructing");

    @Test
    void theSiteIsTheFirstFrameBelowTheConstructorsAndFactories() {
        CreationSite s = CreationSite.of(List.of(HOOK, ctor(ThreadPoolExecutor.class), ctor(ThreadPoolExecutor.class),
                f("java.util.concurrent.Executors", "newFixedThreadPool"), f("com.acme.OrderService", "start"),
                f("com.acme.Main", "main")));
        assertEquals(Origin.APPLICATION, s.origin());
        assertEquals("com.acme.OrderService.start", s.site());
        assertEquals("OrderService.start", s.baseName());
        assertSame(ThreadPoolExecutor.class, s.poolClass());
        assertSame(QueueSharing.Verdict.FACTORY, s.queueSharing(), "the factory made the queue: no application code holds it");
    }

    @Test
    void aSubclassConstructorChainingToSuperIsNotTheSite() {
        CreationSite s = CreationSite.of(List.of(HOOK, ctor(ThreadPoolExecutor.class), ctor(AppPool.class),
                f("com.acme.Main", "lambda$main$3"), f("java.lang.Thread", "run")));
        assertEquals(Origin.APPLICATION, s.origin());
        assertEquals("com.acme.Main.lambda$main$3", s.site());
        assertEquals("Main.main", s.baseName());
        assertSame(AppPool.class, s.poolClass());
        assertNotSame(QueueSharing.Verdict.FACTORY, s.queueSharing(), "the application passed its own queue, and may still hold it");
    }

    @Test
    void aConstructorOfAnotherClassBuildingAPoolIsTheSite() {
        CreationSite s = CreationSite.of(List.of(HOOK, ctor(ThreadPoolExecutor.class),
                f("com.acme.Service$Inner", "<init>"), f("com.acme.Main", "main")));
        assertEquals("com.acme.Service$Inner.<init>", s.site());
        assertEquals("Inner.new", s.baseName());
    }

    @ParameterizedTest
    @CsvSource({
        "sun.rmi.transport.tcp.TCPTransport, <clinit>, JDK",
        "java.util.concurrent.CompletableFuture$Delayer, <clinit>, JDK",
        "jdk.internal.net.http.HttpClientImpl, <init>, JDK",
        "javax.management.remote.rmi.RMIConnectorServer, start, JDK",
        "com.sun.jmx.remote.internal.ServerCommunicatorAdmin, <init>, JDK",
        "dev.turntable.pool.TurntableExecutor$Builder, build, TURNTABLE",
        "dev.turntable.agent.AgentJmx, register, TURNTABLE",
        "com.sunny.App, main, APPLICATION",
        "javaxtra.App, main, APPLICATION",
        "org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor, initializeExecutor, APPLICATION",
    })
    void originByPackage(String cls, String method, Origin origin) {
        CreationSite s = CreationSite.of(List.of(HOOK, ctor(ThreadPoolExecutor.class), f(cls, method)));
        assertEquals(origin, s.origin());
    }

    /**
     * A library on the class path in a JDK-looking package (Jersey 1.x, Metro, Mojarra, JavaMail,
     * Grizzly: {@code com.sun.*}) is application code: its pools must not read "created by the
     * JDK". What decides is the class that really is on the stack (its loader or module), not its
     * name; the JDK's own {@code com.sun.} classes stay the JDK's.
     */
    @Test
    void aClassPathLibraryInAJdkLookingPackageIsApplicationCode() throws Exception {
        Class<?> library = com.sun.jersey.example.LegacyClient.class;
        CreationSite s = CreationSite.of(List.of(HOOK, ctor(ThreadPoolExecutor.class), ctor(ThreadPoolExecutor.class),
                f("java.util.concurrent.Executors", "newFixedThreadPool"),
                new Frame(library.getName(), "asyncPool", library), f("com.acme.Main", "main")));
        assertEquals(Origin.APPLICATION, s.origin());
        assertEquals("LegacyClient.asyncPool", s.baseName());

        for (String jdk : List.of("com.sun.jmx.remote.internal.ServerCommunicatorAdmin",
                "jdk.internal.net.http.HttpClientImpl", "sun.rmi.transport.tcp.TCPTransport")) {
            Class<?> type = Class.forName(jdk, false, ClassLoader.getPlatformClassLoader());
            CreationSite j = CreationSite.of(List.of(HOOK, ctor(ThreadPoolExecutor.class), new Frame(jdk, "<init>", type)));
            assertEquals(Origin.JDK, j.origin(), jdk);
        }
    }

    /** A scheduler subclass that builds its own worker pool in its constructor, as monitoring and job libraries do. */
    static class JobScheduler extends ScheduledThreadPoolExecutor {
        final java.util.concurrent.ExecutorService workers;

        JobScheduler() {
            super(1);
            workers = java.util.concurrent.Executors.newFixedThreadPool(2);
        }
    }

    /**
     * A pool subclass's constructor that calls a factory (after its own {@code super(...)}) is the
     * creation site of the factory's pool, not a link of that pool's constructor chain: the
     * worker pool is {@code JobScheduler.new}, a plain ThreadPoolExecutor, not a second pool of
     * the outer caller and not a ScheduledThreadPoolExecutor (which would leave it untouched).
     */
    @Test
    void aPoolSubclassConstructorCallingAFactoryIsTheFactoryPoolsSite() {
        List<Frame> stack = List.of(HOOK, ctor(ThreadPoolExecutor.class), ctor(ThreadPoolExecutor.class),
                f("java.util.concurrent.Executors", "newFixedThreadPool"), ctor(JobScheduler.class),
                f("com.acme.Main", "main"));
        CreationSite s = CreationSite.of(stack);
        assertEquals(JobScheduler.class.getName() + ".<init>", s.site());
        assertEquals("JobScheduler.new", s.baseName());
        assertSame(ThreadPoolExecutor.class, s.poolClass());
        assertEquals(true, QueuePolicy.classify(s.poolClass(), new java.util.concurrent.LinkedBlockingQueue<>()).takeOver(),
                "the worker pool is refused as if it were the scheduler");
    }

    @Test
    void aPoolSubclassConstructorBuildingAHelperWithNewIsTheHelpersSite() {
        Class<?> outer = com.example.sharing.SharingFixtures.PoolWithHelper.class;
        Frame outerInit = QueueSharingTest.constructor(outer);
        Frame main = new Frame("com.acme.Main", "main", null);
        CreationSite helper = CreationSite.of(List.of(QueueSharingTest.TPE7, QueueSharingTest.TPE6, outerInit, main));
        assertEquals(outer.getName() + ".<init>", helper.site());
        assertEquals("PoolWithHelper.new", helper.baseName());
        assertSame(ThreadPoolExecutor.class, helper.poolClass());

        CreationSite itself = CreationSite.of(List.of(QueueSharingTest.TPE7, QueueSharingTest.TPE5, outerInit, main));
        assertEquals("com.acme.Main.main", itself.site(), "its own super(...) is the chain, not a site");
        assertSame(outer, itself.poolClass());
    }

    @Test
    void jdkCodeCallingAFactoryIsStillJdkCreated() {
        CreationSite s = CreationSite.of(List.of(ctor(ThreadPoolExecutor.class), f("java.util.concurrent.Executors", "newCachedThreadPool"),
                f("jdk.internal.net.http.HttpClientImpl", "<init>"), f("java.net.http.HttpClient", "newHttpClient"),
                f("com.acme.Main", "main")));
        assertEquals(Origin.JDK, s.origin());
        assertEquals("HttpClientImpl.new", s.baseName());
    }

    @Test
    void scheduledAndForkJoinPoolsAreRecognisedByTheirConstructors() {
        CreationSite s = CreationSite.of(List.of(ctor(ThreadPoolExecutor.class), ctor(ScheduledThreadPoolExecutor.class),
                f("java.util.concurrent.Executors", "newScheduledThreadPool"), f("com.acme.Jobs", "start")));
        assertSame(ScheduledThreadPoolExecutor.class, s.poolClass());
        assertEquals("Jobs.start", s.baseName());
        CreationSite fj = CreationSite.of(List.of(HOOK, ctor(ForkJoinPool.class), ctor(ForkJoinPool.class), f("com.acme.Jobs", "start")));
        assertSame(ForkJoinPool.class, fj.poolClass());
        assertEquals("com.acme.Jobs.start", fj.site());
    }

    @Test
    void noConstructorOrNothingBelowItIsUnknown() {
        assertEquals(Origin.UNKNOWN, CreationSite.of(List.of(HOOK, f("com.acme.Main", "main"))).origin());
        CreationSite s = CreationSite.of(List.of(HOOK, ctor(ThreadPoolExecutor.class)));
        assertEquals(Origin.UNKNOWN, s.origin());
        assertEquals("unknown", s.site());
        assertEquals("ThreadPoolExecutor.unknown", s.baseName());
    }

    @ParameterizedTest
    @CsvSource({
        "com.acme.OrderService, OrderService",
        "OrderService, OrderService",
        "com.acme.Outer$Inner, Inner",
        "com.acme.Outer$Inner$Deeper, Deeper",
        "com.acme.Outer$1, Outer_1",
        "com.acme.Outer$1$2, Outer_1_2",
        "com.acme.Outer$1Local, Outer_1Local",
        "com.acme.Main$$Lambda$14/0x0000000800c03000, Main_Lambda_14",
        "com.acme.Ünïcode, _n_code",
        "com.acme.Trailing$, Trailing",
        "com.acme.\uD840\uDC00Service, _Service",
    })
    void simpleNames(String binary, String expected) {
        assertEquals(expected, CreationSite.simpleName(binary));
    }

    @ParameterizedTest
    @CsvSource({
        "start, start",
        "<init>, new",
        "<clinit>, static",
        "lambda$main$0, main",
        "lambda$new$2, new",
        "lambda$static$1, static",
        "lambda$start$12, start",
        "access$000, access_000",
        "naïve, na_ve",
        "lambda$$0, _",
        "lambda$a$b$3, a_b",
        "lambda$foo$, lambda_foo_",
        "lambda$run$x1, lambda_run_x1",
        "a$$$b, a_b",
        "$x, _x",
        "load\uD835\uDD38, load_",
        "a\uD835b, a_b",
    })
    void methodParts(String method, String expected) {
        assertEquals(expected, CreationSite.methodPart(method));
    }

    /** A stack frame as a walk hands it over; {@code type} null stands for a class of the application's. */
    private record Walked(String className, String methodName, Class<?> type, String descriptor)
            implements StackWalker.StackFrame {
        static Walked of(Class<?> type, String method, String descriptor) {
            return new Walked(type.getName(), method, type, descriptor);
        }

        @Override
        public String getClassName() {
            return className;
        }

        @Override
        public String getMethodName() {
            return methodName;
        }

        @Override
        public Class<?> getDeclaringClass() {
            return type != null ? type : CreationSiteTest.class;
        }

        @Override
        public String getDescriptor() {
            return descriptor;
        }

        @Override
        public int getByteCodeIndex() {
            return 0;
        }

        @Override
        public String getFileName() {
            return null;
        }

        @Override
        public int getLineNumber() {
            return type == null ? APPLICATION_LINE : -1;
        }

        @Override
        public boolean isNativeMethod() {
            return false;
        }

        @Override
        public StackTraceElement toStackTraceElement() {
            return new StackTraceElement(className, methodName, null, -1);
        }
    }

    /** The line every frame of the application's (a {@link Walked} without a type) is at. */
    private static final int APPLICATION_LINE = 42;

    private static final String FIVE_ARGS = "(IIJLjava/util/concurrent/TimeUnit;Ljava/util/concurrent/BlockingQueue;)V";
    private static final String SEVEN_ARGS = "(IIJLjava/util/concurrent/TimeUnit;Ljava/util/concurrent/BlockingQueue;"
            + "Ljava/util/concurrent/ThreadFactory;Ljava/util/concurrent/RejectedExecutionHandler;)V";

    /** The agent's frames, the pool's constructors, then {@code below} application frames. */
    private static List<StackWalker.StackFrame> stack(boolean byFactory, int below) {
        List<StackWalker.StackFrame> frames = new java.util.ArrayList<>(List.of(
                Walked.of(CreationSite.class, "current", "()Ldev/turntable/agent/CreationSite;"),
                Walked.of(Takeover.class, "onConstructing", "()V"),
                Walked.of(ThreadPoolExecutor.class, "<init>", SEVEN_ARGS),
                Walked.of(ThreadPoolExecutor.class, "<init>", FIVE_ARGS)));
        if (byFactory) {
            frames.add(Walked.of(java.util.concurrent.Executors.class, "newFixedThreadPool",
                    "(I)Ljava/util/concurrent/ExecutorService;"));
        }
        for (int i = 0; i < below; i++) {
            frames.add(new Walked("com.acme.Layer" + i, "call", null, "()V"));
        }
        return frames;
    }

    @Test
    void aFactoryBuiltPoolsStackIsReadDownToItsSiteOnly() {
        List<StackWalker.StackFrame> all = stack(true, 60);
        List<Frame> read = CreationSite.poolFrames(all.stream());
        assertEquals(List.of("<init>", "<init>", "newFixedThreadPool", "call"),
                read.stream().map(Frame::methodName).toList(), "the agent's frames are skipped, nothing below the site read");
        CreationSite site = CreationSite.of(read);
        assertEquals("com.acme.Layer0.call", site.site());
        assertEquals(Origin.APPLICATION, site.origin());
        assertEquals(QueueSharing.Verdict.FACTORY, site.queueSharing());
        assertEquals(-1, read.get(3).lineNumber(), "a line nobody reads is not looked up");
    }

    /** Methods that pass a queue on to the next, the innermost building the pool: a deep helper chain. */
    static final class Layers {
        static ThreadPoolExecutor l0(BlockingQueue<Runnable> q) {
            return new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, q);
        }

        static ThreadPoolExecutor l1(BlockingQueue<Runnable> q) {
            return l0(q);
        }

        static ThreadPoolExecutor l2(BlockingQueue<Runnable> q) {
            return l1(q);
        }

        static ThreadPoolExecutor l3(BlockingQueue<Runnable> q) {
            return l2(q);
        }

        static ThreadPoolExecutor l4(BlockingQueue<Runnable> q) {
            return l3(q);
        }

        static ThreadPoolExecutor l5(BlockingQueue<Runnable> q) {
            return l4(q);
        }

        static ThreadPoolExecutor l6(BlockingQueue<Runnable> q) {
            return l5(q);
        }

        static ThreadPoolExecutor l7(BlockingQueue<Runnable> q) {
            return l6(q);
        }

        static ThreadPoolExecutor l8(BlockingQueue<Runnable> q) {
            return l7(q);
        }

        static ThreadPoolExecutor l9(BlockingQueue<Runnable> q) {
            return l8(q);
        }

        static ThreadPoolExecutor deep() {
            return l9(new LinkedBlockingQueue<>());
        }

        static ThreadPoolExecutor shallow() {
            return l3(new LinkedBlockingQueue<>());
        }
    }

    /** The stack of a pool built by {@code Layers.<outer>} through {@code l<levels-1>} .. {@code l0}, then 40 callers. */
    private static List<StackWalker.StackFrame> layered(String outer, int levels) {
        List<StackWalker.StackFrame> frames = stack(false, 0);
        String passing = "(Ljava/util/concurrent/BlockingQueue;)Ljava/util/concurrent/ThreadPoolExecutor;";
        for (int i = 0; i < levels; i++) {
            frames.add(Walked.of(Layers.class, "l" + i, passing));
        }
        frames.add(Walked.of(Layers.class, outer, "()Ljava/util/concurrent/ThreadPoolExecutor;"));
        for (int i = 0; i < 40; i++) {
            frames.add(new Walked("com.acme.Caller" + i, "call", null, "()V"));
        }
        return frames;
    }

    private static List<Frame> described(List<StackWalker.StackFrame> walked) {
        return walked.stream().map(f -> new Frame(f.getClassName(), f.getMethodName(), f.getDeclaringClass(),
                f.getDescriptor(), f.getLineNumber())).toList();
    }

    @Test
    void aDeepStackOfAPoolBuiltWithNewIsReadAsFarAsQueueSharingFollowsIt() {
        List<StackWalker.StackFrame> deep = layered("deep", 10);
        List<Frame> read = CreationSite.poolFrames(deep.stream());
        // ThreadPoolExecutor's two constructors, the methods QueueSharing reads, and the one where it gives up
        assertEquals(2 + QueueSharing.MAX_METHODS + 1, read.size());
        assertEquals(Layers.class.getName() + ".l0", CreationSite.of(read).site());
        QueueSharing.Verdict whole = QueueSharing.of(described(deep));
        assertEquals(QueueSharing.Kind.UNKNOWN, whole.kind());
        assertTrue(whole.detail().contains("more than " + QueueSharing.MAX_METHODS), whole::toString);
        assertEquals(whole, CreationSite.of(read).queueSharing(), "the verdict the whole stack gives");

        List<StackWalker.StackFrame> shallow = layered("shallow", 4);
        QueueSharing.Verdict private_ = CreationSite.of(CreationSite.poolFrames(shallow.stream())).queueSharing();
        assertEquals(QueueSharing.Kind.PRIVATE, private_.kind(), private_::toString);
        assertEquals(QueueSharing.of(described(shallow)), private_);

        List<Frame> direct = CreationSite.poolFrames(stack(false, 3).stream());
        assertEquals(2 + 3, direct.size(), "a short stack is read to its bottom");
        assertEquals(APPLICATION_LINE, direct.get(2).lineNumber(), "QueueSharing reads the lines of a pool built with new");
    }

    /** A described frame, as a walk would hand it over. */
    private static Walked walked(Frame f) {
        return new Walked(f.className(), f.methodName(), f.type(), f.descriptor());
    }

    @Test
    void aPoolSubclassThatBuildsAHelperPoolWithNewIsTheSiteWhenTheStackIsReadLazily() {
        Class<?> outer = com.example.sharing.SharingFixtures.PoolWithHelper.class;
        Walked outerInit = walked(QueueSharingTest.constructor(outer));
        Walked main = new Walked("com.acme.Main", "main", null, "([Ljava/lang/String;)V");
        List<StackWalker.StackFrame> helper = List.of(Walked.of(Takeover.class, "onConstructing", "()V"),
                walked(QueueSharingTest.TPE7), walked(QueueSharingTest.TPE6), outerInit, main);
        CreationSite site = CreationSite.of(CreationSite.poolFrames(helper.stream()));
        assertEquals(outer.getName() + ".<init>", site.site(), "its constructor built the helper with new");
        assertSame(ThreadPoolExecutor.class, site.poolClass());

        List<StackWalker.StackFrame> itself = List.of(Walked.of(Takeover.class, "onConstructing", "()V"),
                walked(QueueSharingTest.TPE7), walked(QueueSharingTest.TPE5), outerInit, main);
        CreationSite chained = CreationSite.of(CreationSite.poolFrames(itself.stream()));
        assertEquals("com.acme.Main.main", chained.site(), "its own super(...) is the chain, not a site");
        assertSame(outer, chained.poolClass());
    }

    @Test
    void aForkJoinPoolsStackIsReadDownToItsSiteOnly() {
        List<StackWalker.StackFrame> frames = new java.util.ArrayList<>(List.of(
                Walked.of(Takeover.class, "onForkJoinPool", "()V"),
                Walked.of(ForkJoinPool.class, "<init>", "(I)V"),
                new Walked("com.acme.Search", "start", null, "()V")));
        for (int i = 0; i < 60; i++) {
            frames.add(new Walked("com.acme.Layer" + i, "call", null, "()V"));
        }
        List<Frame> read = CreationSite.poolFrames(frames.stream());
        assertEquals(2, read.size());
        CreationSite site = CreationSite.of(read);
        assertEquals("com.acme.Search.start", site.site());
        assertSame(ForkJoinPool.class, site.poolClass());
    }

    @Test
    void anApplicationClassInAJdkLookingPackageKeepsItsLineNumbers() {
        // com.sun.jersey and the like: loaded by the application, so QueueSharing may read them
        List<StackWalker.StackFrame> frames = stack(false, 0);
        frames.add(new Walked("com.sun.jersey.client.Client", "start", null, "()V"));
        List<Frame> read = CreationSite.poolFrames(frames.stream());
        assertEquals(APPLICATION_LINE, read.get(2).lineNumber());
        assertEquals(Origin.APPLICATION, CreationSite.of(read).origin());
    }

    @Test
    void theLiveStackOfThisTestIsTurntableCode() {
        // no pool constructor on this stack: unknown, and never an exception
        assertEquals(Origin.UNKNOWN, CreationSite.current().origin());
    }
}
