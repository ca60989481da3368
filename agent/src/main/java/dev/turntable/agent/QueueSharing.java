package dev.turntable.agent;

import dev.turntable.agent.CreationSite.Frame;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
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
import org.objectweb.asm.tree.VarInsnNode;
import org.objectweb.asm.tree.analysis.Analyzer;
import org.objectweb.asm.tree.analysis.SourceInterpreter;
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
 *       called on it, a return; or it was read from a field. The pool is left untouched.</li>
 *   <li>{@link Kind#PRIVATE}: the queue is created in that method with {@code new} and goes only
 *       to its own constructor and to pool constructors (or an {@code Executors} factory made
 *       it). Nothing else can reach it.</li>
 *   <li>{@link Kind#UNKNOWN}: anything else (the queue came from a method call, through
 *       reflection or a lambda, or the bytecode could not be read). The pool is taken over,
 *       and the engine also runs what is put into the original queue.</li>
 * </ul>
 * The look is intraprocedural: a queue that a called method made and also stored in a field
 * reads {@code UNKNOWN}, not {@code SHARED}.
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

    /** Verdicts by the chain above the first method read, per class of that method: pools made in a loop are read once. */
    private static final ClassValue<Map<String, Verdict>> CACHE = new ClassValue<>() {
        @Override
        protected Map<String, Verdict> computeValue(Class<?> type) {
            return new ConcurrentHashMap<>();
        }
    };

    /** Entries cached per class, at most: enough for every pool a class builds, bounded for generated code. */
    private static final int MAX_CACHED_PER_CLASS = 64;

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
        if (i + 1 >= frames.size()) {
            return Verdict.unknown("no caller on the stack");
        }
        Frame first = frames.get(i + 1);
        if (first.type() == null) {
            return Verdict.unknown("the caller's class is unknown");
        }
        String key = key(frames, i, arg);
        Map<String, Verdict> cache = CACHE.get(first.type());
        Verdict cached = cache.get(key);
        if (cached != null) {
            return cached;
        }
        Verdict v = follow(frames, i, inner, arg);
        if (cache.size() < MAX_CACHED_PER_CLASS) {
            cache.put(key, v);
        }
        return v;
    }

    private static String key(List<Frame> frames, int from, int arg) {
        StringBuilder b = new StringBuilder().append(arg);
        for (int j = from; j < frames.size() && j <= from + MAX_METHODS + 1; j++) {
            Frame f = frames.get(j);
            b.append('|').append(f.className()).append('.').append(f.methodName()).append(f.descriptor())
                    .append(':').append(f.lineNumber());
        }
        return b.toString();
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
            Step s = read(f, inner, arg);
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
    }

    /**
     * Reads the method of frame {@code f} for its call to {@code inner}'s method, and finds where
     * the value it passes as argument {@code arg} comes from and where else it goes.
     */
    private static Step read(Frame f, Frame inner, int arg) throws Exception {
        String where = CreationSite.simpleName(f.className()) + "." + f.methodName();
        byte[] bytes = classBytes(f.type());
        if (bytes == null) {
            return new Step(Verdict.unknown(where + ": its class file cannot be read"), -1);
        }
        ClassNode cn = new ClassNode();
        new ClassReader(bytes).accept(cn, ClassReader.SKIP_FRAMES);
        MethodNode m = null;
        for (MethodNode candidate : cn.methods) {
            if (candidate.name.equals(f.methodName()) && candidate.desc.equals(f.descriptor())) {
                m = candidate;
            }
        }
        if (m == null || m.instructions.size() == 0) {
            return new Step(Verdict.unknown(where + ": method not found in its class file"), -1);
        }
        Flow flow = new Flow(m);
        org.objectweb.asm.tree.analysis.Frame<SourceValue>[] frames = new Analyzer<>(flow).analyze(cn.name, m);
        List<MethodInsnNode> calls = calls(m.instructions, frames, inner, f.lineNumber());
        if (calls.isEmpty()) {
            return new Step(Verdict.unknown(where + ": the call to " + inner.methodName() + " not found"), -1);
        }
        // Where the queue argument of the call(s) comes from: each source is the instruction that
        // made the value (NEW, a field read, a method call) or a parameter's marker.
        Set<AbstractInsnNode> sources = new LinkedHashSet<>();
        Set<AbstractInsnNode> passing = new HashSet<>(calls);
        for (MethodInsnNode call : calls) {
            org.objectweb.asm.tree.analysis.Frame<SourceValue> fr = frames[m.instructions.indexOf(call)];
            int operands = Type.getArgumentTypes(call.desc).length + (call.getOpcode() == Opcodes.INVOKESTATIC ? 0 : 1);
            int operand = arg + (call.getOpcode() == Opcodes.INVOKESTATIC ? 0 : 1);
            sources.addAll(fr.getStack(fr.getStackSize() - operands + operand).insns);
        }
        Verdict unknown = null;
        int parameter = -1;
        for (AbstractInsnNode source : sources) {
            String use = flow.otherUse(source, passing, f.type().getClassLoader());
            if (use != null) {
                return new Step(new Verdict(Kind.SHARED, where + " " + use), -1);
            }
            if (source instanceof FieldInsnNode) {
                FieldInsnNode fi = (FieldInsnNode) source;
                return new Step(new Verdict(Kind.SHARED, where + " reads it from field "
                        + CreationSite.simpleName(fi.owner.replace('/', '.')) + "." + fi.name), -1);
            }
            int p = flow.parameterOf(source);
            if (p >= 0 && (parameter < 0 || parameter == p)) {
                parameter = p;
            } else if (source.getOpcode() != Opcodes.NEW) {
                unknown = Verdict.unknown(where + " gets it " + describe(source));
            }
        }
        if (unknown != null) {
            return new Step(unknown, -1);
        }
        if (parameter >= 0) {
            boolean alsoNew = sources.stream().anyMatch(s -> s.getOpcode() == Opcodes.NEW);
            return alsoNew ? new Step(Verdict.unknown(where + " gets it from a parameter or new"), -1)
                    : new Step(null, parameter);
        }
        return new Step(new Verdict(Kind.PRIVATE, where + " creates it for the pool alone"), -1);
    }

    /** The calls of {@code inner}'s method in the code, on {@code line} when that tells them apart. */
    private static List<MethodInsnNode> calls(InsnList code, Object[] frames, Frame inner, int line) {
        List<MethodInsnNode> all = new ArrayList<>();
        List<MethodInsnNode> onLine = new ArrayList<>();
        int current = -1;
        for (int k = 0; k < code.size(); k++) {
            AbstractInsnNode insn = code.get(k);
            if (insn instanceof LineNumberNode) {
                current = ((LineNumberNode) insn).line;
            } else if (insn instanceof MethodInsnNode && frames[k] != null) {
                MethodInsnNode mi = (MethodInsnNode) insn;
                if (mi.name.equals(inner.methodName()) && mi.desc.equals(inner.descriptor())) {
                    all.add(mi);
                    if (line > 0 && current == line) {
                        onLine.add(mi);
                    }
                }
            }
        }
        return onLine.isEmpty() ? all : onLine;
    }

    private static String describe(AbstractInsnNode source) {
        if (source instanceof MethodInsnNode) {
            MethodInsnNode mi = (MethodInsnNode) source;
            return "from " + CreationSite.simpleName(mi.owner.replace('/', '.')) + "." + mi.name + "()";
        }
        return "from bytecode op " + source.getOpcode();
    }

    /** The class file of a class, through its loader; {@code null} when it has none to give. */
    private static byte[] classBytes(Class<?> type) throws IOException {
        ClassLoader loader = type.getClassLoader();
        String resource = type.getName().replace('.', '/') + ".class";
        try (InputStream in = loader == null ? ClassLoader.getSystemResourceAsStream(resource)
                : loader.getResourceAsStream(resource)) {
            return in == null ? null : in.readAllBytes();
        }
    }

    /**
     * A source interpreter that keeps where a reference came from across loads, stores, copies
     * and casts, marks each parameter, and records every other place a value goes.
     */
    private static final class Flow extends SourceInterpreter {
        private final Map<Integer, AbstractInsnNode> parameterMarkers = new HashMap<>();
        private final Map<AbstractInsnNode, Integer> parameterOfMarker = new HashMap<>();
        /** Per source, where its values went: the consuming instruction and the operand's position. */
        private final Map<AbstractInsnNode, Set<Use>> uses = new HashMap<>();

        private record Use(AbstractInsnNode insn, int operand) {
        }

        Flow(MethodNode m) {
            super(Opcodes.ASM9);
            boolean instance = (m.access & Opcodes.ACC_STATIC) == 0;
            int slot = instance ? 1 : 0;
            Type[] args = Type.getArgumentTypes(m.desc);
            for (int k = 0; k < args.length; k++) {
                AbstractInsnNode marker = new VarInsnNode(Opcodes.ALOAD, slot);
                parameterMarkers.put(slot, marker);
                parameterOfMarker.put(marker, k);
                slot += args[k].getSize();
            }
        }

        /** The parameter index a source marks, or -1. */
        int parameterOf(AbstractInsnNode source) {
            Integer p = parameterOfMarker.get(source);
            return p == null ? -1 : p;
        }

        /**
         * Where else than the calls in {@code passing} the values from {@code source} go, said in
         * words, or {@code null} when they only reach those calls, their own constructor and other
         * pool constructors.
         */
        String otherUse(AbstractInsnNode source, Set<AbstractInsnNode> passing, ClassLoader loader) {
            for (Use u : uses.getOrDefault(source, Set.of())) {
                AbstractInsnNode insn = u.insn();
                if (passing.contains(insn)) {
                    continue;
                }
                if (insn instanceof MethodInsnNode) {
                    MethodInsnNode mi = (MethodInsnNode) insn;
                    boolean receiver = mi.getOpcode() != Opcodes.INVOKESTATIC && u.operand() == 0;
                    if (receiver && "<init>".equals(mi.name) && source instanceof TypeInsnNode
                            && ((TypeInsnNode) source).desc.equals(mi.owner)) {
                        continue; // the queue's own constructor
                    }
                    if (!receiver && "<init>".equals(mi.name) && isPool(mi.owner, loader)) {
                        continue; // another pool constructor (a pool built in either branch)
                    }
                    String callee = CreationSite.simpleName(mi.owner.replace('/', '.')) + "." + mi.name;
                    return receiver ? "calls " + callee + " on it" : "passes it to " + callee;
                }
                switch (insn.getOpcode()) {
                    case Opcodes.PUTFIELD:
                    case Opcodes.PUTSTATIC:
                        FieldInsnNode fi = (FieldInsnNode) insn;
                        return "stores it in field " + CreationSite.simpleName(fi.owner.replace('/', '.')) + "." + fi.name;
                    case Opcodes.AASTORE:
                        return "stores it in an array";
                    case Opcodes.INVOKEDYNAMIC:
                        return "captures it in a lambda or a string";
                    case Opcodes.ARETURN:
                        return "returns it";
                    default:
                        return "hands it to bytecode op " + insn.getOpcode();
                }
            }
            return null;
        }

        private static boolean isPool(String internalName, ClassLoader loader) {
            try {
                return ThreadPoolExecutor.class.isAssignableFrom(Class.forName(internalName.replace('/', '.'), false, loader));
            } catch (Throwable t) {
                return false;
            }
        }

        private void use(SourceValue v, AbstractInsnNode insn, int operand) {
            for (AbstractInsnNode source : v.insns) {
                uses.computeIfAbsent(source, s -> new HashSet<>()).add(new Use(insn, operand));
            }
        }

        @Override
        public SourceValue newParameterValue(boolean isInstanceMethod, int local, Type type) {
            AbstractInsnNode marker = parameterMarkers.get(local);
            if (marker != null && (type.getSort() == Type.OBJECT || type.getSort() == Type.ARRAY)) {
                return new SourceValue(1, marker);
            }
            return super.newParameterValue(isInstanceMethod, local, type);
        }

        @Override
        public SourceValue copyOperation(AbstractInsnNode insn, SourceValue value) {
            return value; // a load, store or stack copy keeps where the value came from
        }

        @Override
        public SourceValue unaryOperation(AbstractInsnNode insn, SourceValue value) {
            switch (insn.getOpcode()) {
                case Opcodes.CHECKCAST:
                    return value;
                case Opcodes.PUTSTATIC:
                case Opcodes.ATHROW:
                    use(value, insn, 0);
                    break;
                default:
                    break;
            }
            return super.unaryOperation(insn, value);
        }

        @Override
        public SourceValue binaryOperation(AbstractInsnNode insn, SourceValue value1, SourceValue value2) {
            if (insn.getOpcode() == Opcodes.PUTFIELD) {
                use(value2, insn, 1);
            }
            return super.binaryOperation(insn, value1, value2);
        }

        @Override
        public SourceValue ternaryOperation(AbstractInsnNode insn, SourceValue value1, SourceValue value2,
                                            SourceValue value3) {
            if (insn.getOpcode() == Opcodes.AASTORE) {
                use(value3, insn, 2);
            }
            return super.ternaryOperation(insn, value1, value2, value3);
        }

        @Override
        public SourceValue naryOperation(AbstractInsnNode insn, List<? extends SourceValue> values) {
            for (int k = 0; k < values.size(); k++) {
                use(values.get(k), insn, k);
            }
            return super.naryOperation(insn, values);
        }

        @Override
        public void returnOperation(AbstractInsnNode insn, SourceValue value, SourceValue expected) {
            if (insn.getOpcode() == Opcodes.ARETURN) {
                use(value, insn, 0);
            }
            super.returnOperation(insn, value, expected);
        }
    }
}
