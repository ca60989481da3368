package dev.turntable.agent;

import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * The {@code dev.turntable:type=Agent} MXBean and its registration. Registration is deferred to a
 * daemon thread started when the first application pool appears (or at once after an attach):
 * creating the platform MBean server initialises {@code java.util.logging} and costs tens of
 * milliseconds, neither of which the agent may impose on an application's startup before its
 * {@code main} has configured logging. Any thread may call {@link #registerSoon()}.
 */
final class AgentJmx implements AgentMXBean {

    static final String OBJECT_NAME = "dev.turntable:type=Agent";

    private final Options options;
    private final PoolRegistry registry;
    private final AtomicBoolean requested = new AtomicBoolean();

    AgentJmx(Options options, PoolRegistry registry) {
        this.options = options;
        this.registry = registry;
    }

    /** Starts registration on a daemon thread, once. */
    void registerSoon() {
        if (!requested.compareAndSet(false, true)) {
            return;
        }
        Thread t = new Thread(null, this::register, "turntable-jmx", 0, false);
        t.setDaemon(true);
        t.start();
    }

    void register() {
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            ObjectName name = new ObjectName(OBJECT_NAME);
            if (server.isRegistered(name)) {
                Log.line(OBJECT_NAME + " is already registered; leaving it as it is");
                return;
            }
            server.registerMBean(this, name);
        } catch (Throwable t) {
            Log.line("could not register " + OBJECT_NAME + ": " + t);
        }
    }

    @Override
    public String getVersion() {
        return version();
    }

    @Override
    public String getOptions() {
        return options.text();
    }

    @Override
    public PoolInfo[] getPools() {
        List<PoolRecord> records = registry.snapshot();
        PoolInfo[] out = new PoolInfo[records.size()];
        for (int i = 0; i < out.length; i++) {
            PoolRecord r = records.get(i);
            out[i] = new PoolInfo(r.name(), r.creationSite(), r.managed(), r.reason());
        }
        return out;
    }

    /** The agent's version, from the build. */
    static String version() {
        try (InputStream in = AgentJmx.class.getResourceAsStream("version.properties")) {
            if (in != null) {
                Properties p = new Properties();
                p.load(in);
                return p.getProperty("version", "unknown");
            }
        } catch (IOException e) {
            // fall through
        }
        return "unknown";
    }
}
