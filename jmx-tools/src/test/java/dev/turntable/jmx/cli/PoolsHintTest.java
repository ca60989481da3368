package dev.turntable.jmx.cli;

import static dev.turntable.jmx.cli.JmxFixture.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.RuntimeMXBean;
import java.util.Map;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;
import javax.management.StandardMBean;
import javax.management.remote.JMXConnectorServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code pools} in a JVM without the agent's MBean says how to load the agent there, with a
 * command that works for how the JVM was reached: {@code attach} with its pid for a local JVM,
 * and for {@code --url} (which {@code attach} does not go through) {@code -javaagent}, or
 * {@code attach} where that JVM runs, with its pid only when the JVM tells it.
 */
class PoolsHintTest {

    private static final String NOT_LOADED = "(the Turntable agent is not loaded there, or runs with jmx=false; ";

    private MBeanServer server;
    private JMXConnectorServer connector;

    @BeforeEach
    void startConnector() throws IOException {
        server = MBeanServerFactory.newMBeanServer(); // no agent's MBean, no pool
        connector = JmxFixture.startConnector(server);
    }

    @AfterEach
    void stopConnector() throws IOException {
        connector.stop();
    }

    private static JmxFixture.Result ok(LocalJvms jvms, String... args) {
        JmxFixture.Result r = run(jvms, false, Map.of(), args);
        assertEquals(0, r.code, r::toString);
        assertEquals("", r.err, r::toString);
        return r;
    }

    @Test
    void aJvmGivenByPidIsToldTheAttachCommandWithThatPid() {
        TurntablectlTest.FakeJvms jvms = new TurntablectlTest.FakeJvms();
        jvms.reachable.put("4242", connector.getAddress());
        JmxFixture.Result r = ok(jvms, "--pid", "4242", "pools");
        assertEquals("no Turntable pools in JVM 4242 " + NOT_LOADED + "to load it: turntablectl attach 4242)",
                r.out.trim(), r::toString);
    }

    /**
     * A local JVM whose agent status says the agent runs, but without its MBean, runs it with
     * jmx=false: attach would load nothing there, so the hint is a restart with JMX on.
     */
    @Test
    void aJvmRunningTheAgentWithoutJmxIsToldToRestartWithJmxNotToAttach() {
        TurntablectlTest.FakeJvms jvms = new TurntablectlTest.FakeJvms();
        jvms.reachable.put("4242", connector.getAddress());
        jvms.status.put("4242", "running");
        JmxFixture.Result r = ok(jvms, "--pid", "4242", "pools");
        assertEquals("no Turntable pools in JVM 4242 (the Turntable agent runs there with jmx=false, so it registered"
                + " no MBeans; JMX can only be turned on at start (attach loads nothing into a JVM that runs the agent):"
                + " restart that JVM with jmx=true, the default, in its agent options)", r.out.trim(), r::toString);
        assertFalse(r.out.contains("turntablectl attach"), r::toString);
    }

    /** attach works through the Attach API, on the JVM's own machine: a pid read over JMX is only of use there. */
    @Test
    void aJvmGivenByUrlIsToldToStartWithTheAgentOrAttachWhereItRunsWithItsOwnPid() throws Exception {
        RuntimeMXBean runtime = ManagementFactory.getRuntimeMXBean();
        server.registerMBean(new StandardMBean(runtime, RuntimeMXBean.class, true),
                new ObjectName(ManagementFactory.RUNTIME_MXBEAN_NAME));
        String url = connector.getAddress().toString();
        JmxFixture.Result r = ok(new TurntablectlTest.FakeJvms(), "--url", url, "pools");
        assertEquals("no Turntable pools in " + url + " " + NOT_LOADED + "--url cannot load it: start that JVM with"
                + " -javaagent:<path>/turntable-agent.jar, or where it runs (its machine or container, as its user)"
                + " run turntablectl attach " + runtime.getPid() + ")", r.out.trim(), r::toString);
    }

    /** A JVM that does not tell its pid over JMX: no pid is made up, the operator is told how to find it. */
    @Test
    void aJvmGivenByUrlThatDoesNotTellItsPidGetsNoPid() {
        String url = connector.getAddress().toString();
        JmxFixture.Result r = ok(new TurntablectlTest.FakeJvms(), "--url", url, "pools");
        assertEquals("no Turntable pools in " + url + " " + NOT_LOADED + "--url cannot load it: start that JVM with"
                + " -javaagent:<path>/turntable-agent.jar, or where it runs (its machine or container, as its user)"
                + " find its pid with turntablectl jvms and run turntablectl attach <that pid>)", r.out.trim(),
                r::toString);
        assertFalse(r.out.contains("attach <pid>"), r::toString);
    }

    /** With the agent's MBean registered, an empty list needs no hint. */
    @Test
    void aJvmWithTheAgentGetsNoHint() throws Exception {
        TurntablectlTest.AgentMXBean agent = () -> new TurntablectlTest.AgentPool[0];
        server.registerMBean(agent, new ObjectName(dev.turntable.jmx.TurntableJmx.DOMAIN + ":type=Agent"));
        JmxFixture.Result r = ok(new TurntablectlTest.FakeJvms(), "--url", connector.getAddress().toString(), "pools");
        assertTrue(r.out.startsWith("no Turntable pools in ") && !r.out.contains("("), r::toString);
    }
}
