package dev.turntable.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.jar.Attributes;
import java.util.jar.Manifest;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Turntable beside another agent that instruments {@code ThreadPoolExecutor} too, loaded before
 * it, whose code in the constructor builds a pool while the application's pool is being built:
 * both pools are taken over and listed, each with its own record. (When the constructor's
 * token was kept per thread, the nested pool took the outer one's place: the outer pool ran on
 * the engine with no record, no MBean and no row in the table.)
 */
class CoexistingAgentIT {

    static final String AGENT = "com.example.agents.PoolInConstructorAgent";

    @ParameterizedTest(name = "{0}")
    @MethodSource(ForkedJvm.JDKS)
    void aPoolBuiltInsideAnotherPoolsConstructorTakesNothingFromIt(ForkedJvm jvm, @TempDir Path dir) throws Exception {
        jvm.assumeInstalled();
        Path other = otherAgentJar(dir.resolve("other-agent.jar"));
        List<String> cmd = new ArrayList<>(List.of(jvm.java().toString()));
        cmd.addAll(ForkedJvm.VERIFY_JDK_CLASSES);
        cmd.addAll(List.of("-javaagent:" + other, ForkedJvm.agent(null),
                "-cp", ForkedJvm.TEST_CLASSES + File.pathSeparator + asmJars(), "com.example.apps.NestedPoolApp"));
        ForkedJvm.Result r = jvm.run(cmd, 60);
        assertEquals(0, r.exitCode, r::toString);
        assertEquals(List.of("true"), r.lines("NESTED "), "the other agent built its pool\n" + r);
        assertEquals(List.of("first dev.turntable.pool.TurntableQueue", "outer dev.turntable.pool.TurntableQueue",
                "nested dev.turntable.pool.TurntableQueue"), r.lines("QUEUE "), r::toString);
        List<String> rows = r.lines("POOL ").stream().filter(l -> l.startsWith("NestedPoolApp.main"))
                .collect(Collectors.toList());
        assertEquals(Set.of("NestedPoolApp.main|com.example.apps.NestedPoolApp.main|true|LinkedBlockingQueue, unbounded",
                "NestedPoolApp.main-2|com.example.apps.NestedPoolApp.main|true|LinkedBlockingQueue, unbounded",
                "NestedPoolApp.main-3|com.example.apps.NestedPoolApp.main|true|LinkedBlockingQueue, unbounded"),
                Set.copyOf(rows), "all three pools have their record\n" + r);
        assertEquals(List.of(), r.agentLines(), r::toString);
    }

    /** The test agent's class, with a manifest naming it, in a jar of its own. */
    private static Path otherAgentJar(Path jar) throws IOException {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().putValue("Premain-Class", AGENT);
        manifest.getMainAttributes().putValue("Can-Retransform-Classes", "true");
        try (Stream<Path> classes = Files.list(ForkedJvm.TEST_CLASSES.resolve("com/example/agents"))) {
            return ForkedJvm.jarOfTestClasses(jar, manifest,
                    classes.map(c -> "com/example/agents/" + c.getFileName()).collect(Collectors.toList()));
        }
    }

    /** ASM's jars from this build's class path: the other agent's own dependency, on the application's class path. */
    private static String asmJars() {
        return ForkedJvm.testClassPathJars(name -> name.matches("asm(-tree)?-[0-9.]+\\.jar"));
    }
}
