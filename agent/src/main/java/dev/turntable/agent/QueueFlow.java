package dev.turntable.agent;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadPoolExecutor;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.FieldInsnNode;
import org.objectweb.asm.tree.InsnList;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.TypeInsnNode;
import org.objectweb.asm.tree.VarInsnNode;
import org.objectweb.asm.tree.analysis.Analyzer;
import org.objectweb.asm.tree.analysis.SourceInterpreter;
import org.objectweb.asm.tree.analysis.SourceValue;

/**
 * For {@link QueueSharing}: a source interpreter (ASM's analyzer) that keeps where a reference
 * came from across loads, stores, copies, casts and null checks, marks each parameter, and
 * records every other place a value goes, and the method's control flow (to tell whether two
 * pools get one queue on one run of it). One instance per method read; confined to the thread
 * that reads it.
 *
 * <p>Why one class of ~560 lines: the interpreter's callbacks (at the end) feed three analyses
 * that need the same frames and control-flow graph: where a value goes ({@link #usesOf},
 * {@link #otherUse}), whether two uses happen on one run of the method ({@link #onOneRun}, with
 * the predecessor search), and whether a called method only hands a parameter on to a pool
 * ({@link #passesToPoolOnly}).
 */
final class QueueFlow extends SourceInterpreter {
    /** Per local slot, the marker of the parameter held there (its index in {@link #markers}). */
    private final Map<Integer, AbstractInsnNode> parameterMarkers = new HashMap<>();
    private final Map<AbstractInsnNode, Integer> parameterOfMarker = new HashMap<>();
    /** Per parameter index, its marker: a made-up instruction that stands for "came in as this parameter". */
    private final AbstractInsnNode[] markers;
    /** Per source, where its values went: the consuming instruction and the operand's position. */
    private final Map<AbstractInsnNode, Set<Use>> uses = new HashMap<>();
    /** The method's code, for the order of {@link #usesOf}. */
    private final InsnList instructions;
    /**
     * Per instruction index, the indexes control can go to next (exception handlers included),
     * as the analyzer found them: plain arrays, as this costs every reading.
     */
    private final int[][] successors;
    /** Per instruction index, the exception handlers control can go to from it. */
    private final int[][] handlers;
    /**
     * Where control comes from ({@link #findPredecessors()}), null until a search needs it: the
     * instructions before instruction {@code k} are {@code predecessors[firstPredecessor[k]]}
     * up to {@code predecessors[firstPredecessor[k + 1]]}, exclusive.
     */
    private int[] predecessors;
    private int[] firstPredecessor;

    record Use(AbstractInsnNode insn, int operand) {
    }

    QueueFlow(MethodNode m) {
        super(Opcodes.ASM9);
        instructions = m.instructions;
        successors = new int[m.instructions.size()][];
        handlers = new int[m.instructions.size()][];
        boolean instance = (m.access & Opcodes.ACC_STATIC) == 0;
        int slot = instance ? 1 : 0;
        Type[] args = Type.getArgumentTypes(m.desc);
        markers = new AbstractInsnNode[args.length];
        for (int k = 0; k < args.length; k++) {
            AbstractInsnNode marker = new VarInsnNode(Opcodes.ALOAD, slot);
            markers[k] = marker;
            parameterMarkers.put(slot, marker);
            parameterOfMarker.put(marker, k);
            slot += args[k].getSize();
        }
    }

    /** One method's code as read: its instructions, the flow recorded and the analyzer's frames; or why it could not be. */
    record Reading(MethodNode method, QueueFlow flow, org.objectweb.asm.tree.analysis.Frame<SourceValue>[] frames,
                   String problem) {
    }

    /**
     * Reads method {@code name descriptor} of {@code type} from its class file: a reading with a
     * {@code problem} (and nothing else) when the class file cannot be read, the method is not in
     * it, or it is larger than {@link QueueSharing#MAX_ANALYSIS_CELLS}. The same reading again
     * while this thread remembers it ({@link RecentReadings}).
     */
    static Reading read(Class<?> type, String name, String descriptor) throws Exception {
        Reading known = RecentReadings.find(type, name, descriptor);
        if (known != null) {
            return known;
        }
        Reading fresh = readAnew(type, name, descriptor);
        RecentReadings.remember(type, name, descriptor, fresh);
        return fresh;
    }

    private static Reading readAnew(Class<?> type, String name, String descriptor) throws Exception {
        byte[] bytes = QueueSharing.classBytes(type);
        if (bytes == null) {
            return new Reading(null, null, null, "its class file cannot be read");
        }
        MethodNode m = QueueSharing.method(bytes, name, descriptor);
        if (m == null) {
            return new Reading(null, null, null, "method not found in its class file");
        }
        if ((long) m.instructions.size() * (m.maxLocals + m.maxStack) > QueueSharing.MAX_ANALYSIS_CELLS) {
            return new Reading(m, null, null, "too large to read (" + m.instructions.size() + " instructions)");
        }
        QueueFlow flow = new QueueFlow(m);
        Analyzer<SourceValue> analyzer = new Analyzer<>(flow) {
            @Override
            protected void newControlFlowEdge(int insn, int successor) {
                flow.edge(insn, successor);
            }

            @Override
            protected boolean newControlFlowExceptionEdge(int insn, int successor) {
                flow.handlers[insn] = add(flow.handlers[insn], successor);
                return true;
            }
        };
        return new Reading(m, flow, analyzer.analyze(new ClassReader(bytes).getClassName(), m), null);
    }

    /** Records an edge once (the analyzer goes over an instruction again each time what reaches it changes). */
    private void edge(int insn, int successor) {
        successors[insn] = add(successors[insn], successor);
    }

    /** {@code known} with {@code successor}, once. */
    private static int[] add(int[] known, int successor) {
        if (known == null) {
            return new int[] {successor};
        }
        for (int k : known) {
            if (k == successor) {
                return known;
            }
        }
        known = java.util.Arrays.copyOf(known, known.length + 1);
        known[known.length - 1] = successor;
        return known;
    }

    /**
     * Whether the instruction at {@code index} may throw, as far as this look needs: loads,
     * stores, constants, stack shuffles, {@code IINC}, {@code GOTO} and the pseudo-instructions
     * (labels, lines, frames) do not; anything else may. Their exception edges (the analyzer
     * gives every instruction in a try block one) would otherwise lead from a pool built in a
     * try block to the pool its handler builds instead.
     */
    private boolean mayThrow(int index) {
        int op = instructions.get(index).getOpcode();
        return !(op < 0 || (op >= Opcodes.NOP && op <= Opcodes.SIPUSH) || (op >= Opcodes.ILOAD && op <= Opcodes.ALOAD)
                || (op >= Opcodes.ISTORE && op <= Opcodes.ASTORE) || (op >= Opcodes.POP && op <= Opcodes.SWAP)
                || op == Opcodes.IINC || op == Opcodes.GOTO);
    }

    /** The parameter index a source marks, or -1. */
    int parameterOf(AbstractInsnNode source) {
        Integer p = parameterOfMarker.get(source);
        return p == null ? -1 : p;
    }

    /** The marker of parameter {@code k}, or null. */
    AbstractInsnNode parameterMarker(int k) {
        return k >= 0 && k < markers.length ? markers[k] : null;
    }

    /**
     * {@code sources} in the order of the method's code, parameters first (by index): which of
     * several sources is reported must not depend on the analyzer's sets, which hash instructions
     * by identity and so iterate in another order in every JVM.
     */
    List<AbstractInsnNode> inCodeOrder(java.util.Collection<AbstractInsnNode> sources) {
        List<AbstractInsnNode> ordered = new ArrayList<>(sources);
        ordered.sort(Comparator.comparingInt((AbstractInsnNode i) -> instructions.indexOf(i)).thenComparingInt(this::parameterOf));
        return ordered;
    }

    /**
     * Where the values from {@code source} went, in the order of the method's code: the first
     * use that keeps the queue is the one an operator is told about, the same one in every run
     * (the uses are hashed by instruction identity, whose order changes from one JVM to the next).
     */
    List<Use> usesOf(AbstractInsnNode source) {
        Set<Use> found = uses.get(source);
        if (found == null) {
            return List.of();
        }
        List<Use> ordered = new ArrayList<>(found);
        ordered.sort(Comparator.comparingInt((Use u) -> instructions.indexOf(u.insn())).thenComparingInt(Use::operand));
        return ordered;
    }

    /**
     * Where else than the calls in {@code passing} (each at its one operand position) the
     * values from {@code source} go, said in words, or {@code null} when they only reach those,
     * their own constructor, and other pool constructors that only hand them on as their queue,
     * no two of which (nor one twice, in a loop) get the same value on one run of the method.
     */
    String otherUse(AbstractInsnNode source, Map<AbstractInsnNode, Integer> passing, ClassLoader loader) {
        List<Use> pools = new ArrayList<>();
        for (Use u : usesOf(source)) {
            AbstractInsnNode insn = u.insn();
            Integer at = passing.get(insn);
            if (at != null && at == u.operand()) {
                pools.add(u);
                continue;
            }
            if (insn instanceof MethodInsnNode) {
                MethodInsnNode mi = (MethodInsnNode) insn;
                boolean receiver = mi.getOpcode() != Opcodes.INVOKESTATIC && u.operand() == 0;
                if (receiver && "<init>".equals(mi.name) && source instanceof TypeInsnNode
                        && ((TypeInsnNode) source).desc.equals(mi.owner)) {
                    continue; // the queue's own constructor (read() trusts only the JDK's)
                }
                if (!receiver && "<init>".equals(mi.name) && mi.getOpcode() == Opcodes.INVOKESPECIAL
                        && passesToPoolOnly(mi.owner, mi.desc, u.operand() - 1, loader, 0)) {
                    pools.add(u); // another pool built on it (one in either branch), keeping nothing
                    continue;
                }
                String callee = QueueSharing.simpleName(mi.owner) + "." + mi.name;
                if (at != null) {
                    return "passes it to " + callee + " a second time, as another argument";
                }
                return receiver ? "calls " + callee + " on it" : "passes it to " + callee;
            }
            switch (insn.getOpcode()) {
                case Opcodes.PUTFIELD:
                case Opcodes.PUTSTATIC:
                    return "stores it in field " + QueueSharing.fieldName((FieldInsnNode) insn);
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
        // Two pools on one queue share its work; an engine each would split it. Pools in
        // either branch (or the pool and a return of the queue in either branch) do not.
        Use[] both = onOneRun(pools);
        if (both == null) {
            return null;
        }
        if (both[0] == both[1]) {
            return "passes it to " + callee(both[1].insn()) + " in a loop, to a new pool each time";
        }
        // Name the other pool's constructor rather than the call (or return) being followed.
        AbstractInsnNode other = passing.containsKey(both[1].insn()) && !passing.containsKey(both[0].insn())
                ? both[0].insn() : both[1].insn();
        return "passes it to " + callee(other) + " for another pool as well";
    }

    private static String callee(AbstractInsnNode insn) {
        MethodInsnNode mi = (MethodInsnNode) insn;
        return QueueSharing.simpleName(mi.owner) + "." + mi.name;
    }

    /**
     * Two of {@code uses} (the same one twice, in a loop) that one run of the method can reach
     * one after the other with the same value, first and second in that order; or null. The
     * value reaching the second is the first's when control goes from the first to the second
     * without passing any instruction that makes a value the second may get (a {@code new}, a
     * call, a field read): a value made again on the way (a queue made in each round of a loop)
     * is another queue. Where the second may get values from elsewhere too, this says yes
     * when one of them is the first's: a pool left alone is the safe side.
     *
     * <p>One search per second use, backwards from it, whatever the number of first ones: a
     * method whose 60 switch arms each build a pool on one queue costs 60 searches, not 3,600.
     * Of several pairs, the one reported is the first second use's first first use, in the
     * order of {@code uses}.
     */
    Use[] onOneRun(List<Use> uses) {
        if (uses.isEmpty()) {
            return null;
        }
        Map<Use, BitSet> remade = remadeValues(uses);
        // The first use is the first tried as the first of a pair: once control is known to go
        // from it to the second, no more of the search is needed.
        int[] afterFirstOfAll = successors[instructions.indexOf(uses.get(0).insn())];
        for (Use second : uses) {
            int to = instructions.indexOf(second.insn());
            BitSet leading = leadingTo(to, remade.get(second), afterFirstOfAll);
            for (Use first : uses) {
                // Not the first call's own exception edges: if that constructor threw, it built
                // no pool (a handler that builds a fallback pool on the same queue builds the only one).
                int[] next = successors[instructions.indexOf(first.insn())];
                if (next != null) {
                    for (int k : next) {
                        if (k == to || leading.get(k)) {
                            return new Use[] {first, second};
                        }
                    }
                }
            }
        }
        return null;
    }

    /**
     * Per use of {@code wanted}, the instructions that make the values it may get (their
     * indexes), parameters aside (a parameter is not made again): one pass over every use.
     */
    private Map<Use, BitSet> remadeValues(List<Use> wanted) {
        Map<Use, BitSet> remade = new HashMap<>();
        for (Use u : wanted) {
            remade.put(u, new BitSet());
        }
        for (Map.Entry<AbstractInsnNode, Set<Use>> e : uses.entrySet()) {
            if (parameterOf(e.getKey()) >= 0) {
                continue;
            }
            int source = -1;
            for (Use u : e.getValue()) {
                BitSet made = remade.get(u);
                if (made != null) {
                    if (source < 0) {
                        source = instructions.indexOf(e.getKey());
                    }
                    made.set(source);
                }
            }
        }
        return remade;
    }

    /**
     * The instructions, none of them in {@code avoid}, from which control goes on to instruction
     * {@code to} without passing {@code avoid}: by their next instructions, and by their
     * exception handlers when they may throw. {@code to} itself is among them when it is in a
     * loop that does not pass {@code avoid}. Only some of them once one of {@code enough} (or
     * {@code to}) is found: the caller needs no more.
     */
    private BitSet leadingTo(int to, BitSet avoid, int[] enough) {
        if (predecessors == null) {
            findPredecessors();
        }
        BitSet leading = new BitSet();
        BitSet stop = new BitSet();
        if (enough != null) {
            for (int k : enough) {
                if (k == to) {
                    return leading;
                }
                stop.set(k);
            }
        }
        int[] pending = new int[successors.length + 1];
        int top = 0;
        pending[top++] = to;
        while (top > 0) {
            int at = pending[--top];
            for (int e = firstPredecessor[at]; e < firstPredecessor[at + 1]; e++) {
                int k = predecessors[e];
                if (!leading.get(k) && !avoid.get(k)) {
                    leading.set(k);
                    if (stop.get(k)) {
                        return leading;
                    }
                    pending[top++] = k;
                }
            }
        }
        return leading;
    }

    /**
     * Makes {@link #predecessors}: per instruction, the instructions control can come from, by
     * their next instruction or by an exception handler of one that may throw. Made on the
     * first search and kept for the others.
     */
    private void findPredecessors() {
        int n = successors.length;
        int[] start = new int[n + 1];
        for (int k = 0; k < n; k++) {
            for (int s : next(k)) {
                start[s + 1]++;
            }
            if (handlers[k] != null && mayThrow(k)) {
                for (int s : handlers[k]) {
                    start[s + 1]++;
                }
            }
        }
        for (int k = 0; k < n; k++) {
            start[k + 1] += start[k];
        }
        int[] from = new int[start[n]];
        int[] filled = java.util.Arrays.copyOf(start, n);
        for (int k = 0; k < n; k++) {
            for (int s : next(k)) {
                from[filled[s]++] = k;
            }
            if (handlers[k] != null && mayThrow(k)) {
                for (int s : handlers[k]) {
                    from[filled[s]++] = k;
                }
            }
        }
        firstPredecessor = start;
        predecessors = from;
    }

    private static final int[] NONE = {};

    /** The instructions control goes to next from instruction {@code k}. */
    private int[] next(int k) {
        return successors[k] == null ? NONE : successors[k];
    }

    /**
     * Whether parameter {@code p} of the constructor {@code owner.<init>desc} goes only to a
     * {@code ThreadPoolExecutor} constructor's work queue: at once (the JDK's own), or through
     * a pool subclass's {@code super}/{@code this} calls that keep no other reference to it.
     */
    static boolean passesToPoolOnly(String owner, String desc, int p, ClassLoader loader, int depth) {
        if (owner.equals(QueueSharing.TPE)) {
            return p >= 0 && p == QueueSharing.queueParameter(desc);
        }
        if (depth >= QueueSharing.MAX_METHODS || p < 0) {
            return false;
        }
        try {
            Class<?> type = QueueSharing.load(owner, loader);
            if (!ThreadPoolExecutor.class.isAssignableFrom(type)) {
                return false;
            }
            return QueueSharing.cached(type, "passes?" + desc + '#' + p,
                    () -> readPassesToPoolOnly(type, owner, desc, p, depth));
        } catch (Throwable t) {
            return false;
        }
    }

    private static boolean readPassesToPoolOnly(Class<?> type, String owner, String desc, int p, int depth) {
        try {
            Reading r = read(type, "<init>", desc);
            if (r.problem() != null) {
                return false;
            }
            QueueFlow flow = r.flow();
            AbstractInsnNode marker = flow.parameterMarker(p);
            List<Use> uses = marker == null ? List.of() : flow.usesOf(marker);
            if (uses.isEmpty() || flow.onOneRun(uses) != null) {
                return false; // it builds two pools on its queue (itself and a helper pool, say)
            }
            for (Use u : uses) {
                if (!(u.insn() instanceof MethodInsnNode)) {
                    return false;
                }
                MethodInsnNode mi = (MethodInsnNode) u.insn();
                if (!"<init>".equals(mi.name) || mi.getOpcode() != Opcodes.INVOKESPECIAL
                        || !passesToPoolOnly(mi.owner, mi.desc, u.operand() - 1, type.getClassLoader(), depth + 1)) {
                    return false;
                }
            }
            return true;
        } catch (Throwable t) {
            return false;
        }
    }

    /**
     * Null checks that hand back (or keep) nothing: {@code Objects.requireNonNull}, Guava's
     * {@code checkNotNull} (both return their argument) and Kotlin's parameter checks, which
     * every public Kotlin function taking the queue calls.
     */
    private static boolean nullCheck(MethodInsnNode mi) {
        switch (mi.owner) {
            case "java/util/Objects":
                return mi.name.equals("requireNonNull");
            case "com/google/common/base/Preconditions":
                return mi.name.equals("checkNotNull");
            case "kotlin/jvm/internal/Intrinsics":
                return mi.name.startsWith("checkNotNull") || mi.name.equals("checkParameterIsNotNull");
            default:
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
        if (insn instanceof MethodInsnNode && insn.getOpcode() == Opcodes.INVOKESTATIC
                && nullCheck((MethodInsnNode) insn) && !values.isEmpty()) {
            // Checked, not kept: what it returns (if anything) is the same value.
            return Type.getReturnType(((MethodInsnNode) insn).desc).getSort() == Type.VOID
                    ? super.naryOperation(insn, values) : values.get(0);
        }
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
