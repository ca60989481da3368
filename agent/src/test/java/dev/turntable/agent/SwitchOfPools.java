package dev.turntable.agent;

import dev.turntable.agent.CreationSite.Frame;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.objectweb.asm.Type;

/**
 * A large method of the shape that makes the two-pools search costly: one queue made before a
 * {@code switch} whose every arm builds a pool on it (one pool per run: each pool PRIVATE), then
 * goes on with statements of its own and a common tail. Compiled with the JDK's {@code javac},
 * so the bytecode is what an application's would be. For {@code QueueSharingTest}, which asserts
 * what the agent decides for every pool site, and for {@link #main}, which times that reading.
 */
final class SwitchOfPools {
    /** The arms, statements per arm after its pool, statements after the switch: ~1,500 in all. */
    static final int ARMS = 60;
    static final int PER_ARM = 9;
    static final int TAIL = 900;
    /** The descriptor of {@code build(int)}. */
    static final String BUILD = Type.getMethodDescriptor(Type.VOID_TYPE, Type.INT_TYPE);

    /** The compiled class and the lines of its pool constructor calls, in code order. */
    record Generated(Path classes, List<Integer> lines) {
        /** The class, defined anew (a new loader: nothing cached for it yet). */
        Class<?> load() throws ClassNotFoundException {
            return new URLClassLoader(new URL[] {url()}, SwitchOfPools.class.getClassLoader()).loadClass("gen.Pools");
        }

        private URL url() {
            try {
                return classes.toUri().toURL();
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }

        /** The verdict for the pool site on {@code line} of {@code type}'s {@code build} (-1: line unknown). */
        static QueueSharing.Verdict site(Class<?> type, int line) {
            return QueueSharing.of(List.of(QueueSharingTest.TPE7, QueueSharingTest.TPE5,
                    new Frame(type.getName(), "build", type, BUILD, line)));
        }
    }

    private SwitchOfPools() {
    }

    /**
     * Writes and compiles {@code gen.Pools.build(int)} into {@code dir}. With
     * {@code fallThrough}, the middle arm has no {@code break}: that run builds two pools on the
     * queue.
     */
    static Generated compile(Path dir, int arms, int perArm, int tail, boolean fallThrough) throws Exception {
        StringBuilder s = new StringBuilder();
        s.append("package gen;\n\nimport java.util.concurrent.*;\n\npublic final class Pools {\n")
                .append("    static int sink;\n    public static ThreadPoolExecutor built;\n\n")
                .append("    static void work(int i) {\n        sink += i;\n    }\n\n")
                .append("    public static void build(int k) {\n")
                .append("        BlockingQueue<Runnable> q = new LinkedBlockingQueue<>();\n")
                .append("        switch (k) {\n");
        int n = 0;
        for (int i = 0; i < arms; i++) {
            s.append("            case ").append(i).append(":\n");
            s.append("                built = new ThreadPoolExecutor(1, 1, 0L, TimeUnit.SECONDS, q);\n");
            for (int j = 0; j < perArm; j++) {
                s.append("                work(").append(n++).append(");\n");
            }
            if (!fallThrough || i != arms / 2) {
                s.append("                break;\n");
            }
        }
        s.append("            default:\n                break;\n        }\n");
        for (int j = 0; j < tail; j++) {
            s.append("        work(").append(n++).append(");\n");
        }
        s.append("    }\n}\n");
        Path src = dir.resolve("src/gen/Pools.java");
        Files.createDirectories(src.getParent());
        Files.writeString(src, s);
        Path classes = Files.createDirectories(dir.resolve("classes"));
        int rc = javax.tools.ToolProvider.getSystemJavaCompiler().run(null, null, null,
                "-g", "-d", classes.toString(), src.toString());
        if (rc != 0) {
            throw new IllegalStateException("javac failed: " + rc);
        }
        Class<?> type = new Generated(classes, List.of()).load();
        List<Integer> lines = QueueSharingTest.linesOfCalls(
                new Frame(type.getName(), "build", type, BUILD, -1), QueueSharingTest.TPE5);
        return new Generated(classes, lines);
    }

    /**
     * Times the reading of every pool site of the generated method, as the agent does it when
     * each pool is built: {@code java -cp <agent test class path> dev.turntable.agent.SwitchOfPools [rounds [arms perArm tail]]}.
     * Each round reads a fresh copy of the class (the readings are cached per class).
     */
    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        int arms = args.length > 3 ? Integer.parseInt(args[1]) : ARMS;
        int perArm = args.length > 3 ? Integer.parseInt(args[2]) : PER_ARM;
        int tail = args.length > 3 ? Integer.parseInt(args[3]) : TAIL;
        Path dir = Files.createTempDirectory("switch-of-pools");
        Generated g = compile(dir, arms, perArm, tail, false);
        System.out.printf("%d arms, %d statements, %d pool sites%n", arms, arms * (perArm + 1) + tail, g.lines().size());
        QueueSharing.warmUp();
        for (int r = 0; r < rounds; r++) {
            Class<?> type = g.load();
            Map<QueueSharing.Kind, Integer> kinds = new EnumMap<>(QueueSharing.Kind.class);
            long t0 = System.nanoTime();
            for (int line : g.lines()) {
                kinds.merge(Generated.site(type, line).kind(), 1, Integer::sum);
            }
            long t = System.nanoTime() - t0;
            System.out.printf("round %d: %.2f ms per pool site %s%n", r, t / 1e6 / g.lines().size(), kinds);
        }
    }
}
