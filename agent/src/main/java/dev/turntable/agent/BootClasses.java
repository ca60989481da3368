package dev.turntable.agent;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.lang.module.Configuration;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReader;
import java.lang.module.ModuleReference;
import java.lang.reflect.Method;
import java.net.URI;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.commons.ClassRemapper;
import org.objectweb.asm.commons.SimpleRemapper;

/**
 * Puts the bridge classes, which the agent's hooks in {@code java.base} call, into
 * {@code java.base} itself: the templates in {@code dev.turntable.agent.bootstrap} are renamed
 * into {@code java.util.concurrent} ({@link #RENAMES}) and defined next to
 * {@code ThreadPoolExecutor} with {@code MethodHandles.Lookup.defineClass}, from a one-class
 * module made for it, to which alone {@code java.util.concurrent} is opened. Called once, from
 * {@code premain}/{@code agentmain}; the hook setters from the same thread, before the hooks are
 * installed.
 *
 * <p>Why not a jar appended to the bootstrap class path, as agents usually do: that append makes
 * the JVM print "Sharing is only supported for boot loader classes because bootstrap classpath
 * has been appended" and stop loading the application's classes from its class-data-sharing
 * archive (AppCDS), so every application started with the agent paid for it at start-up.
 */
final class BootClasses {

    /** The hooks' class, once defined: {@code dev.turntable.agent.bootstrap.TurntableBridge} renamed. */
    static final String BRIDGE = "java.util.concurrent.TurntableBridge";

    /** {@code dev.turntable.agent.bootstrap.WorkerThreads} renamed. */
    static final String WORKER_THREADS = "java.util.concurrent.TurntableWorkerThreads";

    /** Template (in the agent jar) to name in {@code java.base}, as internal names. */
    static final Map<String, String> RENAMES = Map.of(
            "dev/turntable/agent/bootstrap/TurntableBridge", BRIDGE.replace('.', '/'),
            "dev/turntable/agent/bootstrap/WorkerThreads", WORKER_THREADS.replace('.', '/'));

    static final String DEFINER_MODULE = "dev.turntable.definer";
    static final String DEFINER = "dev.turntable.agent.definer.JavaBaseDefiner";

    private static volatile Method poolOf;

    private BootClasses() {
    }

    /** Whether an earlier load of the agent (premain, or an earlier attach) already defined the bridge. */
    static boolean alreadyInstalled() {
        try {
            Class.forName(BRIDGE, false, null);
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /**
     * The class file of the agent jar's class {@code internalName} with every reference to a
     * template (its own name included) renamed by {@link #RENAMES}.
     */
    static byte[] renamed(String internalName) throws IOException {
        ClassReader reader = new ClassReader(classFile(internalName));
        ClassWriter writer = new ClassWriter(0); // same instructions, so the same frames and maxima
        reader.accept(new ClassRemapper(writer, new SimpleRemapper(RENAMES)), 0);
        return writer.toByteArray();
    }

    static void install(Instrumentation inst) throws Exception {
        Module definerModule = definerModule();
        inst.redefineModule(Object.class.getModule(), Set.of(), Map.of(),
                Map.of("java.util.concurrent", Set.of(definerModule)), Set.of(), Map.of());
        Method define = definerModule.getClassLoader().loadClass(DEFINER).getMethod("define", byte[].class);
        for (String template : RENAMES.keySet()) {
            define.invoke(null, (Object) renamed(template));
        }
        Class<?> bridge = Class.forName(BRIDGE, true, null);
        if (bridge.getClassLoader() != null || bridge.getModule() != Object.class.getModule()) {
            throw new IllegalStateException(BRIDGE + " was not defined in java.base");
        }
    }

    /** Sets the bridge's static field {@code name} (a {@code TurntableBridge} field) to {@code value}. */
    static void setHook(String name, Object value) throws ReflectiveOperationException {
        Class.forName(BRIDGE, false, null).getField(name).set(null, value);
    }

    /** The pool whose worker {@code t} is, or {@code null}: {@code WorkerThreads.poolOf} in {@code java.base}. */
    static Object poolOf(Thread t) throws ReflectiveOperationException {
        Method m = poolOf;
        if (m == null) {
            m = Class.forName(WORKER_THREADS, true, null).getMethod("poolOf", Thread.class);
            poolOf = m; // racy: any thread may look it up again, and finds the same method
        }
        return m.invoke(null, t);
    }

    /**
     * A module holding only {@link #DEFINER}, in a layer of its own whose loader's parent is the
     * platform loader: the application cannot reach it by name, and it sees nothing of the
     * application's.
     */
    private static Module definerModule() throws IOException, ClassNotFoundException {
        String resource = DEFINER.replace('.', '/') + ".class";
        byte[] bytes = classFile(DEFINER.replace('.', '/'));
        ModuleDescriptor descriptor = ModuleDescriptor.newModule(DEFINER_MODULE)
                .exports(DEFINER.substring(0, DEFINER.lastIndexOf('.')))
                .build();
        ModuleReference reference = new ModuleReference(descriptor, null) {
            @Override
            public ModuleReader open() {
                return new ModuleReader() {
                    @Override
                    public Optional<URI> find(String name) {
                        return Optional.empty();
                    }

                    @Override
                    public Optional<InputStream> open(String name) {
                        return resource.equals(name) ? Optional.of(new ByteArrayInputStream(bytes)) : Optional.empty();
                    }

                    @Override
                    public Stream<String> list() {
                        return Stream.of(resource);
                    }

                    @Override
                    public void close() {
                    }
                };
            }
        };
        ModuleFinder finder = new ModuleFinder() {
            @Override
            public Optional<ModuleReference> find(String name) {
                return DEFINER_MODULE.equals(name) ? Optional.of(reference) : Optional.empty();
            }

            @Override
            public Set<ModuleReference> findAll() {
                return Set.of(reference);
            }
        };
        ModuleLayer boot = ModuleLayer.boot();
        Configuration configuration = boot.configuration().resolve(finder, ModuleFinder.of(), Set.of(DEFINER_MODULE));
        ModuleLayer layer = boot.defineModulesWithOneLoader(configuration, ClassLoader.getPlatformClassLoader());
        return layer.findModule(DEFINER_MODULE).orElseThrow(() -> new ClassNotFoundException(DEFINER_MODULE));
    }

    private static byte[] classFile(String internalName) throws IOException {
        String resource = internalName + ".class";
        try (InputStream in = BootClasses.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IOException(resource + " is missing from the agent jar");
            }
            return in.readAllBytes();
        }
    }
}
