package dev.turntable.agent;

import java.util.ArrayList;
import java.util.List;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.FieldInsnNode;
import org.objectweb.asm.tree.FrameNode;
import org.objectweb.asm.tree.InsnList;
import org.objectweb.asm.tree.InsnNode;
import org.objectweb.asm.tree.JumpInsnNode;
import org.objectweb.asm.tree.LabelNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.TryCatchBlockNode;
import org.objectweb.asm.tree.VarInsnNode;

/**
 * Rewrites the class files of {@code ThreadPoolExecutor} and {@code ForkJoinPool} so that they
 * call the bridge ({@code java.util.concurrent.TurntableBridge}, see
 * {@code dev.turntable.agent.bootstrap.TurntableBridge}) at the places the agent hooks, with
 * plain ASM: each hook is an {@code invokestatic} of a package-private bridge method that never
 * throws; no member is added (another agent may retransform these classes later), and one local
 * variable only, in the constructor. Stateless; any thread.
 *
 * <p>In {@code ThreadPoolExecutor}:
 * <ul>
 *   <li>the 7-argument constructor: first thing, {@code answer = constructing(all seven)} into a
 *       local variable of its own and {@code workQueue = queueFor(answer, workQueue)}; before each
 *       return, {@code constructed(this, answer)};</li>
 *   <li>{@code addWorker(firstTask, core)}: first thing, {@code if (queuesFirstTask(this,
 *       workQueue, firstTask, core)) return true;} (the task was queued behind waiting ones);</li>
 *   <li>{@code processWorkerExit}: first thing, {@code workerExit(workQueue)};</li>
 *   <li>{@code reject(Runnable)}: first thing, {@code rejecting(this, workQueue)};</li>
 *   <li>{@code runWorker}: first thing, {@code workerStart(workQueue, w.firstTask)} (when the
 *       JDK's {@code Worker} has that field); whatever it throws goes to {@code swallows(thrown)},
 *       and is rethrown unless that says it is the engine's retirement signal (then the method
 *       returns);</li>
 *   <li>{@code shutdown()}: before each return, {@code shutDown(workQueue)};</li>
 *   <li>{@code shutdownNow()}: first thing {@code stopping(workQueue, true)}, before each return
 *       {@code shutDown(workQueue)}, and if it throws, {@code stopping(workQueue, false)} before
 *       the throwable goes on;</li>
 *   <li>{@code tryTerminate()}: just before its call of {@code terminated()} (under the pool's
 *       main lock, before the pool is marked terminated and its waiters are woken),
 *       {@code terminating(workQueue)}. On the call site rather than in {@code terminated()},
 *       which subclasses override.</li>
 * </ul>
 * In {@code ForkJoinPool}, every constructor calls {@code forkJoinPoolCreated(this)} before it
 * returns.
 *
 * <p>Whatever this cannot place (a JDK whose methods differ) it leaves out; the caller checks
 * the JDK's shape first ({@link Instrumenter#unsupportedReason()}).
 */
final class AdviceWriter {

    static final String TPE = "java/util/concurrent/ThreadPoolExecutor";
    static final String FJP = "java/util/concurrent/ForkJoinPool";
    static final String WORKER = TPE + "$Worker";
    static final String CONSTRUCTOR_7 = "(IIJLjava/util/concurrent/TimeUnit;Ljava/util/concurrent/BlockingQueue;"
            + "Ljava/util/concurrent/ThreadFactory;Ljava/util/concurrent/RejectedExecutionHandler;)V";
    private static final String QUEUE = "Ljava/util/concurrent/BlockingQueue;";
    private static final String OBJECT_VOID = "(Ljava/lang/Object;)V";

    private AdviceWriter() {
    }

    /** The class file {@code classFile} of {@code internalName} (one of the two), with its hooks. */
    static byte[] advise(String internalName, byte[] classFile) {
        ClassReader reader = new ClassReader(classFile);
        ClassWriter writer = new ClassWriter(reader, 0); // frames and maxima are set by hand below
        reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                                             String[] exceptions) {
                MethodVisitor next = super.visitMethod(access, name, descriptor, signature, exceptions);
                if (!hooked(internalName, access, name, descriptor)) {
                    return next;
                }
                return new MethodNode(Opcodes.ASM9, access, name, descriptor, signature, exceptions) {
                    @Override
                    public void visitEnd() {
                        hook(internalName, this);
                        accept(next);
                    }
                };
            }
        }, ClassReader.EXPAND_FRAMES); // every frame in full, so a frame can be added anywhere
        return writer.toByteArray();
    }

    static boolean hooked(String owner, int access, String name, String descriptor) {
        if (FJP.equals(owner)) {
            return name.equals("<init>");
        }
        if ((access & Opcodes.ACC_STATIC) != 0) {
            return false;
        }
        switch (name) {
            case "<init>":
                return descriptor.equals(CONSTRUCTOR_7);
            case "addWorker":
                return descriptor.equals("(Ljava/lang/Runnable;Z)Z");
            case "processWorkerExit":
                return descriptor.equals("(L" + WORKER + ";Z)V");
            case "reject":
                return descriptor.equals("(Ljava/lang/Runnable;)V");
            case "runWorker":
                return descriptor.equals("(L" + WORKER + ";)V");
            case "shutdown":
                return descriptor.equals("()V");
            case "shutdownNow":
                return descriptor.equals("()Ljava/util/List;");
            case "tryTerminate":
                return descriptor.equals("()V");
            default:
                return false;
        }
    }

    private static void hook(String owner, MethodNode m) {
        InsnList entry = new InsnList();
        InsnList exit = new InsnList();
        if (FJP.equals(owner)) {
            exit.add(new VarInsnNode(Opcodes.ALOAD, 0));
            exit.add(call("forkJoinPoolCreated", OBJECT_VOID));
        } else {
            switch (m.name) {
                case "<init>":
                    Type[] args = Type.getArgumentTypes(m.desc);
                    int slot = 1;
                    int queueSlot = -1;
                    for (int i = 0; i < args.length; i++) {
                        if (i == 4) {
                            queueSlot = slot;
                        }
                        entry.add(new VarInsnNode(args[i].getOpcode(Opcodes.ILOAD), slot));
                        slot += args[i].getSize();
                    }
                    int answerSlot = addLocal(m, "java/lang/Object");
                    entry.add(call("constructing",
                            Type.getMethodDescriptor(Type.getType(Object.class), args))); // the seven, as given
                    entry.add(new VarInsnNode(Opcodes.ASTORE, answerSlot));
                    entry.add(new VarInsnNode(Opcodes.ALOAD, answerSlot));
                    entry.add(new VarInsnNode(Opcodes.ALOAD, queueSlot));
                    entry.add(call("queueFor", "(Ljava/lang/Object;" + QUEUE + ")" + QUEUE));
                    entry.add(new VarInsnNode(Opcodes.ASTORE, queueSlot)); // the parameter, as its type says
                    exit.add(new VarInsnNode(Opcodes.ALOAD, 0));
                    exit.add(new VarInsnNode(Opcodes.ALOAD, answerSlot));
                    exit.add(call("constructed", "(Ljava/lang/Object;Ljava/lang/Object;)V"));
                    break;
                case "addWorker":
                    entry.add(new VarInsnNode(Opcodes.ALOAD, 0));
                    entry.add(workQueue());
                    entry.add(new VarInsnNode(Opcodes.ALOAD, 1));
                    entry.add(new VarInsnNode(Opcodes.ILOAD, 2));
                    entry.add(call("queuesFirstTask", "(Ljava/lang/Object;Ljava/lang/Object;Ljava/lang/Object;Z)Z"));
                    LabelNode go = new LabelNode();
                    entry.add(new JumpInsnNode(Opcodes.IFEQ, go));
                    entry.add(new InsnNode(Opcodes.ICONST_1));
                    entry.add(new InsnNode(Opcodes.IRETURN));
                    entry.add(go);
                    if (!(firstInstruction(m) instanceof FrameNode)) { // else the method's own first frame serves
                        entry.add(new FrameNode(Opcodes.F_NEW, 3, new Object[] {TPE, "java/lang/Runnable", Opcodes.INTEGER},
                                0, new Object[0]));
                    }
                    break;
                case "processWorkerExit":
                    entry.add(workQueue());
                    entry.add(call("workerExit", OBJECT_VOID));
                    break;
                case "reject":
                    entry.add(new VarInsnNode(Opcodes.ALOAD, 0));
                    entry.add(workQueue());
                    entry.add(call("rejecting", "(Ljava/lang/Object;Ljava/lang/Object;)V"));
                    break;
                case "runWorker":
                    if (Instrumenter.workerHasFirstTask()) {
                        // workerStart(workQueue, w.firstTask): Worker is a nestmate of this class,
                        // so its field is read here as runWorker itself reads it.
                        entry.add(workQueue());
                        entry.add(new VarInsnNode(Opcodes.ALOAD, 1));
                        entry.add(new FieldInsnNode(Opcodes.GETFIELD, WORKER, "firstTask", "Ljava/lang/Runnable;"));
                        entry.add(call("workerStart", "(Ljava/lang/Object;Ljava/lang/Object;)V"));
                    }
                    Object[] parameters = {TPE, WORKER};
                    catchAll(m, parameters, handler -> {
                        LabelNode rethrow = new LabelNode();
                        handler.add(new InsnNode(Opcodes.DUP));
                        handler.add(call("swallows", "(Ljava/lang/Throwable;)Z"));
                        handler.add(new JumpInsnNode(Opcodes.IFEQ, rethrow));
                        handler.add(new InsnNode(Opcodes.POP));
                        handler.add(new InsnNode(Opcodes.RETURN));
                        handler.add(rethrow);
                        handler.add(throwableFrame(parameters));
                        handler.add(new InsnNode(Opcodes.ATHROW));
                    });
                    break;
                case "shutdown":
                    exit.add(shutDown());
                    break;
                case "shutdownNow":
                    entry.add(stopping(Opcodes.ICONST_1));
                    exit.add(shutDown());
                    catchAll(m, new Object[] {TPE}, handler -> {
                        handler.add(stopping(Opcodes.ICONST_0));
                        handler.add(new InsnNode(Opcodes.ATHROW));
                    });
                    break;
                case "tryTerminate":
                    for (AbstractInsnNode i : m.instructions) {
                        if (isTerminatedCall(i)) {
                            InsnList before = new InsnList();
                            before.add(workQueue());
                            before.add(call("terminating", OBJECT_VOID));
                            m.instructions.insertBefore(i.getPrevious(), before); // before `this` is loaded
                            break;
                        }
                    }
                    break;
                default:
                    throw new IllegalArgumentException(m.name);
            }
        }
        if (exit.size() > 0) {
            List<AbstractInsnNode> returns = new ArrayList<>();
            for (AbstractInsnNode i : m.instructions) {
                if (i.getOpcode() >= Opcodes.IRETURN && i.getOpcode() <= Opcodes.RETURN) {
                    returns.add(i);
                }
            }
            for (AbstractInsnNode r : returns) {
                m.instructions.insertBefore(r, copy(exit));
            }
        }
        if (entry.size() > 0) {
            m.instructions.insert(entry);
        }
        m.maxStack += 10; // the most a hook pushes (the constructor's seven arguments: eight slots) and some
    }

    /** The method's first node that is not a label or a line number: a frame, or an instruction. */
    private static AbstractInsnNode firstInstruction(MethodNode m) {
        for (AbstractInsnNode i : m.instructions) {
            if (i.getType() != AbstractInsnNode.LABEL && i.getType() != AbstractInsnNode.LINE) {
                return i;
            }
        }
        return null;
    }

    /** {@code this.terminated()}: an {@code invokevirtual} of {@code terminated()V}, right after {@code aload_0}. */
    private static boolean isTerminatedCall(AbstractInsnNode i) {
        if (!(i instanceof MethodInsnNode)) {
            return false;
        }
        MethodInsnNode call = (MethodInsnNode) i;
        AbstractInsnNode receiver = i.getPrevious();
        return call.getOpcode() == Opcodes.INVOKEVIRTUAL && call.owner.equals(TPE) && call.name.equals("terminated")
                && call.desc.equals("()V") && receiver instanceof VarInsnNode
                && receiver.getOpcode() == Opcodes.ALOAD && ((VarInsnNode) receiver).var == 0;
    }

    /**
     * Adds a local variable of {@code type} after the method's own, set by code inserted at the
     * very start and never changed: every frame of the method (all of them after that code)
     * then holds it, padded with {@code TOP} over slots the frame leaves out. Returns its slot.
     */
    private static int addLocal(MethodNode m, String type) {
        int slot = m.maxLocals;
        m.maxLocals += 1;
        for (AbstractInsnNode i : m.instructions) {
            if (i instanceof FrameNode) {
                FrameNode f = (FrameNode) i;
                List<Object> locals = f.local == null ? new ArrayList<>() : new ArrayList<>(f.local);
                int used = 0;
                for (Object l : locals) {
                    used += Opcodes.LONG.equals(l) || Opcodes.DOUBLE.equals(l) ? 2 : 1;
                }
                for (; used < slot; used++) {
                    locals.add(Opcodes.TOP);
                }
                locals.add(type);
                f.local = locals;
            }
        }
        return slot;
    }

    /**
     * Covers the method's code, as it was, with a handler for any throwable, listed after the
     * method's own handlers (so theirs still come first). At the handler the stack holds the
     * throwable and the locals are the parameters, which these methods never reassign.
     */
    private static void catchAll(MethodNode m, Object[] parameters, java.util.function.Consumer<InsnList> body) {
        LabelNode start = new LabelNode();
        LabelNode end = new LabelNode();
        LabelNode handler = new LabelNode();
        m.instructions.insert(start);
        m.instructions.add(end);
        InsnList code = new InsnList();
        code.add(handler);
        code.add(throwableFrame(parameters));
        body.accept(code);
        m.instructions.add(code);
        m.tryCatchBlocks.add(new TryCatchBlockNode(start, end, handler, null));
    }

    /** The frame where only the parameters are set and a throwable is on the stack. */
    private static FrameNode throwableFrame(Object[] parameters) {
        return new FrameNode(Opcodes.F_NEW, parameters.length, parameters, 1, new Object[] {"java/lang/Throwable"});
    }

    /** {@code shutDown(workQueue)}. */
    private static InsnList shutDown() {
        InsnList l = workQueue();
        l.add(call("shutDown", OBJECT_VOID));
        return l;
    }

    /** {@code stopping(workQueue, flag)}, {@code flag} an {@code ICONST_1} or {@code ICONST_0}. */
    private static InsnList stopping(int flag) {
        InsnList l = workQueue();
        l.add(new InsnNode(flag));
        l.add(call("stopping", "(Ljava/lang/Object;Z)V"));
        return l;
    }

    private static InsnList workQueue() {
        InsnList l = new InsnList();
        l.add(new VarInsnNode(Opcodes.ALOAD, 0));
        l.add(new FieldInsnNode(Opcodes.GETFIELD, TPE, "workQueue", QUEUE));
        return l;
    }

    private static MethodInsnNode call(String name, String descriptor) {
        return new MethodInsnNode(Opcodes.INVOKESTATIC, BootClasses.BRIDGE_INTERNAL, name, descriptor, false);
    }

    private static InsnList copy(InsnList list) {
        InsnList c = new InsnList();
        for (AbstractInsnNode i : list) {
            c.add(i.clone(java.util.Map.of()));
        }
        return c;
    }
}
