package dev.turntable.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
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
 * engine and the Pool MXBean under their own names, without turntablectl; Byte Buddy's Nexus property
 * renamed consistently in the agent's code and in Byte Buddy's.
 */
class ShadedJarIT {

    private static final Pattern UNRELOCATED = Pattern.compile(
            "^(META-INF/versions/\\d+/)?(net/bytebuddy|org/jctools|org/HdrHistogram|org/objectweb/asm)(/.*)?$");

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
                    "dev/turntable/shaded/net/bytebuddy/ByteBuddy.class",
                    "dev/turntable/shaded/org/jctools/queues/MpmcArrayQueue.class",
                    "dev/turntable/shaded/org/HdrHistogram/Histogram.class",
                    "dev/turntable/shaded/org/objectweb/asm/tree/analysis/Analyzer.class")) {
                assertNotNull(jar.getEntry(present), present);
            }
            assertEquals(List.of(), Collections.list(jar.entries()).stream().map(e -> e.getName())
                    .filter(n -> n.startsWith("dev/turntable/jmx/cli/")).collect(Collectors.toList()),
                    "turntablectl is its own jar, not part of the agent's");
            String agent = classText(jar, "dev/turntable/agent/TurntableAgent.class");
            String nexus = classText(jar, "dev/turntable/shaded/net/bytebuddy/dynamic/Nexus.class");
            String shadedProperty = "dev.turntable.shaded.net.bytebuddy.nexus.disabled";
            assertTrue(agent.contains(shadedProperty), "the agent sets the relocated property name");
            assertTrue(nexus.contains(shadedProperty), "Byte Buddy reads the relocated property name");
            assertEquals(count(agent, "net.bytebuddy.nexus.disabled"), count(agent, shadedProperty),
                    "no unrelocated property name left in the agent");
        }
    }

    private static String classText(JarFile jar, String entry) throws Exception {
        try (InputStream in = jar.getInputStream(jar.getEntry(entry))) {
            return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }

    private static int count(String s, String part) {
        int n = 0;
        for (int i = s.indexOf(part); i >= 0; i = s.indexOf(part, i + 1)) {
            n++;
        }
        return n;
    }
}
