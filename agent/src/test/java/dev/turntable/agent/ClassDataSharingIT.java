package dev.turntable.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An application started with a class-data-sharing archive of its own classes (AppCDS, made
 * without the agent, as a build would) keeps loading them from it under the agent, and the JVM
 * prints no warning. An agent that appends a jar to the bootstrap class path, as Turntable did,
 * makes HotSpot print "Sharing is only supported for boot loader classes because bootstrap
 * classpath has been appended" and load every application class from its jar again.
 */
class ClassDataSharingIT {

    static final String APP = "com.example.apps.SharedArchiveApp";
    static final String SHARING_WARNING = "Sharing is only supported for boot loader classes";

    @ParameterizedTest(name = "{0}")
    @MethodSource(ForkedJvm.JDKS)
    void applicationClassesStillComeFromTheArchiveAndTheJvmPrintsNoWarning(ForkedJvm jvm, @TempDir Path dir)
            throws Exception {
        jvm.assumeInstalled();
        Path jar = appJar(dir.resolve("app.jar"));
        Path classList = dir.resolve("app.classlist");
        Path archive = dir.resolve("app.jsa");
        ForkedJvm.Result listed = jvm.run(List.of(jvm.java().toString(), "-XX:DumpLoadedClassList=" + classList,
                "-cp", jar.toString(), APP), 60);
        assertEquals(List.of("42"), listed.lines("RESULT "), listed::toString);
        ForkedJvm.Result dumped = jvm.run(List.of(jvm.java().toString(), "-Xshare:dump",
                "-XX:SharedClassListFile=" + classList, "-XX:SharedArchiveFile=" + archive, "-cp", jar.toString()), 120);
        assertEquals(0, dumped.exitCode, dumped::toString);

        ForkedJvm.Result plain = runWithArchive(jvm, archive, jar, List.of());
        assertEquals(List.of("shared objects file"), sourceOfLater(plain), "the archive works without the agent\n" + plain);

        ForkedJvm.Result agent = runWithArchive(jvm, archive, jar, List.of(ForkedJvm.agent("jmx=false")));
        assertEquals(0, agent.exitCode, agent::toString);
        assertEquals(List.of("42"), agent.lines("RESULT "), agent::toString);
        assertEquals(List.of("dev.turntable.pool.TurntableQueue"), agent.lines("QUEUE "), "the pool is taken over\n" + agent);
        assertFalse(agent.stderr.contains(SHARING_WARNING) || agent.stdout.contains(SHARING_WARNING), agent::toString);
        assertEquals(List.of("shared objects file"), sourceOfLater(agent),
                "an application class loaded after the agent started still comes from the archive\n" + agent);
        assertEquals(List.of(), agent.agentLines(), agent::toString);
    }

    private static ForkedJvm.Result runWithArchive(ForkedJvm jvm, Path archive, Path jar, List<String> options)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(jvm.java().toString(), "-XX:SharedArchiveFile=" + archive,
                "-Xlog:class+load=info"));
        cmd.addAll(options);
        cmd.addAll(List.of("-cp", jar.toString(), APP));
        return jvm.run(cmd, 60);
    }

    /** Where {@code SharedArchiveApp$Later} was loaded from, as {@code -Xlog:class+load} says. */
    private static List<String> sourceOfLater(ForkedJvm.Result r) {
        String marker = " " + APP + "$Later source: ";
        return r.out().stream().filter(l -> l.contains(marker))
                .map(l -> l.substring(l.indexOf(marker) + marker.length()).trim())
                .map(s -> s.startsWith("shared objects file") ? "shared objects file" : s)
                .collect(Collectors.toList());
    }

    /** The application's two classes, from the test classes, in a jar of their own. */
    private static Path appJar(Path jar) throws IOException {
        return ForkedJvm.jarOfTestClasses(jar, null, Stream.of(APP, APP + "$Later")
                .map(name -> name.replace('.', '/') + ".class").collect(Collectors.toList()));
    }
}
