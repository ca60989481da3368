package dev.turntable.agent;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;
import java.lang.module.Configuration;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReader;
import java.lang.module.ModuleReference;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URI;
import java.net.URISyntaxException;
import java.security.CodeSource;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.SynchronousQueue;
import java.util.stream.Stream;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Opcodes;
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
    /** {@link #BRIDGE} as an internal name, which the hooks' calls name. */
    static final String BRIDGE_INTERNAL = BRIDGE.replace('.', '/');

    /** {@code dev.turntable.agent.bootstrap.WorkerThreads} renamed. */
    static final String WORKER_THREADS = "java.util.concurrent.TurntableWorkerThreads";

    /** Template (in the agent jar) to name in {@code java.base}, as internal names. */
    static final Map<String, String> RENAMES = Map.of(
            "dev/turntable/agent/bootstrap/TurntableBridge", BRIDGE_INTERNAL,
            "dev/turntable/agent/bootstrap/WorkerThreads", WORKER_THREADS.replace('.', '/'));

    static final String DEFINER_MODULE = "dev.turntable.definer";
    static final String DEFINER = "dev.turntable.agent.definer.JavaBaseDefiner";

    /** {@link #DEFINER}, in its module; set once by {@link #install}. */
    private static volatile Class<?> definer;
    /** The bridge class {@link #install} defined in {@code java.base}; set with {@link #definer}. */
    private static volatile Class<?> bridge;
    private static volatile MethodHandle poolOf;

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
        reader.accept(new ClassRemapper(writer, new SimpleRemapper(Opcodes.ASM9, RENAMES)), 0);
        return writer.toByteArray();
    }

    /**
     * Defines the bridge classes in {@code java.base}.
     *
     * @throws Exception what went wrong, unwrapped from the reflective calls
     */
    static void install(Instrumentation inst) throws Exception {
        Module definerModule = definerModule();
        inst.redefineModule(Object.class.getModule(), Set.of(), Map.of(),
                Map.of("java.util.concurrent", Set.of(definerModule)), Set.of(), Map.of());
        Class<?> d = definerModule.getClassLoader().loadClass(DEFINER);
        Method define = d.getMethod("define", byte[].class);
        for (String template : RENAMES.keySet()) {
            unwrapped(() -> define.invoke(null, (Object) renamed(template)));
        }
        Class<?> defined = Class.forName(BRIDGE, true, null);
        if (defined.getClassLoader() != null || defined.getModule() != Object.class.getModule()) {
            throw new IllegalStateException(BRIDGE + " was not defined in java.base");
        }
        bridge = defined;
        definer = d;
    }

    /**
     * Sets the bridge's static field {@code name} (a {@code TurntableBridge} field, of
     * {@code type}) to {@code value}, through a handle only the definer's module can make: the
     * field is package-private, out of the application's reach.
     */
    static void setHook(String name, Class<?> type, Object value) throws Exception {
        MethodHandle setter = definerHandle("staticSetter", bridge, name, type);
        try {
            setter.invoke(value);
        } catch (Throwable e) {
            throw new IllegalStateException("setting " + name + ": " + e, e);
        }
    }

    /** The pool whose worker {@code t} is, or {@code null}: {@code WorkerThreads.poolOf} in {@code java.base}. */
    static Object poolOf(Thread t) throws Exception {
        MethodHandle m = poolOf;
        if (m == null) {
            m = definerHandle("staticMethod", Class.forName(WORKER_THREADS, true, null), "poolOf",
                    MethodType.methodType(Object.class, Thread.class));
            poolOf = m; // racy: any thread may look it up again, and finds the same method
        }
        try {
            return m.invoke(t);
        } catch (Exception | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Whether {@code q} is fair, read from its private state through the definer module: JDK 21
     * and later keep a {@code fair} field, JDK 17 a {@code transferer} that is a
     * {@code TransferQueue} (fair) or a {@code TransferStack}. {@code null} if the agent has not
     * defined its bridge or this JDK's {@code SynchronousQueue} is neither; the caller then reads
     * the serialized form, which is some 60 ms the first time and 20 us after.
     */
    static Boolean synchronousQueueFair(SynchronousQueue<?> q) {
        MethodHandle read = Fairness.READER;
        if (read == null) {
            return null;
        }
        try {
            Object value = read.invoke(q);
            if (value instanceof Boolean) {
                return (Boolean) value;
            }
            String kind = value == null ? "" : value.getClass().getSimpleName();
            return kind.equals("TransferQueue") ? Boolean.TRUE : kind.equals("TransferStack") ? Boolean.FALSE : null;
        } catch (Throwable e) {
            return null;
        }
    }

    /** The fairness reader, looked up once, when first needed (lazy holder: its {@code null} is kept too). */
    private static final class Fairness {
        static final MethodHandle READER = fairnessReader();
    }

    private static MethodHandle fairnessReader() {
        if (definer == null) {
            return null;
        }
        MethodType read = MethodType.methodType(Object.class, SynchronousQueue.class);
        try {
            try {
                return definerHandle("getter", SynchronousQueue.class, "fair", boolean.class).asType(read);
            } catch (NoSuchFieldException e) {
                Class<?> transferer = Class.forName("java.util.concurrent.SynchronousQueue$Transferer", false, null);
                return definerHandle("getter", SynchronousQueue.class, "transferer", transferer).asType(read);
            }
        } catch (Exception | LinkageError e) {
            return null;
        }
    }

    /**
     * The handle {@link #DEFINER}'s method {@code method} ({@code getter}, {@code staticSetter} or
     * {@code staticMethod}: each takes an owner class, a member name and the member's type) makes
     * for the member {@code name} of {@code owner}; a failure is what that method threw.
     */
    private static MethodHandle definerHandle(String method, Class<?> owner, String name, Object type) throws Exception {
        Class<?> typeParameter = type instanceof MethodType ? MethodType.class : Class.class;
        return (MethodHandle) unwrapped(() -> definer.getMethod(method, Class.class, String.class, typeParameter)
                .invoke(null, owner, name, type));
    }

    /** A reflective call whose failure is reported as what the called method threw. */
    private interface Reflective {
        Object call() throws Exception;
    }

    private static Object unwrapped(Reflective call) throws Exception {
        try {
            return call.call();
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception) {
                throw (Exception) cause;
            }
            if (cause instanceof Error) {
                throw (Error) cause;
            }
            throw e;
        }
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
        // Located at the agent jar, so a security policy that grants the agent jar grants the definer too.
        ModuleReference reference = new ModuleReference(descriptor, agentJarLocation()) {
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

    private static URI agentJarLocation() {
        try {
            CodeSource source = BootClasses.class.getProtectionDomain().getCodeSource();
            return source == null || source.getLocation() == null ? null : source.getLocation().toURI();
        } catch (URISyntaxException | RuntimeException e) {
            return null;
        }
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
