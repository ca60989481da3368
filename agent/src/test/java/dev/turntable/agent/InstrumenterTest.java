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
import org.objectweb.asm.tree.ClassNode;

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
            byte[] original;
            try (InputStream in = ClassLoader.getSystemResourceAsStream(jdkClass + ".class")) {
                original = in.readAllBytes();
            }
            byte[] advised = Instrumenter.advise(jdkClass, original);
            ClassNode before = node(original);
            ClassNode after = node(advised);
            // another agent may retransform these classes later: that needs the same members
            assertEquals(members(before), members(after), jdkClass);
            String text = new String(advised, StandardCharsets.ISO_8859_1);
            assertTrue(text.contains(BootClasses.BRIDGE.replace('.', '/')), jdkClass + " calls the bridge");
            assertFalse(text.contains("dev/turntable/"), jdkClass + " names nothing of the agent's own");
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
