package dev.turntable.agent;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.instrument.Instrumentation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;

/**
 * Puts the bridge classes ({@code dev.turntable.agent.bootstrap.*}) on the bootstrap class path,
 * so advice inlined into {@code java.base} can call them: copies them from the agent jar into a
 * small temporary jar and appends it with
 * {@link Instrumentation#appendToBootstrapClassLoaderSearch}. Called once, from
 * {@code premain}/{@code agentmain}, before any agent class refers to a bridge class.
 */
final class BootstrapJar {

    static final String BRIDGE = "dev.turntable.agent.bootstrap.TurntableBridge";
    static final String[] CLASSES = {BRIDGE, "dev.turntable.agent.bootstrap.WorkerThreads"};

    private BootstrapJar() {
    }

    /** Whether an earlier load of the agent (premain, or an earlier attach) already appended the bridge. */
    static boolean alreadyInstalled() {
        try {
            Class.forName(BRIDGE, false, null);
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    static void appendTo(Instrumentation inst) throws IOException {
        Path jar = Files.createTempFile("turntable-bootstrap-", ".jar");
        jar.toFile().deleteOnExit();
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file)) {
            for (String name : CLASSES) {
                String resource = name.replace('.', '/') + ".class";
                try (InputStream in = BootstrapJar.class.getClassLoader().getResourceAsStream(resource)) {
                    if (in == null) {
                        throw new IOException(resource + " is missing from the agent jar");
                    }
                    out.putNextEntry(new JarEntry(resource));
                    in.transferTo(out);
                    out.closeEntry();
                }
            }
        }
        inst.appendToBootstrapClassLoaderSearch(new JarFile(jar.toFile()));
        try {
            Class<?> bridge = Class.forName(BRIDGE, true, null);
            if (bridge.getClassLoader() != null) {
                throw new IOException(BRIDGE + " was not loaded by the bootstrap class loader");
            }
        } catch (ClassNotFoundException e) {
            throw new IOException(BRIDGE + " is not visible on the bootstrap class path", e);
        }
    }
}
