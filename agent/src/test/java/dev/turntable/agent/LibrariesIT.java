package dev.turntable.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Runs {@code LibrariesApp}, whose pools HikariCP 4.0.3 (on an in-memory H2 database) and Spring's
 * {@code ThreadPoolTaskExecutor} build, without and with the agent. With it, every check passes
 * as without it, and the agent judges the libraries' own code as it should: HikariCP's
 * add-connection executor, whose queue {@code HikariPool} also keeps a read-only view of (to
 * count pending adds), is left alone and the Pools table says why; its other executors and
 * Spring's are taken over.
 */
class LibrariesIT {

    static final String APP = "com.example.apps.LibrariesApp";

    /** The libraries' jars from this build's test class path: the application's class path. */
    static String libraries() {
        String jars = ForkedJvm.testClassPathJars(name -> Stream.of("HikariCP", "h2-", "spring-", "micrometer-", "slf4j-api")
                .anyMatch(name::startsWith));
        assertTrue(jars.contains("HikariCP"), "HikariCP on the test class path: " + jars);
        return jars;
    }

    static List<String> command(ForkedJvm jvm, List<String> options) {
        List<String> cmd = new ArrayList<>();
        cmd.add(jvm.java().toString());
        cmd.addAll(options);
        cmd.add("-cp");
        cmd.add(ForkedJvm.TEST_CLASSES + File.pathSeparator + libraries());
        cmd.add(APP);
        return cmd;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(ForkedJvm.JDKS)
    void librariesPoolsWorkAndTheOneWhoseQueueHikariWatchesIsLeftAlone(ForkedJvm jvm) throws Exception {
        jvm.assumeInstalled();
        ForkedJvm.Result plain = jvm.run(command(jvm, List.of()), 90);
        assertEquals(0, plain.exitCode, plain::toString);
        assertEquals(List.of(), plain.lines("FAIL "), plain::toString);
        assertEquals(3, plain.lines("OK ").size(), plain::toString);

        ForkedJvm.Result agent = jvm.run(command(jvm, List.of(ForkedJvm.agent(null), "-Dapps.dumpAgent=true")), 90);
        assertEquals(0, agent.exitCode, agent::toString);
        assertTrue(agent.out().contains("END"), agent::toString);
        assertEquals(List.of(), agent.lines("FAIL "), "a check that passes without the agent fails with it\n" + agent);
        assertEquals(3, agent.lines("OK ").size(), agent::toString);

        List<String[]> hikari = agent.lines("POOL ").stream().map(l -> l.split("\\|"))
                .filter(p -> p[1].startsWith("com.zaxxer.hikari.util.UtilityElf.createThreadPoolExecutor"))
                .collect(Collectors.toList());
        // HikariPool's two, listed while the data source is open (its close() builds a third, short-lived)
        assertEquals(2, hikari.size(), "HikariCP's add- and close-connection executors\n" + agent);
        List<String[]> left = hikari.stream().filter(p -> p[2].equals("false")).collect(Collectors.toList());
        assertEquals(1, left.size(), "only the add-connection executor is left alone\n" + agent);
        assertEquals("the application keeps its own reference to the work queue (HikariPool.<init> passes it to"
                + " Collections.unmodifiableCollection), which the engine would leave empty", left.get(0)[3]);
        assertTrue(agent.lines("POOL ").stream().anyMatch(l -> l.startsWith("ThreadPoolTaskExecutor.initializeExecutor|")
                && l.split("\\|")[2].equals("true")), "Spring's pool is taken over\n" + agent);
        assertEquals(List.of("spring dev.turntable.pool.TurntableQueue"), agent.lines("QUEUE "), agent::toString);
        assertFalse(agent.stderr.contains("Exception"), agent::toString);
    }
}
