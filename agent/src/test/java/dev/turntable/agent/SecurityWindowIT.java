package dev.turntable.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * An application that installs a security manager for a while (as the JSR-166 TCK does) and
 * builds a pool meanwhile: the agent's MBean registrations are refused, and must not be lost for
 * good once the security manager is gone. Runs on the JDK running the build, which must still
 * have a security manager (JDK 24+ has none, so there is nothing there to test).
 */
class SecurityWindowIT {

    @Test
    void mBeansRefusedWhileASecurityManagerWasInForceAreRegisteredOnceItIsGone() throws Exception {
        ForkedJvm.Result r = runApp();
        assertEquals(List.of("1"), r.lines("POOL_MBEANS "), r::toString);
        // The pool's own MBean comes due 0.1 s after the refusal: registered by a retry, or as
        // usual once the security manager has gone (the line then counts 0 pool MBeans).
        assertSaidOnceRefusedThenRegistered(r, "the Agent MBean and ");
        assertTrue(r.agentLines().get(0).contains("grant the agent jar"), r::toString);
    }

    /**
     * The same for a pool built after the Agent MBean and a first pool's were registered, under
     * a policy that lets the agent reach the platform MBean server but refuses registrations: the
     * refusal then comes from the pool's registration itself, and is tried again all the same,
     * with no line of its own.
     */
    @Test
    void aPoolWhoseOwnRegistrationWasRefusedIsRegisteredOnceTheSecurityManagerIsGone() throws Exception {
        ForkedJvm.Result r = runApp("later-pool");
        assertEquals(List.of("2"), r.lines("POOL_MBEANS "), r::toString);
        assertSaidOnceRefusedThenRegistered(r, "1 pool MBean");
        assertFalse(r.stderr.contains("is not registered in JMX"), r::toString);
    }

    /**
     * A policy that refuses one MBean by name, a pool's or the Agent MBean's: other pools get
     * theirs at once meanwhile, and the refused one once the security manager is gone.
     */
    @ParameterizedTest(name = "refusing {0}")
    @CsvSource({"refusedPool, 1 pool MBean", "type=Agent, the Agent MBean and 0 pool MBeans"})
    void anMBeanRefusedByNameHoldsBackNoPool(String refusedName, String registeredOnRetry) throws Exception {
        ForkedJvm.Result r = runApp("refuse-name=" + refusedName);
        assertEquals(List.of("true"), r.lines("ACCEPTED_WHILE_REFUSING "), r::toString);
        assertEquals(List.of("2"), r.lines("POOL_MBEANS "), r::toString);
        assertSaidOnceRefusedThenRegistered(r, registeredOnRetry);
    }

    /**
     * The same while the application keeps building pools (one per request, say): a pool is
     * always waiting for its MBean, and the refused registrations are tried again meanwhile
     * rather than after the last pool.
     */
    @Test
    void refusedRegistrationsAreTriedAgainWhilePoolsKeepComing() throws Exception {
        ForkedJvm.Result r = runApp("burst");
        List<String> during = r.lines("AGENT_MBEAN_DURING_BURST ");
        assertEquals(1, during.size(), r::toString);
        assertTrue(during.get(0).startsWith("true"), r::toString);
    }

    /**
     * Runs {@code SecurityWindowApp} with {@code args} under the agent, on a JDK that still has a
     * security manager: it exited normally, was refused, and has the Agent MBean in the end.
     */
    private static ForkedJvm.Result runApp(String... args) throws Exception {
        assumeTrue(Runtime.version().feature() < 24, "JDK 24 and later have no security manager");
        ForkedJvm jvm = ForkedJvm.jdks().findFirst().orElseThrow();
        ForkedJvm.Result r = jvm.run(jvm.command(List.of(ForkedJvm.agent(null), "-Djava.security.manager=allow"),
                "com.example.apps.SecurityWindowApp", args), 90);
        assertEquals(0, r.exitCode, r::toString);
        assertEquals(List.of("true"), r.lines("REFUSED "), r::toString);
        assertEquals(List.of("true"), r.lines("AGENT_MBEAN "), r::toString);
        return r;
    }

    /** The agent said two lines: the refusal, then what it registered once it could. */
    private static void assertSaidOnceRefusedThenRegistered(ForkedJvm.Result r, String registered) {
        List<String> said = r.agentLines();
        assertEquals(2, said.size(), r::toString);
        assertTrue(said.get(0).contains("a security manager refused registering MBeans"), r::toString);
        assertTrue(said.get(1).contains("registered what a security manager had refused: " + registered), r::toString);
    }
}
