package dev.turntable.jmx.cli;

import dev.turntable.jmx.TurntableJmx;
import dev.turntable.pool.TurntableExecutor;
import java.lang.management.ManagementFactory;
import javax.management.remote.JMXConnectorServer;

/**
 * The child JVM of {@link ForkedJvmTest}: one TurntableExecutor named {@code forked} registered
 * on the platform MBean server, plus a loopback JMX connector for {@code --url}. Prints
 * {@code URL <address>} and {@code READY}, then lives until its standard input closes.
 */
public final class ForkedPoolMain {

    private ForkedPoolMain() {
    }

    public static void main(String[] args) throws Exception {
        TurntableExecutor pool = TurntableExecutor.builder().workers(2).build();
        TurntableJmx.Registration r = TurntableJmx.register("forked", pool);
        if (!r.isRegistered()) {
            System.out.println("FAILED " + r.failure().orElse("?"));
            System.exit(1);
        }
        JMXConnectorServer connector = JmxFixture.startConnector(ManagementFactory.getPlatformMBeanServer());
        System.out.println("URL " + connector.getAddress());
        System.out.println("READY");
        System.out.flush();
        while (System.in.read() >= 0) {
            // the parent holds our stdin open while it needs us
        }
        connector.stop();
        pool.shutdownNow();
        System.exit(0);
    }
}
