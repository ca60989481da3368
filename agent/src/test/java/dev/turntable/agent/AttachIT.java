package dev.turntable.agent;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Dynamic attach: this test JVM loads the agent into a running child JVM by pid. The pool that
 * existed before is listed as not managed ("created before attach"); the pool created after is
 * managed; the options given at attach apply.
 */
class AttachIT {

    @ParameterizedTest(name = "{0}")
    @MethodSource(ForkedJvm.JDKS)
    void poolsCreatedAfterAttachAreTakenOverAndEarlierOnesListed(ForkedJvm jvm) throws Exception {
        jvm.assumeInstalled();
        Path out = Files.createTempFile("turntable-attach-", ".out");
        Path err = Files.createTempFile("turntable-attach-", ".err");
        Process p = new ProcessBuilder(jvm.command(List.of(), "com.example.apps.AttachTargetApp"))
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> Files.readString(out).contains("READY "));
            String pid = Files.readString(out).split("READY ")[1].trim().split("\\s")[0];
            assertEquals(Long.toString(p.pid()), pid);

            Attach.attach(pid, ForkedJvm.AGENT_JAR, "strategy=ROUND_ROBIN");

            try (OutputStream in = p.getOutputStream()) {
                in.write("go\n".getBytes(StandardCharsets.UTF_8));
            }
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the attached JVM did not finish");
            ForkedJvm.Result r = new ForkedJvm.Result(p.exitValue(), Files.readString(out), Files.readString(err));
            assertEquals(0, r.exitCode, r::toString);
            assertTrue(r.out().contains("SUM 10100"), r::toString);
            assertEquals(List.of("java.util.concurrent.LinkedBlockingQueue"), r.lines("QUEUE before "), r::toString);
            assertEquals(List.of("dev.turntable.pool.TurntableQueue"), r.lines("QUEUE after "), r::toString);
            List<String> pools = r.lines("POOL ");
            assertTrue(pools.contains("ThreadPoolExecutor.beforeAttach|unknown|false|created before attach"), r::toString);
            assertTrue(pools.contains("AttachTargetApp.afterAttach|com.example.apps.AttachTargetApp.afterAttach|true"
                    + "|LinkedBlockingQueue, unbounded"), r::toString);
            assertTrue(r.lines("OPTION ").contains("strategy=ROUND_ROBIN"), r::toString);
            assertEquals(List.of(), r.agentLines(), r::toString);
            jvm.assertNoAgentUnsafeWarning(r);
        } finally {
            p.destroyForcibly();
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
        assertTrue(new File(ForkedJvm.AGENT_JAR.toString()).isFile());
    }
}
