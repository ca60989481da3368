package com.example.agents;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;
import java.util.concurrent.ThreadPoolExecutor;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.FieldInsnNode;
import org.objectweb.asm.tree.InsnList;
import org.objectweb.asm.tree.InsnNode;
import org.objectweb.asm.tree.JumpInsnNode;
import org.objectweb.asm.tree.LabelNode;
import org.objectweb.asm.tree.LdcInsnNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.TypeInsnNode;

/**
 * A test agent standing for another instrumenting agent loaded before Turntable: at the end of
 * {@code ThreadPoolExecutor}'s 7-argument constructor it builds, once, a pool of its own (when
 * the system property {@code build.nested} is set; the constructor clears it, and leaves the
 * pool under the key {@code nested.pool} of the system properties), so one pool's construction
 * runs inside another's. Its jar is made by {@code CoexistingAgentIT}. Runs on the
 * JVM's agent thread and on retransforming threads.
 */
public final class PoolInConstructorAgent {

    static final String CONSTRUCTOR = "(IIJLjava/util/concurrent/TimeUnit;Ljava/util/concurrent/BlockingQueue;"
            + "Ljava/util/concurrent/ThreadFactory;Ljava/util/concurrent/RejectedExecutionHandler;)V";

    private PoolInConstructorAgent() {
    }

    public static void premain(String args, Instrumentation inst) throws Exception {
        inst.addTransformer(new ClassFileTransformer() {
            @Override
            public byte[] transform(Module module, ClassLoader loader, String name, Class<?> redefined,
                                    ProtectionDomain domain, byte[] classFile) {
                if (loader != null || !"java/util/concurrent/ThreadPoolExecutor".equals(name)) {
                    return null;
                }
                try {
                    return withNestedPool(classFile);
                } catch (RuntimeException e) {
                    e.printStackTrace();
                    return null;
                }
            }
        }, true);
        inst.retransformClasses(ThreadPoolExecutor.class);
    }

    static byte[] withNestedPool(byte[] classFile) {
        ClassNode c = new ClassNode();
        new ClassReader(classFile).accept(c, 0);
        for (MethodNode m : c.methods) {
            if (!m.name.equals("<init>") || !m.desc.equals(CONSTRUCTOR)) {
                continue;
            }
            for (AbstractInsnNode i : m.instructions.toArray()) {
                if (i.getOpcode() == Opcodes.RETURN) {
                    m.instructions.insertBefore(i, buildOnce());
                }
            }
        }
        ClassWriter w = new ClassWriter(ClassWriter.COMPUTE_FRAMES | ClassWriter.COMPUTE_MAXS) {
            @Override
            protected String getCommonSuperClass(String a, String b) {
                return "java/lang/Object"; // loads nothing while the JDK class is retransformed
            }
        };
        c.accept(w);
        return w.toByteArray();
    }

    /**
     * {@code if (System.clearProperty("build.nested") != null) System.getProperties().put("nested.pool",
     * new ThreadPoolExecutor(1, 1, 0, SECONDS, new LinkedBlockingQueue()));}: the application
     * takes the pool from there, so it stays reachable.
     */
    private static InsnList buildOnce() {
        InsnList l = new InsnList();
        LabelNode skip = new LabelNode();
        l.add(new LdcInsnNode("build.nested"));
        l.add(new MethodInsnNode(Opcodes.INVOKESTATIC, "java/lang/System", "clearProperty",
                "(Ljava/lang/String;)Ljava/lang/String;", false));
        l.add(new JumpInsnNode(Opcodes.IFNULL, skip));
        l.add(new MethodInsnNode(Opcodes.INVOKESTATIC, "java/lang/System", "getProperties",
                "()Ljava/util/Properties;", false));
        l.add(new LdcInsnNode("nested.pool"));
        l.add(new TypeInsnNode(Opcodes.NEW, "java/util/concurrent/ThreadPoolExecutor"));
        l.add(new InsnNode(Opcodes.DUP));
        l.add(new InsnNode(Opcodes.ICONST_1));
        l.add(new InsnNode(Opcodes.ICONST_1));
        l.add(new InsnNode(Opcodes.LCONST_0));
        l.add(new FieldInsnNode(Opcodes.GETSTATIC, "java/util/concurrent/TimeUnit", "SECONDS",
                "Ljava/util/concurrent/TimeUnit;"));
        l.add(new TypeInsnNode(Opcodes.NEW, "java/util/concurrent/LinkedBlockingQueue"));
        l.add(new InsnNode(Opcodes.DUP));
        l.add(new MethodInsnNode(Opcodes.INVOKESPECIAL, "java/util/concurrent/LinkedBlockingQueue", "<init>", "()V", false));
        l.add(new MethodInsnNode(Opcodes.INVOKESPECIAL, "java/util/concurrent/ThreadPoolExecutor", "<init>",
                "(IIJLjava/util/concurrent/TimeUnit;Ljava/util/concurrent/BlockingQueue;)V", false));
        l.add(new MethodInsnNode(Opcodes.INVOKEVIRTUAL, "java/util/Properties", "put",
                "(Ljava/lang/Object;Ljava/lang/Object;)Ljava/lang/Object;", false));
        l.add(new InsnNode(Opcodes.POP));
        l.add(skip);
        return l;
    }
}
