package dev.turntable.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.ClassReader;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.analysis.Analyzer;
import org.objectweb.asm.tree.analysis.BasicVerifier;

class InstrumenterTest {

    @Test
    void thisJdkHasWhatTheAdviceNeeds() {
        assertNull(Instrumenter.unsupportedReason());
    }

    @Test
    void thisJdkHasTheRunWorkerMethodThatRetirementIsCaughtIn() {
        assertNull(Instrumenter.retirementUnsupportedReason());
    }

    @Test
    void thisJdkHasTheRejectMethodThatRejectionsAreCountedAt() {
        assertTrue(Instrumenter.countsRejections());
    }

    @Test
    void onlyTheTwoAdvisedClassesReachByteBuddy() {
        Instrumenter.AdviceTransformer t = new Instrumenter.AdviceTransformer(new Retirement(null));
        assertNull(t.transform(null, null, "com/acme/Service", null, null, new byte[] {1, 2, 3}));
        assertNull(t.transform(null, getClass().getClassLoader(), "java/util/concurrent/ThreadPoolExecutor", null, null,
                new byte[] {1, 2, 3}), "only the JDK's own, from the bootstrap loader");
        assertTrue(Instrumenter.AdviceTransformer.isAdvised("java/util/concurrent/ThreadPoolExecutor"));
        assertTrue(Instrumenter.AdviceTransformer.isAdvised("java/util/concurrent/ForkJoinPool"));
        assertFalse(Instrumenter.AdviceTransformer.isAdvised("java/util/concurrent/ScheduledThreadPoolExecutor"));
        assertFalse(Instrumenter.AdviceTransformer.isAdvised("com/acme/ThreadPoolExecutor"));
        assertFalse(Instrumenter.AdviceTransformer.isAdvised(null));
    }

    @Test
    void theAdvisedJdkClassesKeepTheirMembersAndCallTheBridgeInJavaBase() throws Exception {
        for (String jdkClass : List.of("java/util/concurrent/ThreadPoolExecutor", "java/util/concurrent/ForkJoinPool")) {
            byte[] original = jdkClassFile(jdkClass);
            byte[] advised = AdviceWriter.advise(jdkClass, original);
            ClassNode before = node(original);
            ClassNode after = node(advised);
            // another agent may retransform these classes later: that needs the same members
            assertEquals(members(before), members(after), jdkClass);
            String text = new String(advised, StandardCharsets.ISO_8859_1);
            assertTrue(text.contains(BootClasses.BRIDGE_INTERNAL), jdkClass + " calls the bridge");
            assertFalse(text.contains("dev/turntable/"), jdkClass + " names nothing of the agent's own");
        }
    }

    /**
     * Every call the hooks make into the bridge names a static method the renamed bridge has,
     * which the JDK class, in the same package, may call: a mismatch would throw
     * NoSuchMethodError or IllegalAccessError out of the application's own pool code.
     * Each hooked method calls it; the rest of the class is as the JDK wrote it.
     */
    @Test
    void everyHookCallsAMethodTheBridgeHas() throws Exception {
        ClassNode bridge = new ClassNode();
        new ClassReader(BootClasses.renamed("dev/turntable/agent/bootstrap/TurntableBridge")).accept(bridge, 0);
        Set<String> offered = bridge.methods.stream()
                .filter(m -> (m.access & Opcodes.ACC_STATIC) != 0 && (m.access & Opcodes.ACC_PRIVATE) == 0)
                .map(m -> m.name + m.desc).collect(Collectors.toSet());
        Map<String, Integer> hooked = new TreeMap<>();
        for (String jdkClass : List.of("java/util/concurrent/ThreadPoolExecutor", "java/util/concurrent/ForkJoinPool")) {
            ClassNode advised = new ClassNode();
            new ClassReader(AdviceWriter.advise(jdkClass, jdkClassFile(jdkClass))).accept(advised, 0);
            for (MethodNode m : advised.methods) {
                for (AbstractInsnNode i : m.instructions) {
                    if (i instanceof MethodInsnNode && ((MethodInsnNode) i).owner.equals(bridge.name)) {
                        MethodInsnNode call = (MethodInsnNode) i;
                        assertEquals(Opcodes.INVOKESTATIC, call.getOpcode());
                        assertTrue(offered.contains(call.name + call.desc), m.name + " calls " + call.name + call.desc
                                + ", which the bridge does not have: " + offered);
                        hooked.merge(jdkClass.substring(jdkClass.lastIndexOf('/') + 1) + "." + m.name, 1, Integer::sum);
                    }
                }
            }
        }
        assertEquals(Set.of("ThreadPoolExecutor.<init>", "ThreadPoolExecutor.addWorker", "ThreadPoolExecutor.processWorkerExit",
                "ThreadPoolExecutor.reject", "ThreadPoolExecutor.runWorker", "ThreadPoolExecutor.shutdown",
                "ThreadPoolExecutor.shutdownNow", "ThreadPoolExecutor.tryTerminate", "ForkJoinPool.<init>"),
                hooked.keySet());
    }

    /**
     * The termination hook comes just before {@code tryTerminate} calls {@code terminated()}, and
     * once: the engine ends what it still counts before the pool is marked terminated and its
     * {@code awaitTermination} callers wake, whatever a subclass's {@code terminated()} does.
     */
    @Test
    void theTerminationHookRunsJustBeforeTerminated() throws Exception {
        String tpe = "java/util/concurrent/ThreadPoolExecutor";
        ClassNode advised = new ClassNode();
        new ClassReader(AdviceWriter.advise(tpe, jdkClassFile(tpe))).accept(advised, 0);
        MethodNode tryTerminate = advised.methods.stream()
                .filter(m -> m.name.equals("tryTerminate") && m.desc.equals("()V")).findFirst().orElseThrow();
        List<String> calls = new ArrayList<>();
        for (AbstractInsnNode i : tryTerminate.instructions) {
            if (i instanceof MethodInsnNode) {
                MethodInsnNode call = (MethodInsnNode) i;
                if (call.name.equals("terminating") || call.name.equals("terminated")) {
                    calls.add(call.name);
                }
            }
        }
        assertEquals(List.of("terminating", "terminated"), calls);
    }

    /**
     * The hooked methods pass ASM's verifier (types of locals and stack at every instruction,
     * the handlers' frames included), as the JVM's would: a class the JVM refused would leave
     * every pool untouched.
     */
    @Test
    void theHookedMethodsVerify() throws Exception {
        for (String jdkClass : List.of("java/util/concurrent/ThreadPoolExecutor", "java/util/concurrent/ForkJoinPool")) {
            ClassNode advised = new ClassNode();
            new ClassReader(AdviceWriter.advise(jdkClass, jdkClassFile(jdkClass))).accept(advised, 0);
            for (MethodNode m : advised.methods) {
                if (AdviceWriter.hooked(jdkClass, m.access, m.name, m.desc)) {
                    new Analyzer<>(new BasicVerifier()).analyze(advised.name, m); // throws AnalyzerException
                }
            }
        }
    }

    private static byte[] jdkClassFile(String jdkClass) throws Exception {
        try (InputStream in = ClassLoader.getSystemResourceAsStream(jdkClass + ".class")) {
            return in.readAllBytes();
        }
    }

    private static ClassNode node(byte[] bytes) {
        ClassNode node = new ClassNode();
        new ClassReader(bytes).accept(node, ClassReader.SKIP_CODE);
        return node;
    }

    private static List<String> members(ClassNode c) {
        List<String> m = new ArrayList<>();
        c.fields.forEach(f -> m.add(f.name + f.desc));
        c.methods.forEach(x -> m.add(x.name + x.desc));
        return m;
    }
}
