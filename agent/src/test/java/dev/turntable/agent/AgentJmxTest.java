package dev.turntable.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Properties;
import javax.management.JMX;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class AgentJmxTest {

    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    private final ObjectName name;

    AgentJmxTest() throws Exception {
        name = new ObjectName(AgentJmx.OBJECT_NAME);
    }

    @AfterEach
    void unregister() throws Exception {
        if (server.isRegistered(name)) {
            server.unregisterMBean(name);
        }
    }

    @Test
    void theAgentMBeanShowsVersionOptionsAndAPoolsTable() throws Exception {
        Options options = OptionsParser.parse("strategy=FAIR_SHARE", new Properties()).options();
        PoolRegistry registry = new PoolRegistry();
        Object a = new Object();
        Object b = new Object();
        registry.register(a, new PoolRecord("Orders.start", "com.acme.Orders.start", true, "LinkedBlockingQueue, unbounded", "x", null));
        registry.register(b, new PoolRecord("HttpClientImpl.new", "jdk.internal.net.http.HttpClientImpl.<init>", false,
                "created by the JDK", "x", null));
        new AgentJmx(options, registry).register();

        assertTrue(server.isRegistered(name));
        assertTrue(((String) server.getAttribute(name, "Version")).matches("\\d+\\.\\d+\\.\\d+.*"));
        assertTrue(((String) server.getAttribute(name, "Options")).contains("strategy=FAIR_SHARE\n"));
        CompositeData[] rows = (CompositeData[]) server.getAttribute(name, "Pools");
        assertEquals(2, rows.length);
        assertEquals("Orders.start", rows[0].get("name"));
        assertEquals("com.acme.Orders.start", rows[0].get("creationSite"));
        assertEquals(true, rows[0].get("managed"));
        assertEquals("LinkedBlockingQueue, unbounded", rows[0].get("reason"));
        assertEquals(false, rows[1].get("managed"));

        // a typed MXBean proxy (what a Java client would use) reads the same table
        AgentMXBean proxy = JMX.newMXBeanProxy(server, name, AgentMXBean.class);
        assertEquals("created by the JDK", proxy.getPools()[1].getReason());
        assertEquals(List.of(a, b).size(), proxy.getPools().length);
    }

    @Test
    void aSecondRegistrationLeavesTheFirst() throws Exception {
        Options options = Options.defaults();
        new AgentJmx(options, new PoolRegistry()).register();
        new AgentJmx(options, new PoolRegistry()).register(); // prints one line, throws nothing
        assertTrue(server.isRegistered(name));
    }
}
