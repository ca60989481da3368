package dev.turntable.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The agent's JMX registration thread keeps no class loader of the application that started it,
 * yet may be the first in the JVM to ask for the platform MBean server, whose creation loads the
 * {@code MBeanServerBuilder} named by {@code javax.management.builder.initial} through the
 * context class loader alone (as application servers name theirs): it must do so with the
 * context class loader of the thread that built the pool. Here the builder is in a jar only that
 * loader reads.
 */
class MBeanServerBuilderIT {

    static final String APP = "com.example.apps.MBeanServerBuilderApp";
    static final String BUILDER = "com.example.webapp.WebAppMBeanServerBuilder";

    @ParameterizedTest(name = "{0}")
    @MethodSource(ForkedJvm.JDKS)
    void thePlatformMBeanServerIsMadeByTheBuilderThePoolBuildersContextLoaderSees(ForkedJvm jvm, @TempDir Path dir)
            throws Exception {
        jvm.assumeInstalled();
        Path webAppJar = ForkedJvm.jarOfTestClasses(dir.resolve("web-app.jar"), null,
                List.of(BUILDER.replace('.', '/') + ".class"));
        ForkedJvm.Result r = jvm.run(jvm.command(List.of(ForkedJvm.agent(null),
                "-Djavax.management.builder.initial=" + BUILDER), APP, webAppJar.toString()), 60);
        assertEquals(0, r.exitCode, r::toString);
        assertEquals(List.of("thread=" + AgentJmx.THREAD_NAME + " loader=web-app"), r.lines("BUILDER "), r::toString);
        assertEquals(List.of("true"), r.lines("AGENT_MBEAN "), r::toString);
        assertEquals(List.of(), r.agentLines(), r::toString);
    }
}
