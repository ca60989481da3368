package dev.turntable.jmx.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.rmi.server.RMIServerSocketFactory;
import java.util.HashMap;
import java.util.Map;
import javax.management.MBeanServer;
import javax.management.remote.JMXConnectorServer;
import javax.management.remote.JMXConnectorServerFactory;
import javax.management.remote.JMXServiceURL;
import javax.management.remote.rmi.RMIConnectorServer;

/** Test helpers: a loopback-only JMX connector server, and running the CLI with captured streams. */
final class JmxFixture {

    private JmxFixture() {
    }

    /** One CLI run: its exit code and what it printed. */
    static final class Result {
        final int code;
        final String out;
        final String err;

        Result(int code, String out, String err) {
            this.code = code;
            this.out = out;
            this.err = err;
        }

        @Override
        public String toString() {
            return "exit " + code + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    /**
     * A JMX RMI connector server for {@code server} on an ephemeral port bound to the loopback
     * interface only ({@code service:jmx:rmi://127.0.0.1}, port 0).
     */
    static JMXConnectorServer startConnector(MBeanServer server) throws IOException {
        Map<String, Object> env = new HashMap<>();
        env.put(RMIConnectorServer.RMI_SERVER_SOCKET_FACTORY_ATTRIBUTE, new LoopbackSockets());
        JMXConnectorServer cs = JMXConnectorServerFactory.newJMXConnectorServer(
                new JMXServiceURL("service:jmx:rmi://127.0.0.1"), env, server);
        cs.start();
        return cs;
    }

    /** Server sockets on 127.0.0.1 only. Equal to each other so RMI can share one port. */
    static final class LoopbackSockets implements RMIServerSocketFactory {
        @Override
        public ServerSocket createServerSocket(int port) throws IOException {
            return new ServerSocket(port, 50, InetAddress.getLoopbackAddress());
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof LoopbackSockets;
        }

        @Override
        public int hashCode() {
            return LoopbackSockets.class.hashCode();
        }
    }

    /** A loopback port nothing listens on (bound, then released). */
    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    static Result run(LocalJvms jvms, boolean terminal, Map<String, String> env, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
             PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            code = new Turntablectl(o, e, terminal, jvms, env).execute(args);
        }
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** {@code args} after {@code --url url}: a command line that reaches the fixture's connector. */
    static String[] withUrl(String url, String... args) {
        String[] a = new String[args.length + 2];
        a[0] = "--url";
        a[1] = url;
        System.arraycopy(args, 0, a, 2, args.length);
        return a;
    }
}
