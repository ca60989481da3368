package dev.turntable.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.sharing.SharingFixtures;
import dev.turntable.agent.CreationSite.Frame;
import dev.turntable.agent.QueueSharing.Kind;
import dev.turntable.agent.QueueSharing.Verdict;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.objectweb.asm.Type;

/**
 * Reads the bytecode of {@code SharingFixtures}, code that builds pools in the ways applications
 * do, with the stack a pool's constructor would see: a queue the application also keeps is
 * {@code SHARED} (the agent leaves that pool alone), one only the pool can reach is
 * {@code PRIVATE}, and anything the reading cannot follow is {@code UNKNOWN}.
 */
class QueueSharingTest {

    static final Frame TPE7 = constructor(ThreadPoolExecutor.class, int.class, int.class, long.class, TimeUnit.class,
            BlockingQueue.class, ThreadFactory.class, RejectedExecutionHandler.class);
    static final Frame TPE5 = constructor(ThreadPoolExecutor.class, int.class, int.class, long.class, TimeUnit.class,
            BlockingQueue.class);
    static final Frame TPE6 = constructor(ThreadPoolExecutor.class, int.class, int.class, long.class, TimeUnit.class,
            BlockingQueue.class, RejectedExecutionHandler.class);

    static Frame constructor(Class<?> c, Class<?>... params) {
        try {
            Constructor<?> k = c.getDeclaredConstructor(params);
            return new Frame(c.getName(), "<init>", c, Type.getConstructorDescriptor(k), -1);
        } catch (NoSuchMethodException e) {
            throw new AssertionError(e);
        }
    }

    static Frame method(Class<?> c, String name) {
        List<Method> found = new ArrayList<>();
        for (Method m : c.getDeclaredMethods()) {
            if (m.getName().equals(name)) {
                found.add(m);
            }
        }
        assertEquals(1, found.size(), name);
        return new Frame(c.getName(), name, c, Type.getMethodDescriptor(found.get(0)), -1);
    }

    /** The stack of a pool built through the 5-argument constructor by these frames, innermost first. */
    static Verdict built(Frame... callers) {
        List<Frame> frames = new ArrayList<>(List.of(TPE7, TPE5));
        frames.addAll(Arrays.asList(callers));
        return QueueSharing.of(frames);
    }

    /** The verdict's kind, and a part of its detail (the place named to the operator). */
    static void assertVerdict(Verdict v, Kind kind, String detailPart) {
        assertEquals(kind, v.kind(), v.toString());
        assertTrue(v.detail().contains(detailPart), v.detail());
    }

    static Frame fixture(String name) {
        return method(SharingFixtures.class, name);
    }

    @Test
    void aQueueCreatedInTheCallForThePoolIsPrivate() {
        Verdict v = built(fixture("inline"));
        assertVerdict(v, Kind.PRIVATE, "");
        assertTrue(takenOver(fixture("inline")));
    }

    @Test
    void aQueueInALocalUsedOnlyForThePoolIsPrivateWhicheverBranchMadeIt() {
        Verdict v = built(fixture("localUsedOnce"));
        assertVerdict(v, Kind.PRIVATE, "");
    }

    @Test
    void aQueueReadFromAFieldIsShared() {
        Verdict v = built(fixture("readFromField"));
        assertVerdict(v, Kind.SHARED, "field SharingFixtures.kept");
    }

    @Test
    void aQueueAlsoStoredInAFieldIsShared() {
        Verdict v = built(fixture("storedInField"));
        assertVerdict(v, Kind.SHARED, "stores it in field SharingFixtures.kept");
    }

    /**
     * A queue kept several ways is reported by its first use in the code, the same in every run:
     * the reason the operator reads in {@code turntablectl pools} does not change from one start
     * of the application to the next. Each reading here is fresh (a new class loader, so new
     * instructions with new identity hashes, as in a new JVM).
     */
    @Test
    void aQueueKeptSeveralWaysIsReportedByItsFirstUseEveryTime() throws Exception {
        assertSameDetailEveryTime("keptThreeWays", "stores it in field SharingFixtures.kept");
    }

    /** Likewise when the pool's queue is one of several, each kept another way: the first made is reported. */
    @Test
    void oneOfSeveralQueuesIsReportedByTheFirstMadeEveryTime() throws Exception {
        assertSameDetailEveryTime("oneOfThreeKept", "stores it in field SharingFixtures.kept");
    }

    private static void assertSameDetailEveryTime(String fixture, String detailPart) throws Exception {
        java.util.Set<String> details = new java.util.TreeSet<>();
        for (int i = 0; i < 30; i++) {
            Class<?> fresh = new FreshFixtures().loadClass(SharingFixtures.class.getName());
            assertNotSame(SharingFixtures.class, fresh);
            Verdict v = built(method(fresh, fixture));
            assertEquals(Kind.SHARED, v.kind(), v.toString());
            details.add(v.detail());
        }
        assertEquals(1, details.size(), details::toString);
        assertTrue(details.iterator().next().contains(detailPart), details::toString);
    }

    /** Defines {@link SharingFixtures} anew from its class file; everything else comes from the test's loader. */
    private static final class FreshFixtures extends ClassLoader {
        FreshFixtures() {
            super(SharingFixtures.class.getClassLoader());
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.equals(SharingFixtures.class.getName())) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null) {
                    try (java.io.InputStream in = getParent().getResourceAsStream(name.replace('.', '/') + ".class")) {
                        byte[] b = in.readAllBytes();
                        c = defineClass(name, b, 0, b.length);
                    } catch (java.io.IOException e) {
                        throw new ClassNotFoundException(name, e);
                    }
                }
                return c;
            }
        }
    }

    @Test
    void aQueueWhoseSizeTheApplicationReadsIsShared() {
        Verdict v = built(fixture("gaugedInPlace"));
        assertVerdict(v, Kind.SHARED, "calls LinkedBlockingQueue.size on it");
    }

    @Test
    void aQueueCapturedByARejectionHandlerIsShared() {
        List<Frame> frames = List.of(TPE7, TPE6, fixture("capturedByAHandler"));
        Verdict v = QueueSharing.of(frames);
        assertVerdict(v, Kind.SHARED, "lambda");
    }

    @Test
    void aQueueFromAHelperThatCannotBeOverriddenAndKeepsNothingIsPrivate() {
        Verdict v = built(fixture("fromAMethod"));
        assertVerdict(v, Kind.PRIVATE, "");
    }

    @Test
    void aQueueFromAnOverridableMethodIsUnknown() {
        Verdict v = built(method(SharingFixtures.QueueMaker.class, "fromAnOverridableMethod"));
        assertVerdict(v, Kind.UNKNOWN, "QueueMaker.createQueue()");
    }

    @Test
    void aQueueFromAGetterOfAFieldIsShared() {
        Verdict v = built(fixture("fromAGetterOfAField"));
        assertVerdict(v, Kind.SHARED, "keptQueue(), which returns field SharingFixtures.kept");
    }

    @Test
    void aQueueIsFollowedThroughAHelperToTheMethodThatMadeIt() {
        Verdict v = built(fixture("helper"), fixture("helperWithANewQueue"));
        assertVerdict(v, Kind.PRIVATE, "");
    }

    @Test
    void hikariCpsPatternAViewOfTheQueueKeptBesideTheHelperIsShared() {
        Verdict v = built(fixture("helper"), fixture("helperWithAWatchedQueue"));
        assertVerdict(v, Kind.SHARED, "passes it to Collections.unmodifiableCollection");
    }

    @Test
    void aQueueGivenToAPoolInEitherBranchIsPrivate() {
        Verdict v = built(fixture("eitherBranch"));
        assertVerdict(v, Kind.PRIVATE, "");
    }

    @Test
    void aQueueIsFollowedThroughASubclassConstructor() {
        Verdict v = built(constructor(SharingFixtures.SubPool.class, BlockingQueue.class), fixture("subclassWithANewQueue"));
        assertVerdict(v, Kind.PRIVATE, "");
    }

    @Test
    void aSubclassThatKeepsItsQueueShares() {
        Verdict v = built(constructor(SharingFixtures.KeepingSubPool.class, BlockingQueue.class),
                fixture("subclassThatKeepsItsQueue"));
        assertVerdict(v, Kind.SHARED, "stores it in field KeepingSubPool.mine");
    }

    @Test
    void anAnonymousSubclassThatCapturedTheQueueShares() {
        Class<?> anonymous = anonymousClassIn("anonymousSubclassReadingItsQueue");
        Constructor<?> k = anonymous.getDeclaredConstructors()[0];
        Verdict v = built(new Frame(anonymous.getName(), "<init>", anonymous, Type.getConstructorDescriptor(k), -1),
                fixture("anonymousSubclassReadingItsQueue"));
        assertVerdict(v, Kind.SHARED, "a second time");
    }

    @Test
    void aQueuePassedTwiceToAHelperThatKeepsTheOtherShares() {
        Verdict v = built(fixture("helperWatching"), fixture("helperGivenTheQueueTwice"));
        assertVerdict(v, Kind.SHARED, "");
    }

    @Test
    void aSecondPoolOfASubclassThatKeepsTheQueueShares() {
        Verdict v = built(fixture("aSecondPoolKeepsIt"));
        assertVerdict(v, Kind.SHARED, "passes it to KeepingSubPool.<init>");
    }

    /** The lines of the calls of pool constructor {@code pool} in method {@code f}, in code order (as a stack walk gives them). */
    static List<Integer> linesOfCalls(Frame f, Frame pool) throws Exception {
        org.objectweb.asm.tree.MethodNode m = QueueSharing.method(QueueSharing.classBytes(f.type()),
                f.methodName(), f.descriptor());
        List<Integer> lines = new ArrayList<>();
        int line = -1;
        for (org.objectweb.asm.tree.AbstractInsnNode insn : m.instructions) {
            if (insn instanceof org.objectweb.asm.tree.LineNumberNode) {
                line = ((org.objectweb.asm.tree.LineNumberNode) insn).line;
            } else if (insn instanceof org.objectweb.asm.tree.MethodInsnNode) {
                org.objectweb.asm.tree.MethodInsnNode mi = (org.objectweb.asm.tree.MethodInsnNode) insn;
                if (mi.name.equals("<init>") && mi.desc.equals(pool.descriptor())
                        && mi.owner.equals(pool.className().replace('.', '/'))) {
                    lines.add(line);
                }
            }
        }
        return lines;
    }

    static Frame atLine(Frame f, int line) {
        return new Frame(f.className(), f.methodName(), f.type(), f.descriptor(), line);
    }

    /** Two pools built on one queue share its work: each is left alone, the first too (its method goes on to build the second). */
    @Test
    void twoPoolsOnOneQueueShareIt() throws Exception {
        assertVerdict(built(fixture("twoPoolsOnOneQueue")), Kind.SHARED, "another pool");
        List<Integer> lines = linesOfCalls(fixture("twoPoolsOnOneQueue"), TPE5);
        assertEquals(2, lines.size(), lines::toString);
        for (int line : lines) {
            Verdict v = built(atLine(fixture("twoPoolsOnOneQueue"), line));
            assertVerdict(v, Kind.SHARED, "passes it to ThreadPoolExecutor.<init> for another pool");
        }
    }

    @Test
    void poolsBuiltInALoopOnOneQueueShareIt() {
        Verdict v = built(fixture("poolsInALoopOnOneQueue"));
        assertVerdict(v, Kind.SHARED, "a new pool each time");
    }

    /**
     * One pool ever, though two constructor calls get the queue: a fallback in the handler of
     * the first call's refusal, or a retry in a loop that ends with the first pool built. The
     * first call's own exception edge builds no pool (a review found both left alone, SHARED).
     */
    @Test
    void aFallbackOrARetryOnTheSameQueueIsStillOnePool() {
        assertVerdict(built(fixture("fallbackPoolOnOneQueue")), Kind.PRIVATE, "");
        assertVerdict(built(fixture("retriedPoolOnOneQueue")), Kind.PRIVATE, "");
    }

    /**
     * A pool built lazily in a loop (once, behind a null check) reads as one per round: left
     * alone. The price of catching pools really built per round on one queue; the README says so.
     */
    @Test
    void aPoolBuiltLazilyInALoopIsLeftAlone() {
        assertVerdict(built(fixture("lazyPoolInALoop")), Kind.SHARED, "in a loop");
    }

    @Test
    void poolsBuiltInALoopEachOnAQueueMadeInThatRoundArePrivate() {
        Verdict v = built(fixture("poolsInALoopEachOnItsQueue"));
        assertVerdict(v, Kind.PRIVATE, "");
    }

    /**
     * A large method (~1,500 statements) whose 60 switch arms each build a pool on the one queue
     * made before the switch: one pool per run, so every site is taken over. The shape that made
     * the two-pools search cost hundreds of milliseconds per site ({@link SwitchOfPools#main} times it).
     */
    @Test
    void aPoolInEachOfManySwitchArmsOnOneQueueIsPrivate(@TempDir Path dir) throws Exception {
        SwitchOfPools.Generated g = SwitchOfPools.compile(dir, SwitchOfPools.ARMS, SwitchOfPools.PER_ARM,
                SwitchOfPools.TAIL, false);
        assertEquals(SwitchOfPools.ARMS, g.lines().size(), g.lines()::toString);
        Class<?> type = g.load();
        for (int line : g.lines()) {
            assertVerdict(SwitchOfPools.Generated.site(type, line), Kind.PRIVATE, "");
        }
        assertVerdict(SwitchOfPools.Generated.site(type, -1), Kind.PRIVATE, "");
    }

    /**
     * The pools one method builds, one after the other, cost one reading of it: each had cost a
     * reading of its own (the cache of verdicts is per site), 60 analyses of this large method,
     * which took more than half of the time its sites cost.
     */
    @Test
    void aMethodThatBuildsManyPoolsIsReadOnceForAllOfThem(@TempDir Path dir) throws Exception {
        SwitchOfPools.Generated g = SwitchOfPools.compile(dir, SwitchOfPools.ARMS, SwitchOfPools.PER_ARM,
                SwitchOfPools.TAIL, false);
        Class<?> type = g.load();
        long before = RecentReadings.analyses();
        for (int line : g.lines()) {
            assertVerdict(SwitchOfPools.Generated.site(type, line), Kind.PRIVATE, "");
        }
        long analyses = RecentReadings.analyses() - before;
        // One, unless a collection clears the remembered reading meanwhile: a few at most.
        assertTrue(analyses <= 4, analyses + " analyses for " + g.lines().size() + " pools built by one method");
    }

    /** The same method with one arm falling through to the next: that run builds two pools on the queue. */
    @Test
    void oneArmFallingThroughToTheNextOfManyBuildsTwoPoolsOnTheQueue(@TempDir Path dir) throws Exception {
        SwitchOfPools.Generated g = SwitchOfPools.compile(dir, SwitchOfPools.ARMS, SwitchOfPools.PER_ARM,
                SwitchOfPools.TAIL, true);
        Class<?> type = g.load();
        for (int line : g.lines()) {
            assertVerdict(SwitchOfPools.Generated.site(type, line), Kind.SHARED, "for another pool");
        }
    }

    @Test
    void aSubclassThatBuildsASecondPoolOnItsQueueShares() throws Exception {
        Frame twin = constructor(SharingFixtures.TwinPool.class, BlockingQueue.class);
        Verdict v = built(twin, fixture("twinPool"));
        assertVerdict(v, Kind.SHARED, "TwinPool.<init> passes it to ThreadPoolExecutor.<init> for another pool");
        // The helper pool it builds with new (its super(...) call comes first): a site of its own, the same queue.
        List<Integer> lines = linesOfCalls(twin, TPE5);
        assertEquals(2, lines.size(), lines::toString);
        Verdict helper = built(atLine(twin, lines.get(1)));
        assertVerdict(helper, Kind.SHARED, "another pool");
    }

    /** The other branch builds a pool subclass that puts two pools on the queue: not a pool that only hands it on. */
    @Test
    void aPoolInTheOtherBranchThatPutsTwoPoolsOnTheQueueShares() {
        Verdict v = built(fixture("eitherBranchOneATwin"));
        assertVerdict(v, Kind.SHARED, "passes it to TwinPool.<init>");
    }

    @Test
    void aQueueFromAHelperThatBuiltAnotherPoolOnItIsShared() {
        Verdict v = built(fixture("fromAHelperThatBuiltAPoolOnIt"));
        assertVerdict(v, Kind.SHARED, "queueWithAPoolOnIt(), which passes it to ThreadPoolExecutor.<init> for another pool");
    }

    @Test
    void aQueueReadFromAnArrayIsShared() {
        Verdict v = built(fixture("readFromAnArray"));
        assertVerdict(v, Kind.SHARED, "reads it from an array");
    }

    @Test
    void aQueueStoredInAnArrayAfterThePoolWasBuiltIsShared() {
        Verdict v = built(fixture("storedInAnArrayAfterwards"));
        assertVerdict(v, Kind.SHARED, "stores it in an array");
    }

    @Test
    void aQueueFromAGetterOfAnArrayElementIsShared() {
        Verdict v = built(fixture("fromAGetterOfAnArrayElement"));
        assertVerdict(v, Kind.SHARED, "queueAt(), which returns an array element");
    }

    /**
     * A queue read from a list, as from an array: the list holds it, so whoever else holds the
     * list reads or fills that queue object, which the engine would leave empty. Left alone.
     */
    @Test
    void aQueueReadFromAListIsSharedAndLeftAlone() {
        assertVerdict(built(fixture("readFromAList")), Kind.SHARED, "SharingFixtures.readFromAList reads it from a list");
        assertFalse(takenOver(fixture("readFromAList")));
    }

    /** The same read by a for-each loop (the list's iterator): the loop's form does not decide. */
    @Test
    void aQueueFromAForEachLoopOverAListIsSharedAndLeftAlone() {
        assertVerdict(built(fixture("poolOnEachQueueOfAList")), Kind.SHARED, "reads it from a collection's iterator");
        assertFalse(takenOver(fixture("poolOnEachQueueOfAList")));
    }

    @Test
    void aQueueFromAGetterOfAListElementIsShared() {
        assertVerdict(built(fixture("fromAGetterOfAListElement")), Kind.SHARED, "queueInList(), which reads it from a list");
        assertFalse(takenOver(fixture("fromAGetterOfAListElement")));
    }

    /**
     * A pool built on another pool's queue ({@code other.getQueue()}): two pools on one queue
     * share its work, which an engine for the second would split. Left alone, as two pools on
     * one queue in one method are.
     */
    @Test
    void aPoolOnAnotherPoolsQueueIsSharedAndLeftAlone() {
        assertVerdict(built(fixture("onAnotherPoolsQueue")), Kind.SHARED,
                "SharingFixtures.onAnotherPoolsQueue reads it from another pool (ThreadPoolExecutor.getQueue)");
        assertFalse(takenOver(fixture("onAnotherPoolsQueue")));
    }

    @Test
    void aPoolOnASubclassPoolsQueueThroughAHelperIsShared() {
        assertVerdict(built(fixture("onASubPoolsQueueThroughAHelper")), Kind.SHARED,
                "queueOf(), which reads it from another pool (SubPool.getQueue)");
        assertFalse(takenOver(fixture("onASubPoolsQueueThroughAHelper")));
    }

    /** What a user sees: whether the agent takes over the pool these frames build (5-argument constructor, a fresh unbounded queue). */
    static boolean takenOver(Frame... callers) {
        List<Frame> frames = new ArrayList<>(List.of(TPE7, TPE5));
        frames.addAll(Arrays.asList(callers));
        Takeover t = new Takeover(OptionsParser.parse(null, new Properties()).options(), new PoolRegistry(), () -> { });
        Takeover.Decision d = t.decide(CreationSite.of(frames), new LinkedBlockingQueue<Runnable>(), 1, 1);
        return d.record().managed();
    }

    /**
     * A queue a static helper looks up in a registry map ({@code computeIfAbsent}): the map holds
     * it, as a list would, so whoever reads the registry (a gauge of the backlog by name) would
     * see that queue object empty under the engine. Left alone; it had been taken over, watching
     * the original queue (UNKNOWN), as the map's method was not read.
     */
    @Test
    void aQueueFromARegistryMapIsSharedAndLeftAlone() {
        assertVerdict(built(fixture("fromARegistry")), Kind.SHARED, "SharingFixtures.queueFor(), which reads it from a map");
        assertFalse(takenOver(fixture("fromARegistry")));
    }

    @Test
    void aQueueReadFromAMapIsSharedAndLeftAlone() {
        assertVerdict(built(fixture("readFromAMap")), Kind.SHARED, "SharingFixtures.readFromAMap reads it from a map");
        assertFalse(takenOver(fixture("readFromAMap")));
    }

    @Test
    void aQueueFromAForEachLoopOverAMapsEntriesIsSharedAndLeftAlone() {
        assertVerdict(built(fixture("poolOnEachQueueOfAMap")), Kind.SHARED, "reads it from a map's entry");
        assertFalse(takenOver(fixture("poolOnEachQueueOfAMap")));
    }

    @Test
    void aNullCheckOnTheWayIsNoUse() {
        Verdict v = built(constructor(SharingFixtures.CheckedPool.class, BlockingQueue.class), fixture("checkedSubclass"));
        assertVerdict(v, Kind.PRIVATE, "");
    }

    @Test
    void aQueueOfTheApplicationsOwnClassIsUnknown() {
        Verdict v = built(fixture("queueOfItsOwnClass"));
        assertVerdict(v, Kind.UNKNOWN, "");
    }

    @Test
    void aKnownLineWithoutTheCallIsUnknownNotAGuess() {
        Frame inline = fixture("inline");
        Verdict v = built(new Frame(inline.className(), inline.methodName(), inline.type(), inline.descriptor(), 1));
        assertVerdict(v, Kind.UNKNOWN, "on line 1");
    }

    private static Class<?> anonymousClassIn(String method) {
        for (int i = 1; i < 20; i++) {
            try {
                Class<?> c = Class.forName(SharingFixtures.class.getName() + "$" + i);
                if (c.getEnclosingMethod() != null && c.getEnclosingMethod().getName().equals(method)) {
                    return c;
                }
            } catch (ClassNotFoundException e) {
                // not this one
            }
        }
        throw new AssertionError("no anonymous class in " + method);
    }

    @Test
    void aMethodWhoseClassFileCannotBeReadIsUnknown() {
        Supplier<ThreadPoolExecutor> lambda = () -> null;
        Class<?> hidden = lambda.getClass();
        Verdict v = built(new Frame(hidden.getName(), "get", hidden, "()Ljava/lang/Object;", -1));
        assertVerdict(v, Kind.UNKNOWN, "");
    }

    @Test
    void aStackWithoutDescriptorsIsUnknown() {
        Verdict v = QueueSharing.of(List.of(new Frame(ThreadPoolExecutor.class.getName(), "<init>", ThreadPoolExecutor.class),
                new Frame("com.acme.Orders", "start", null)));
        assertVerdict(v, Kind.UNKNOWN, "");
    }

    @Test
    void theAgentLeavesAPoolWhoseQueueTheApplicationKeepsAloneAndSaysWhy() {
        OptionsParser.Result r = OptionsParser.parse(null, new Properties());
        Takeover t = new Takeover(r.options(), new PoolRegistry(), () -> { });
        List<Frame> shared = new ArrayList<>(List.of(TPE7, TPE5, fixture("storedInField")));
        Takeover.Decision d = t.decide(CreationSite.of(shared), new LinkedBlockingQueue<Runnable>(100), 1, 1);
        assertFalse(d.record().managed());
        assertEquals("the application keeps its own reference to the work queue (SharingFixtures.storedInField"
                + " stores it in field SharingFixtures.kept), which the engine would leave empty", d.record().reason());

        List<Frame> own = new ArrayList<>(List.of(TPE7, TPE5, fixture("inline")));
        Takeover.Decision managed = t.decide(CreationSite.of(own), new LinkedBlockingQueue<Runnable>(), 1, 1);
        assertTrue(managed.record().managed(), managed.record().reason());
    }
}
