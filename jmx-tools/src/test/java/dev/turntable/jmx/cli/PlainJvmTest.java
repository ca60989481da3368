package dev.turntable.jmx.cli;

import static dev.turntable.jmx.cli.JmxFixture.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.tools.attach.VirtualMachine;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A JVM of the user that runs no Turntable ({@link PlainMain}): {@code jvms} and {@code pools}
 * without a target look at it through the Attach API, but must not start its JMX management
 * agent (a local connector and RMI threads it never asked for) just to find nothing there.
 */
class PlainJvmTest {

    private static final String LOCAL_CONNECTOR = "com.sun.management.jmxremote.localConnectorAddress";

    private static Process child;
    private static String pid;
    /** The real Attach API, narrowed to the child so the test never touches other JVMs on the machine. */
    private static LocalJvms jvms;

    @BeforeAll
    static void startChild() throws Exception {
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), "-Xmx32m",
                PlainMain.class.getName()).redirectErrorStream(true).start();
        pid = Long.toString(child.pid());
        jvms = LocalJvms.attachApi().only(pid::equals);
        BufferedReader r = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        String line = r.readLine(); // blocks until the child is up (or gone: null)
        assertEquals("READY", line, "the plain child JVM did not start");
        assertNull(managementAgentAddress(), "the child starts without a management agent");
    }

    @AfterAll
    static void stopChild() throws Exception {
        ForkedJvmTest.stop(child);
    }

    /** The child's local JMX connector address: set once its management agent has been started. */
    private static String managementAgentAddress() throws Exception {
        VirtualMachine vm = VirtualMachine.attach(pid);
        try {
            return vm.getAgentProperties().getProperty(LOCAL_CONNECTOR);
        } finally {
            vm.detach();
        }
    }

    @Test
    void jvmsListsItWithNoPoolsWithoutStartingItsManagementAgent() throws Exception {
        JmxFixture.Result r = run(jvms, false, Map.of(), "jvms");
        assertEquals(0, r.code, r::toString);
        assertTrue(r.out.matches("(?s) *PID\\s+POOLS\\s+NAME\\R\\s*" + pid + "\\s+0\\s+.*PlainMain.*"), r::toString);
        assertNull(managementAgentAddress(), "jvms started the management agent of a JVM without Turntable");
    }

    @Test
    void poolsWithoutATargetFindsNoTurntableThereWithoutStartingItsManagementAgent() throws Exception {
        JmxFixture.Result r = run(jvms, false, Map.of(), "pools");
        assertEquals(3, r.code, r::toString);
        assertTrue(r.err.contains("no local JVM has Turntable MBeans (looked at 1)"), r::toString);
        assertNull(managementAgentAddress(), "pools started the management agent of a JVM without Turntable");
    }
}
