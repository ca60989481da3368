package dev.turntable.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.Test;

/**
 * An application run under a security manager whose policy grants the agent jar (and the
 * application) all permissions, as such policies grant by code base: the agent starts and takes
 * the pool over. (The module the agent defines its bridge from had no code source, so no grant
 * reached it and the agent could not start.) Run on the JDK that runs the build; JDK 24 and
 * later have no security manager.
 */
class SecurityManagerIT {

    @Test
    void theAgentStartsUnderAPolicyThatGrantsItsJar(@TempDir Path dir) throws Exception {
        assumeTrue(Runtime.version().feature() < 24, "JDK 24 and later have no security manager");
        ForkedJvm jvm = ForkedJvm.jdks().findFirst().orElseThrow(); // the JDK running the build
        Path policy = dir.resolve("all.policy");
        Files.writeString(policy, grant(ForkedJvm.AGENT_JAR.toAbsolutePath().toUri().toString())
                + grant(ForkedJvm.TEST_CLASSES.toAbsolutePath().toUri().toString() + "-"));
        ForkedJvm.Result r = jvm.run(jvm.command(List.of("-Djava.security.manager", "-Djava.security.policy==" + policy,
                ForkedJvm.agent("jmx=false")), "com.example.apps.QuickApp"), 60);
        assertEquals(0, r.exitCode, r::toString);
        assertEquals(List.of(), r.agentLines(), r::toString);
        assertEquals(List.of("quick dev.turntable.pool.TurntableQueue"), r.lines("QUEUE "), r::toString);
        assertEquals(List.of("5050"), r.lines("SUM "), r::toString);
    }

    private static String grant(String codeBase) {
        return "grant codeBase \"" + codeBase + "\" { permission java.security.AllPermission; };\n";
    }
}
