package dev.turntable.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The shaded agent jar as the contract describes it: manifest entries; every third-party
 * dependency relocated under {@code dev.turntable.shaded}, multi-release copies included; the
 * engine and the Pool MXBean under their own names, without turntablectl; no Byte Buddy.
 */
class ShadedJarIT {

    private static final Pattern UNRELOCATED = Pattern.compile(
            "^(META-INF/versions/\\d+/)?(org/jctools|org/HdrHistogram|org/objectweb/asm)(/.*)?$");

    @Test
    void manifestAndRelocation() throws Exception {
        try (JarFile jar = new JarFile(ForkedJvm.AGENT_JAR.toFile())) {
            Attributes a = jar.getManifest().getMainAttributes();
            assertEquals("dev.turntable.agent.TurntableAgent", a.getValue("Premain-Class"));
            assertEquals("dev.turntable.agent.TurntableAgent", a.getValue("Agent-Class"));
            assertEquals("true", a.getValue("Can-Retransform-Classes"));
            assertEquals("true", a.getValue("Can-Redefine-Classes"));

            List<String> left = new ArrayList<>();
            for (String name : Collections.list(jar.entries()).stream().map(e -> e.getName()).toArray(String[]::new)) {
                if (UNRELOCATED.matcher(name).matches() || name.endsWith("module-info.class")) {
                    left.add(name);
                }
            }
            assertEquals(List.of(), left, "entries not relocated under dev/turntable/shaded");
            for (String present : List.of("dev/turntable/pool/TurntableQueue.class",
                    "dev/turntable/agent/bootstrap/TurntableBridge.class",
                    "dev/turntable/agent/definer/JavaBaseDefiner.class",
                    "dev/turntable/shaded/org/objectweb/asm/commons/ClassRemapper.class",
                    "dev/turntable/jmx/PoolAdapter.class",
                    "dev/turntable/jmx/TurntableJmx.class",
                    "dev/turntable/shaded/org/jctools/queues/MpmcArrayQueue.class",
                    "dev/turntable/shaded/org/HdrHistogram/Histogram.class",
                    "dev/turntable/shaded/org/objectweb/asm/tree/analysis/Analyzer.class")) {
                assertNotNull(jar.getEntry(present), present);
            }
            assertEquals(List.of(), Collections.list(jar.entries()).stream().map(e -> e.getName())
                    .filter(n -> n.startsWith("dev/turntable/jmx/cli/")).collect(Collectors.toList()),
                    "turntablectl is its own jar, not part of the agent's");
            assertEquals(List.of(), Collections.list(jar.entries()).stream().map(e -> e.getName())
                    .filter(n -> n.contains("bytebuddy") || n.startsWith("dev/turntable/agent/advice/"))
                    .collect(Collectors.toList()), "the hooks are written with ASM: no Byte Buddy, no advice classes");
        }
    }
}
