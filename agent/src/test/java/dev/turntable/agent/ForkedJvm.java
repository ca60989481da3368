package dev.turntable.agent;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Integration-test helper: runs a Java main in a fresh JVM of a given JDK, optionally under the
 * agent jar, with standard output and error captured to files. One instance per JDK; any test
 * thread may use it.
 */
final class ForkedJvm {

    static final Path AGENT_JAR = Paths.get(System.getProperty("turntable.it.agentJar", "target/turntable-agent.jar"));
    static final Path TEST_CLASSES = Paths.get(System.getProperty("turntable.it.testClasses", "target/test-classes"));
    static final Path EXAMPLE_JAR = Paths.get(System.getProperty("turntable.it.exampleJar",
            "../examples/target/turntable-example.jar"));
    static final Path JDK25 = Paths.get(System.getProperty("turntable.it.jdk25", "/usr/lib/jvm/temurin-25-jdk-amd64"));

    final String label;
    final Path home;

    private ForkedJvm(String label, Path home) {
        this.label = label;
        this.home = home;
    }

    /** {@code @MethodSource(ForkedJvm.JDKS)}: a parameterized test runs once per JDK of {@link #jdks()}. */
    static final String JDKS = "dev.turntable.agent.ForkedJvm#jdks";

    /** The JDKs every integration test runs on: the one running the build (17), and JDK 25 when installed. */
    static Stream<ForkedJvm> jdks() {
        return Stream.of(new ForkedJvm("jdk" + Runtime.version().feature(), Paths.get(System.getProperty("java.home"))),
                new ForkedJvm("jdk25", JDK25));
    }

    /** Skips the calling test (with the reason) when this JDK is not installed. */
    ForkedJvm assumeInstalled() {
        assumeTrue(Files.isExecutable(java()), label + " is not installed at " + home + ": skipped");
        return this;
    }

    boolean isJdk25() {
        return label.equals("jdk25");
    }

    Path java() {
        return home.resolve("bin").resolve("java");
    }

    @Override
    public String toString() {
        return label;
    }

    /** What a finished JVM left behind. */
    static final class Result {
        final int exitCode;
        final String stdout;
        final String stderr;

        Result(int exitCode, String stdout, String stderr) {
            this.exitCode = exitCode;
            this.stdout = stdout;
            this.stderr = stderr;
        }

        List<String> out() {
            return Arrays.asList(stdout.split("\\R"));
        }

        List<String> err() {
            return Arrays.asList(stderr.split("\\R"));
        }

        /** Standard output lines starting with {@code prefix}, the prefix removed. */
        List<String> lines(String prefix) {
            return out().stream().filter(l -> l.startsWith(prefix)).map(l -> l.substring(prefix.length()))
                    .collect(Collectors.toList());
        }

        /** The agent's own lines on standard error. */
        List<String> agentLines() {
            return err().stream().filter(l -> l.startsWith("[turntable] ")).collect(Collectors.toList());
        }

        @Override
        public String toString() {
            return "exit " + exitCode + "\n--- stdout\n" + stdout + "\n--- stderr\n" + stderr;
        }
    }

    /** The command line: this JDK's java, the JVM options, the test classes as classpath, then the main and its args. */
    List<String> command(List<String> jvmOptions, String mainClass, String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(java().toString());
        cmd.addAll(jvmOptions);
        if (mainClass != null) {
            cmd.add("-cp");
            cmd.add(TEST_CLASSES.toString());
            cmd.add(mainClass);
        }
        cmd.addAll(Arrays.asList(args));
        return cmd;
    }

    /**
     * JVM options that make HotSpot verify the JDK's own classes as it loads or retransforms
     * them (by default it trusts the bootstrap loader's): the agent's rewritten
     * {@code ThreadPoolExecutor} and {@code ForkJoinPool} must pass, or are refused and the
     * agent leaves every pool alone, which the test then sees.
     */
    static final List<String> VERIFY_JDK_CLASSES = List.of("-XX:+UnlockDiagnosticVMOptions", "-XX:+BytecodeVerificationLocal");

    /**
     * Jars of this build's test class path whose file names {@code nameMatches} accepts, joined
     * as a class path: libraries a test application runs with.
     */
    static String testClassPathJars(Predicate<String> nameMatches) {
        return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(p -> nameMatches.test(new File(p).getName()))
                .collect(Collectors.joining(File.pathSeparator));
    }

    /**
     * Writes {@code jar} holding the test classes {@code classFiles} (paths under
     * {@link #TEST_CLASSES}, with {@code manifest} if not {@code null}), and returns it.
     */
    static Path jarOfTestClasses(Path jar, Manifest manifest, List<String> classFiles) throws IOException {
        try (OutputStream file = Files.newOutputStream(jar);
             JarOutputStream out = manifest == null ? new JarOutputStream(file) : new JarOutputStream(file, manifest)) {
            for (String entry : classFiles) {
                out.putNextEntry(new JarEntry(entry));
                out.write(Files.readAllBytes(TEST_CLASSES.resolve(entry)));
                out.closeEntry();
            }
        }
        return jar;
    }

    static String agent(String options) {
        return "-javaagent:" + AGENT_JAR.toAbsolutePath() + (options == null ? "" : "=" + options);
    }

    /** Runs to completion; fails the test if the JVM is still running after {@code timeoutSeconds}. */
    Result run(List<String> command, long timeoutSeconds) throws IOException, InterruptedException {
        Path out = Files.createTempFile("turntable-it-", ".out");
        Path err = Files.createTempFile("turntable-it-", ".err");
        try {
            Process p = new ProcessBuilder(command)
                    .redirectOutput(out.toFile())
                    .redirectError(err.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .start();
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                fail("the JVM did not exit within " + timeoutSeconds + " s (a hang): " + command + "\n"
                        + new Result(-1, Files.readString(out), Files.readString(err)));
            }
            return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    /**
     * Starts a JVM that keeps running (standard output and error to files, standard input a pipe
     * the test closes to stop it). Close the returned {@link Running} to stop it.
     */
    Running start(List<String> command) throws IOException {
        return new Running(command);
    }

    /**
     * A JVM started by {@link #start}, serving until its standard input closes. Used by one test
     * thread at a time.
     */
    static final class Running implements AutoCloseable {
        final Process process;
        final List<String> command;
        private final Path out;
        private final Path err;
        private Result result;

        private Running(List<String> command) throws IOException {
            this.command = command;
            this.out = Files.createTempFile("turntable-it-", ".out");
            this.err = Files.createTempFile("turntable-it-", ".err");
            this.process = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        }

        long pid() {
            return process.pid();
        }

        String stdout() throws IOException {
            return Files.readString(out, StandardCharsets.UTF_8);
        }

        String stderr() throws IOException {
            return Files.readString(err, StandardCharsets.UTF_8);
        }

        /** Standard output lines so far. */
        List<String> lines() throws IOException {
            return Arrays.asList(stdout().split("\\R"));
        }

        /**
         * Waits (polling the output file, at most {@code timeoutSeconds}) for a line starting with
         * {@code prefix}; returns its first such line. Fails with the JVM's output if none comes,
         * or if the JVM ends first.
         */
        String awaitLine(String prefix, long timeoutSeconds) throws IOException, InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
            while (true) {
                for (String l : lines()) {
                    if (l.startsWith(prefix)) {
                        return l;
                    }
                }
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    fail("no line '" + prefix + "...' " + (process.isAlive() ? "within " + timeoutSeconds + " s"
                            : "before the JVM ended") + ": " + command + "\n" + snapshot());
                }
                process.waitFor(25, TimeUnit.MILLISECONDS); // wakes at once if the JVM ends
            }
        }

        private String snapshot() throws IOException {
            return "--- stdout\n" + stdout() + "\n--- stderr\n" + stderr();
        }

        /**
         * Closes standard input and waits (at most {@code timeoutSeconds}) for the JVM to end;
         * fails on a hang (after killing it).
         */
        Result stop(long timeoutSeconds) throws IOException, InterruptedException {
            if (result == null) {
                process.getOutputStream().close();
                if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                    fail("the JVM did not end within " + timeoutSeconds + " s of its input closing: " + command
                            + "\n" + snapshot());
                }
                result = new Result(process.exitValue(), stdout(), stderr());
            }
            return result;
        }

        /** Kills the JVM if it still runs, and removes its output files. */
        @Override
        public void close() throws IOException {
            if (process.isAlive()) {
                try {
                    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    /** Lines of a JDK 24+ warning about a {@code sun.misc.Unsafe} memory-access call. */
    static List<String> unsafeWarnings(Result r) {
        return r.err().stream().filter(l -> l.contains("Unsafe")).collect(Collectors.toList());
    }

    /**
     * On JDK 25: no {@code sun.misc.Unsafe} warning may come from the agent. The engine's own JCTools queues are checked by
     * {@code UnsafeWarningIT}, which names the engine change they need.
     */
    void assertNoAgentUnsafeWarning(Result r) {
        if (!isJdk25()) {
            return;
        }
        List<String> notEngine = unsafeWarnings(r).stream()
                .filter(l -> l.contains("has been called by") && !l.contains("org.jctools"))
                .collect(Collectors.toList());
        assertTrue(notEngine.isEmpty(), "Unsafe warnings from the agent on JDK 25: " + notEngine + "\n" + r);
    }
}
