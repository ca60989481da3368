package dev.turntable.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.ClassNode;

/**
 * The renaming that puts the bridge into {@code java.base}: a template left out of it could not
 * be reached from {@code ThreadPoolExecutor}, whose hooks call it by its {@code java.base} name.
 */
class BootClassesTest {

    static final Path CLASSES = Path.of("target/classes");

    static List<String> classesIn(String packageDir) throws IOException {
        try (Stream<Path> files = Files.list(CLASSES.resolve(packageDir))) {
            return files.map(p -> packageDir + "/" + p.getFileName().toString().replace(".class", ""))
                    .sorted().collect(Collectors.toList());
        }
    }

    @Test
    void everyTemplateIsRenamedIntoJavaUtilConcurrent() throws IOException {
        assertEquals(Set.copyOf(classesIn("dev/turntable/agent/bootstrap")), BootClasses.RENAMES.keySet());
        for (String template : BootClasses.RENAMES.keySet()) {
            ClassNode renamed = node(BootClasses.renamed(template));
            assertEquals(BootClasses.RENAMES.get(template), renamed.name);
            assertTrue(renamed.name.startsWith("java/util/concurrent/"), renamed.name);
            ClassNode original = node(Files.readAllBytes(CLASSES.resolve(template + ".class")));
            assertEquals(original.fields.stream().map(f -> f.name + f.desc).collect(Collectors.toList()),
                    renamed.fields.stream().map(f -> f.name + f.desc).collect(Collectors.toList()));
        }
    }

    /**
     * Nothing the agent adds to {@code java.base} is public: the application cannot call the
     * bridge, set its hooks or read threads' private fields through it; only
     * {@code ThreadPoolExecutor} and {@code ForkJoinPool}, in the same package, and the agent,
     * through handles its definer module makes, can.
     */
    @Test
    void nothingAddedToJavaBaseIsPublic() throws IOException {
        for (String template : BootClasses.RENAMES.keySet()) {
            ClassNode renamed = node(BootClasses.renamed(template));
            assertEquals(0, renamed.access & Opcodes.ACC_PUBLIC, renamed.name);
            renamed.fields.forEach(f -> assertEquals(0, f.access & Opcodes.ACC_PUBLIC, renamed.name + "." + f.name));
            renamed.methods.forEach(m -> assertEquals(0, m.access & Opcodes.ACC_PUBLIC, renamed.name + "." + m.name));
        }
    }

    private static ClassNode node(byte[] bytes) {
        ClassNode node = new ClassNode();
        new ClassReader(bytes).accept(node, 0);
        return node;
    }
}
