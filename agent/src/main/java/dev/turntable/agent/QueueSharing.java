package dev.turntable.agent;

import dev.turntable.agent.CreationSite.Frame;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadPoolExecutor;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.FieldInsnNode;
import org.objectweb.asm.tree.InsnList;
import org.objectweb.asm.tree.LineNumberNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.TypeInsnNode;
import org.objectweb.asm.tree.analysis.SourceValue;

/**
 * Whether the application keeps its own reference to the work queue it passed to a new
 * {@code ThreadPoolExecutor}: a look at the bytecode of the methods that built the pool, from the
 * pool's constructor outwards. Stateless apart from a cache per class; any thread (it runs on the
 * thread that constructs a pool).
 *
 * <p>Why it matters: under the agent the engine stands in for that queue, so the queue object the
 * application made stays empty. Code that reads it ({@code size()} as a gauge or for load
 * shedding, {@code isEmpty()}, {@code remainingCapacity()}) or changes it ({@code clear()} to drop
 * a backlog, {@code drainTo}) would see and do something else than it does without the agent.
 * HikariCP, for one, sizes its connection adds by the size of the queue it gave its executor.
 *
 * <p>What it finds, per method from the pool's constructor outwards (the queue argument followed
 * through {@code this}/{@code super} calls and helper methods that pass a parameter on):
 * <ul>
 *   <li>{@link Kind#SHARED}: the queue value that reaches the constructor also goes somewhere
 *       else in that method: a field, an array, a lambda, another method's argument, a method
 *       called on it, a return, a second pool's constructor on the same run of the method
 *       (another call after or before it, or the same call again in a loop: pools on one queue
 *       share its work, where an engine each would split it); or it was read from a field, an
 *       array element or a list element (also through an iterator: a for-each loop), or from
 *       another pool's {@code getQueue()}. The pool is left untouched.</li>
 *   <li>{@link Kind#PRIVATE}: the queue is created in that method with {@code new} (or by a
 *       static, private or final helper that keeps nothing) and goes only to its own
 *       constructor and to pool constructors that only hand it on, no two of them on one run
 *       (one pool in either branch), or an {@code Executors} factory made it. Nothing else can
 *       reach it.</li>
 *   <li>{@link Kind#UNKNOWN}: anything else (the queue came from a method that may be
 *       overridden, through reflection or a lambda, or the bytecode could not be read). The pool
 *       is taken over, and the engine also runs what is put into the original queue.</li>
 * </ul>
 * Called methods are read only to that depth: a queue that an overridable method made and also
 * stored in a field reads {@code UNKNOWN}, not {@code SHARED}.
 *
 * <p>Why one class of ~590 lines: the walk from the pool's constructor outwards ({@link #of}),
 * the reading of one method on it (cached per class) and the tracing of where a queue was made
 * are one analysis over the same frames; the per-method data flow is apart, in {@link QueueFlow}.
 */
final class QueueSharing {

    /** What the look found. */
    enum Kind { PRIVATE, SHARED, UNKNOWN }

    /** A finding and, for {@code SHARED} and {@code UNKNOWN}, where and why. */
    record Verdict(Kind kind, String detail) {
        static final Verdict FACTORY = new Verdict(Kind.PRIVATE, "made by an Executors factory");

        static Verdict unknown(String detail) {
            return new Verdict(Kind.UNKNOWN, detail);
        }
    }

    /** Methods read, at most, outwards from the pool's constructors: helpers seldom nest deeper. */
    static final int MAX_METHODS = 8;

    private static final String BLOCKING_QUEUE = Type.getDescriptor(BlockingQueue.class);

    /**
     * What reading a method found, per class of that method, by the method, the line, the call
     * and the argument followed: a pool built in a loop (or by a helper many sites call) has each
     * method read once. Failures are kept too, so a method that cannot be read costs once.
     */
    private static final ClassValue<Map<String, Step>> CACHE = new ClassValue<>() {
        @Override
        protected Map<String, Step> computeValue(Class<?> type) {
            return new ConcurrentHashMap<>();
        }
    };

    /** Entries cached per class, at most: enough for every pool a class builds, bounded for generated code. */
    private static final int MAX_CACHED_PER_CLASS = 64;

    /**
     * Instructions times (locals + stack) beyond which a method is not read: the analyzer keeps a
     * frame of that many values per instruction (a generated method of 15,000 instructions and
     * 2,500 locals took a second and 450 MB).
     */
    static final long MAX_ANALYSIS_CELLS = 2_000_000L;

    static final String TPE = "java/util/concurrent/ThreadPoolExecutor";

    private QueueSharing() {
    }

    /**
     * The verdict for a stack, innermost frame first, starting at (or before) the constructor of
     * {@code ThreadPoolExecutor} that takes the work queue. Never throws.
     */
    static Verdict of(List<Frame> frames) {
        try {
            return walk(frames);
        } catch (Throwable t) { // a class file ASM cannot read, an analysis that fails: take no side
            return Verdict.unknown("bytecode not read: " + t);
        }
    }

    private static Verdict walk(List<Frame> frames) throws Exception {
        int i = 0;
        while (i < frames.size() && !(frames.get(i).type() == ThreadPoolExecutor.class
                && "<init>".equals(frames.get(i).methodName()))) {
            i++;
        }
        if (i == frames.size()) {
            return Verdict.unknown("no ThreadPoolExecutor constructor on the stack");
        }
        Frame inner = frames.get(i);
        int arg = queueParameter(inner.descriptor());
        // ThreadPoolExecutor's own constructors pass their workQueue on to the one that keeps it.
        while (arg >= 0 && i + 1 < frames.size() && frames.get(i + 1).type() == ThreadPoolExecutor.class
                && "<init>".equals(frames.get(i + 1).methodName())) {
            inner = frames.get(++i);
            arg = queueParameter(inner.descriptor());
        }
        if (arg < 0) {
            return Verdict.unknown("the constructor's descriptor is unknown");
        }
        return follow(frames, i, inner, arg);
    }

    /** Follows the queue argument of {@code inner}'s call outwards from the frame above index {@code i}. */
    private static Verdict follow(List<Frame> frames, int i, Frame inner, int arg) throws Exception {
        for (int j = i + 1, read = 0; j < frames.size(); j++, read++) {
            Frame f = frames.get(j);
            if (read == MAX_METHODS) {
                return Verdict.unknown("passed through more than " + MAX_METHODS + " methods");
            }
            if (f.type() == null || f.descriptor() == null) {
                return Verdict.unknown("passed on by " + f.className() + "." + f.methodName() + ", whose code is unknown");
            }
            if (CreationSite.definedByTheJdk(f.type())) {
                return Verdict.unknown("passed on by " + f.className() + "." + f.methodName());
            }
            Step s = readCached(f, inner, arg);
            if (s.verdict != null) {
                return s.verdict;
            }
            inner = f;
            arg = s.parameter;
        }
        return Verdict.unknown("passed on from the bottom of the stack");
    }

    /**
     * Reads one method of this class as if a pool had been built there, so that ASM's classes are
     * loaded and warm before the application builds its first pool (the first reading costs
     * about 40 ms, most of it class loading). Any thread; never throws.
     */
    static Verdict warmUp() {
        try {
            Class<?>[] five = {int.class, int.class, long.class, java.util.concurrent.TimeUnit.class, BlockingQueue.class};
            Class<?>[] seven = {int.class, int.class, long.class, java.util.concurrent.TimeUnit.class, BlockingQueue.class,
                java.util.concurrent.ThreadFactory.class, java.util.concurrent.RejectedExecutionHandler.class};
            List<Frame> frames = List.of(
                    new Frame(ThreadPoolExecutor.class.getName(), "<init>", ThreadPoolExecutor.class,
                            Type.getConstructorDescriptor(ThreadPoolExecutor.class.getConstructor(seven)), -1),
                    new Frame(ThreadPoolExecutor.class.getName(), "<init>", ThreadPoolExecutor.class,
                            Type.getConstructorDescriptor(ThreadPoolExecutor.class.getConstructor(five)), -1),
                    new Frame(QueueSharing.class.getName(), "sample", QueueSharing.class,
                            Type.getMethodDescriptor(QueueSharing.class.getDeclaredMethod("sample")), -1));
            return follow(frames, 1, frames.get(1), 4);
        } catch (Throwable t) {
            return Verdict.unknown("warm-up failed: " + t);
        }
    }

    /** Never called: the code {@link #warmUp()} reads. */
    @SuppressWarnings("unused")
    private static ThreadPoolExecutor sample() {
        return new ThreadPoolExecutor(1, 1, 0L, java.util.concurrent.TimeUnit.MILLISECONDS,
                new java.util.concurrent.LinkedBlockingQueue<>());
    }

    /**
     * Whether pool constructor frame {@code f} (of a subclass) built the pool of frame
     * {@code inner} with {@code new} (a helper pool made in its constructor) rather than
     * chaining to it with {@code super(...)}/{@code this(...)}: every call of {@code inner}'s
     * constructor it has (on its line, when known) is on an object made by {@code NEW}. False when
     * the code cannot be read. Any thread; cached per class.
     */
    static boolean buildsAnotherPool(Frame f, Frame inner) {
        if (f.type() == null || f.descriptor() == null || inner.descriptor() == null
                || CreationSite.definedByTheJdk(f.type())) {
            return false;
        }
        return cached(f.type(), "new?" + f.methodName() + f.descriptor() + ':' + f.lineNumber() + '>'
                + inner.className() + inner.descriptor(), () -> receiversAllNew(f, inner));
    }

    /** A yes-or-no reading of {@code type}'s code, cached with the other readings of its class; false if it throws. */
    static boolean cached(Class<?> type, String key, java.util.concurrent.Callable<Boolean> reading) {
        return cachedStep(type, key, () -> new Step(null, reading.call() ? 1 : 0), t -> new Step(null, 0)).parameter == 1;
    }

    /**
     * The one cache of every reading: {@code reading}'s result for {@code key} among the
     * readings of {@code type}'s code, or {@code onFailure}'s when it throws (kept too, so a
     * method that cannot be read costs once); at most {@value #MAX_CACHED_PER_CLASS} kept per class.
     */
    private static Step cachedStep(Class<?> type, String key, java.util.concurrent.Callable<Step> reading,
                                   java.util.function.Function<Throwable, Step> onFailure) {
        Map<String, Step> cache = CACHE.get(type);
        Step s = cache.get(key);
        if (s == null) {
            try {
                s = reading.call();
            } catch (Throwable t) {
                s = onFailure.apply(t);
            }
            if (cache.size() < MAX_CACHED_PER_CLASS) {
                cache.put(key, s);
            }
        }
        return s;
    }

    private static boolean receiversAllNew(Frame f, Frame inner) throws Exception {
        QueueFlow.Reading r = QueueFlow.read(f.type(), f.methodName(), f.descriptor());
        if (r.problem() != null) {
            return false;
        }
        MethodNode m = r.method();
        org.objectweb.asm.tree.analysis.Frame<SourceValue>[] frames = r.frames();
        List<MethodInsnNode> calls = calls(m.instructions, frames, inner, f.lineNumber(), f.type().getClassLoader());
        if (calls.isEmpty()) {
            return false;
        }
        for (MethodInsnNode call : calls) {
            org.objectweb.asm.tree.analysis.Frame<SourceValue> fr = frames[m.instructions.indexOf(call)];
            SourceValue receiver = fr.getStack(fr.getStackSize() - Type.getArgumentTypes(call.desc).length - 1);
            if (receiver.insns.isEmpty() || receiver.insns.stream().anyMatch(i -> i.getOpcode() != Opcodes.NEW)) {
                return false; // this (uninitialised): a super(...) or this(...) call
            }
        }
        return true;
    }

    /** The index of the work queue among a pool constructor's parameters, or -1. */
    static int queueParameter(String descriptor) {
        if (descriptor == null) {
            return -1;
        }
        Type[] args = Type.getArgumentTypes(descriptor);
        for (int k = 0; k < args.length; k++) {
            if (BLOCKING_QUEUE.equals(args[k].getDescriptor())) {
                return k;
            }
        }
        return -1;
    }

    /** The outcome of reading one method: a verdict, or the parameter the queue came in as. */
    private record Step(Verdict verdict, int parameter) {
        static Step unknown(String detail) {
            return new Step(Verdict.unknown(detail), -1);
        }
    }

    private static Step readCached(Frame f, Frame inner, int arg) {
        String key = f.methodName() + f.descriptor() + ':' + f.lineNumber() + '>' + inner.className() + '.'
                + inner.methodName() + inner.descriptor() + '#' + arg;
        // A class file ASM cannot read, an analysis that fails: take no side.
        return cachedStep(f.type(), key, () -> read(f, inner, arg), t -> Step.unknown(
                CreationSite.simpleName(f.className()) + "." + f.methodName() + ": bytecode not read: " + t));
    }

    /**
     * Reads the method of frame {@code f} for its call to {@code inner}'s method, and finds where
     * the value it passes as argument {@code arg} comes from and where else it goes.
     */
    private static Step read(Frame f, Frame inner, int arg) throws Exception {
        String where = CreationSite.simpleName(f.className()) + "." + f.methodName();
        QueueFlow.Reading r = QueueFlow.read(f.type(), f.methodName(), f.descriptor());
        if (r.problem() != null) {
            return Step.unknown(where + ": " + r.problem());
        }
        ClassLoader loader = f.type().getClassLoader();
        MethodNode m = r.method();
        QueueFlow flow = r.flow();
        org.objectweb.asm.tree.analysis.Frame<SourceValue>[] frames = r.frames();
        List<MethodInsnNode> calls = calls(m.instructions, frames, inner, f.lineNumber(), loader);
        if (calls.isEmpty()) {
            // A frame the stack walk does not show (a lambda's or a method reference's proxy,
            // reflection) stands between: the call that really ran is not in this method.
            return Step.unknown(where + ": no call to " + CreationSite.simpleName(inner.className()) + "."
                    + inner.methodName() + (f.lineNumber() > 0 ? " on line " + f.lineNumber() : ""));
        }
        // Where the queue argument of the call(s) comes from: each source is the instruction that
        // made the value (NEW, a field read, a method call) or a parameter's marker. Each call
        // passes it at one operand position; anything it passes elsewhere is another use.
        Set<AbstractInsnNode> sources = new LinkedHashSet<>();
        Map<AbstractInsnNode, Integer> passing = new HashMap<>();
        for (MethodInsnNode call : calls) {
            org.objectweb.asm.tree.analysis.Frame<SourceValue> fr = frames[m.instructions.indexOf(call)];
            int receiver = call.getOpcode() == Opcodes.INVOKESTATIC ? 0 : 1;
            int operands = Type.getArgumentTypes(call.desc).length + receiver;
            passing.put(call, arg + receiver);
            sources.addAll(fr.getStack(fr.getStackSize() - operands + arg + receiver).insns);
        }
        if (sources.isEmpty()) {
            return Step.unknown(where + " passes a value of unknown origin (this, or an uninitialised local)");
        }
        Verdict unknown = null;
        int parameter = -1;
        boolean made = false;
        for (AbstractInsnNode source : flow.inCodeOrder(sources)) {
            String use = flow.otherUse(source, passing, loader);
            if (use != null) {
                return new Step(new Verdict(Kind.SHARED, where + " " + use), -1);
            }
            if (source instanceof FieldInsnNode) {
                FieldInsnNode fi = (FieldInsnNode) source;
                return new Step(new Verdict(Kind.SHARED, where + " reads it from field " + fieldName(fi)), -1);
            }
            if (source.getOpcode() == Opcodes.AALOAD) {
                // An element of an array: whoever holds the array reads the queue, as with a field.
                return new Step(new Verdict(Kind.SHARED, where + " reads it from an array"), -1);
            }
            String holder = holderOf(source, loader);
            if (holder != null) {
                return new Step(new Verdict(Kind.SHARED, where + " reads it from " + holder), -1);
            }
            int p = flow.parameterOf(source);
            Step callee = source instanceof MethodInsnNode ? madeBy((MethodInsnNode) source, loader) : null;
            if (callee != null && callee.verdict != null) {
                return new Step(new Verdict(Kind.SHARED, where + " gets it from " + callee.verdict.detail()), -1);
            }
            if (p >= 0 && (parameter < 0 || parameter == p)) {
                parameter = p;
            } else if (callee != null && callee.parameter == 1) {
                made = true; // a helper that cannot be overridden makes it and keeps nothing
            } else if (source.getOpcode() != Opcodes.NEW) {
                unknown = Verdict.unknown(where + " gets it " + describe(source));
            } else if (!newJdkQueue(source)) {
                // A queue class of the application's own (an anonymous subclass, say) whose
                // constructor may register or wrap it: not ours to call private.
                unknown = Verdict.unknown(where + " creates a " + simpleName(((TypeInsnNode) source).desc)
                        + ", whose constructor it does not read");
            }
        }
        if (unknown != null) {
            return new Step(unknown, -1);
        }
        if (parameter >= 0) {
            boolean alsoNew = made || sources.stream().anyMatch(s -> s.getOpcode() == Opcodes.NEW);
            return alsoNew ? Step.unknown(where + " gets it from a parameter or new") : new Step(null, parameter);
        }
        return new Step(new Verdict(Kind.PRIVATE, where + " creates it for the pool alone"), -1);
    }

    /**
     * What the method a call runs does with the queue it returns: {@code parameter == 1} when it
     * makes a {@code java.util.concurrent} queue with {@code new} and keeps no other reference to
     * it; a SHARED verdict (its detail naming the method) when it keeps one or returns a field;
     * null when it cannot say: the call may run an override (a method neither static, private
     * nor final, of a class that is not final), or the code is out of reach. Cached per class.
     */
    private static Step madeBy(MethodInsnNode call, ClassLoader loader) {
        if ("<init>".equals(call.name)) {
            return null;
        }
        try {
            Class<?> owner = load(call.owner, loader);
            if (CreationSite.definedByTheJdk(owner)) {
                return null;
            }
            String key = "made?" + call.name + call.desc + (call.getOpcode() == Opcodes.INVOKESTATIC ? "S" : "V");
            Step s = cachedStep(owner, key, () -> readMadeBy(owner, call), t -> new Step(null, 0));
            return s.verdict == null && s.parameter != 1 ? null : s;
        } catch (Throwable t) {
            return null;
        }
    }

    private static Step readMadeBy(Class<?> owner, MethodInsnNode call) throws Exception {
        Step none = new Step(null, 0);
        QueueFlow.Reading r = QueueFlow.read(owner, call.name, call.desc);
        if (r.problem() != null) {
            return none;
        }
        MethodNode m = r.method();
        boolean bound = call.getOpcode() == Opcodes.INVOKESTATIC
                || (m.access & (Opcodes.ACC_PRIVATE | Opcodes.ACC_FINAL | Opcodes.ACC_STATIC)) != 0
                || java.lang.reflect.Modifier.isFinal(owner.getModifiers());
        if (!bound) {
            return none;
        }
        String where = CreationSite.simpleName(owner.getName()) + "." + call.name + "()";
        QueueFlow flow = r.flow();
        org.objectweb.asm.tree.analysis.Frame<SourceValue>[] frames = r.frames();
        Map<AbstractInsnNode, Integer> returns = new HashMap<>();
        Set<AbstractInsnNode> sources = new LinkedHashSet<>();
        for (int k = 0; k < m.instructions.size(); k++) {
            AbstractInsnNode insn = m.instructions.get(k);
            if (insn.getOpcode() == Opcodes.ARETURN && frames[k] != null) {
                returns.put(insn, 0);
                sources.addAll(frames[k].getStack(frames[k].getStackSize() - 1).insns);
            }
        }
        if (sources.isEmpty()) {
            return none;
        }
        for (AbstractInsnNode source : flow.inCodeOrder(sources)) {
            if (source instanceof FieldInsnNode) {
                FieldInsnNode fi = (FieldInsnNode) source;
                return new Step(new Verdict(Kind.SHARED, where + ", which returns field " + fieldName(fi)), -1);
            }
            if (source.getOpcode() == Opcodes.AALOAD) {
                return new Step(new Verdict(Kind.SHARED, where + ", which returns an array element"), -1);
            }
            String holder = holderOf(source, owner.getClassLoader());
            if (holder != null) {
                return new Step(new Verdict(Kind.SHARED, where + ", which reads it from " + holder), -1);
            }
            String use = flow.otherUse(source, returns, owner.getClassLoader());
            if (use != null) {
                return new Step(new Verdict(Kind.SHARED, where + ", which " + use), -1);
            }
            if (!newJdkQueue(source)) {
                return none;
            }
        }
        return new Step(null, 1);
    }

    /**
     * The {@code java.util.Map} methods whose result is a value the map holds (or held, for
     * {@code putIfAbsent}; or, for {@code getOrDefault}, may hold: its default may be a queue
     * the map never had, which is then left alone too, the safe side): name and descriptor.
     * {@code computeIfAbsent} is how a registry of queues by name is usually written, so a queue
     * made in its lambda is the map's too.
     */
    private static final Set<String> MAP_READS = Set.of(
            "get(Ljava/lang/Object;)Ljava/lang/Object;",
            "getOrDefault(Ljava/lang/Object;Ljava/lang/Object;)Ljava/lang/Object;",
            "computeIfAbsent(Ljava/lang/Object;Ljava/util/function/Function;)Ljava/lang/Object;",
            "computeIfPresent(Ljava/lang/Object;Ljava/util/function/BiFunction;)Ljava/lang/Object;",
            "compute(Ljava/lang/Object;Ljava/util/function/BiFunction;)Ljava/lang/Object;",
            "merge(Ljava/lang/Object;Ljava/lang/Object;Ljava/util/function/BiFunction;)Ljava/lang/Object;",
            "putIfAbsent(Ljava/lang/Object;Ljava/lang/Object;)Ljava/lang/Object;");

    /**
     * What else holds the value a call returns, said in words, or null: an element read from a
     * {@code java.util.List} ({@code get(int)}, {@code getFirst()}, {@code getLast()}), a value
     * of a {@code java.util.Map} ({@link #MAP_READS}, or {@code Map.Entry.getValue()}, as in a
     * loop over its entries; any entry's counts, also one made with {@code Map.entry} that no
     * map holds, the safe side) or one reached through an {@code Iterator} (a for-each loop over a
     * collection): as with an array, whoever else holds the collection reads or fills that queue
     * object; or another pool's queue ({@code getQueue()} of a {@code ThreadPoolExecutor}),
     * which that pool works on.
     */
    private static String holderOf(AbstractInsnNode source, ClassLoader loader) {
        if (!(source instanceof MethodInsnNode)) {
            return null;
        }
        MethodInsnNode mi = (MethodInsnNode) source;
        Class<?> holder;
        String said;
        if (mi.name.equals("get") && mi.desc.equals("(I)Ljava/lang/Object;")
                || (mi.name.equals("getFirst") || mi.name.equals("getLast")) && mi.desc.equals("()Ljava/lang/Object;")) {
            holder = List.class;
            said = "a list";
        } else if (MAP_READS.contains(mi.name + mi.desc)) {
            holder = Map.class;
            said = "a map";
        } else if (mi.name.equals("getValue") && mi.desc.equals("()Ljava/lang/Object;")) {
            holder = Map.Entry.class;
            said = "a map's entry";
        } else if (mi.name.equals("next") && mi.desc.equals("()Ljava/lang/Object;")) {
            holder = java.util.Iterator.class;
            said = "a collection's iterator";
        } else if (mi.name.equals("getQueue") && mi.desc.equals("()" + BLOCKING_QUEUE)) {
            // Two pools on one queue share its work; an engine for this one would split it.
            holder = ThreadPoolExecutor.class;
            said = "another pool (" + simpleName(mi.owner) + ".getQueue)";
        } else {
            return null;
        }
        try {
            return mi.getOpcode() != Opcodes.INVOKESTATIC && holder.isAssignableFrom(load(mi.owner, loader)) ? said : null;
        } catch (Throwable t) {
            return null;
        }
    }

    static MethodNode method(byte[] bytes, String name, String descriptor) {
        ClassNode cn = new ClassNode();
        new ClassReader(bytes).accept(cn, ClassReader.SKIP_FRAMES);
        for (MethodNode candidate : cn.methods) {
            if (candidate.name.equals(name) && candidate.desc.equals(descriptor) && candidate.instructions.size() > 0) {
                return candidate;
            }
        }
        return null;
    }

    /**
     * The calls of {@code inner}'s method in the code: same name and descriptor, and an owner
     * that is its class (a constructor, a static or private method) or a subclass of it (a
     * virtual call); on {@code line} when the line is known, and then none if none is there.
     */
    private static List<MethodInsnNode> calls(InsnList code, Object[] frames, Frame inner, int line, ClassLoader loader) {
        List<MethodInsnNode> all = new ArrayList<>();
        String innerOwner = inner.className().replace('.', '/');
        int current = -1;
        for (int k = 0; k < code.size(); k++) {
            AbstractInsnNode insn = code.get(k);
            if (insn instanceof LineNumberNode) {
                current = ((LineNumberNode) insn).line;
            } else if (insn instanceof MethodInsnNode && frames[k] != null && (line <= 0 || current == line)) {
                MethodInsnNode mi = (MethodInsnNode) insn;
                if (mi.name.equals(inner.methodName()) && mi.desc.equals(inner.descriptor())
                        && (mi.owner.equals(innerOwner) || isSubclass(mi.owner, inner.type(), loader, mi))) {
                    all.add(mi);
                }
            }
        }
        return all;
    }

    private static boolean isSubclass(String owner, Class<?> declaring, ClassLoader loader, MethodInsnNode mi) {
        if (declaring == null || mi.getOpcode() == Opcodes.INVOKESTATIC || mi.getOpcode() == Opcodes.INVOKESPECIAL) {
            return false;
        }
        try {
            return declaring.isAssignableFrom(load(owner, loader));
        } catch (Throwable t) {
            return false;
        }
    }

    /** The class of an internal name, through {@code loader}, without initialising it (no application code runs). */
    static Class<?> load(String internalName, ClassLoader loader) throws ClassNotFoundException {
        return Class.forName(internalName.replace('/', '.'), false, loader);
    }

    /** {@code Orders} for {@code com/acme/Orders}: an internal name as the Pools table shows classes. */
    static String simpleName(String internalName) {
        return CreationSite.simpleName(internalName.replace('/', '.'));
    }

    /** {@code Orders.queue} for a field instruction. */
    static String fieldName(FieldInsnNode fi) {
        return simpleName(fi.owner) + "." + fi.name;
    }

    /** Whether {@code source} makes a {@code java.util.concurrent} queue with {@code new} (whose constructor keeps nothing). */
    private static boolean newJdkQueue(AbstractInsnNode source) {
        return source.getOpcode() == Opcodes.NEW && ((TypeInsnNode) source).desc.startsWith("java/util/concurrent/");
    }

    private static String describe(AbstractInsnNode source) {
        if (source instanceof MethodInsnNode) {
            MethodInsnNode mi = (MethodInsnNode) source;
            return "from " + simpleName(mi.owner) + "." + mi.name + "()";
        }
        return "from bytecode op " + source.getOpcode();
    }

    /** The class file of a class, through its loader; {@code null} when it has none to give. */
    static byte[] classBytes(Class<?> type) throws IOException {
        ClassLoader loader = type.getClassLoader();
        String resource = type.getName().replace('.', '/') + ".class";
        try (InputStream in = loader == null ? ClassLoader.getSystemResourceAsStream(resource)
                : loader.getResourceAsStream(resource)) {
            return in == null ? null : in.readAllBytes();
        }
    }
}
