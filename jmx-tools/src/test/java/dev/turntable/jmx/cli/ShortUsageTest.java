package dev.turntable.jmx.cli;

import static dev.turntable.jmx.cli.JmxFixture.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * What a command line with a wrong option is told: one line naming the option and the options
 * that command takes, then a short usage with that command's lines and each of its options.
 * Nothing is connected to: these fail before any JVM is looked for.
 */
class ShortUsageTest {

    private static JmxFixture.Result usageError(String... args) {
        JmxFixture.Result r = run(new TurntablectlTest.FakeJvms(), false, Map.of(), args);
        assertEquals(2, r.code, r::toString);
        assertEquals("", r.out, r::toString);
        return r;
    }

    /** The line of the short usage that lists the options of {@code command}, as a usage writes them. */
    private static String optionsLine(JmxFixture.Result r, String command) {
        String head = "options of " + command + ": ";
        List<String> lines = r.err.lines().filter(l -> l.startsWith(head)).collect(Collectors.toList());
        assertEquals(1, lines.size(), "the short usage lists the options of " + command + "\n" + r);
        return lines.get(0).substring(head.length());
    }

    @Test
    void anUnknownOptionOnAPoolCommandListsTheOptionsThatCommandTakes() {
        JmxFixture.Result r = usageError("pools", "--verbose");
        assertEquals("turntablectl: unknown option '--verbose'; options of pools: --pid, --url, --json, --help",
                r.err.lines().findFirst().orElse(""), r::toString);
        assertEquals("--pid <pid>, --url <jmx-service-url>, --json, --help", optionsLine(r, "pools"), r::toString);
        assertTrue(r.err.contains("  pools                           pools: name, managed, strategy"), r::toString);
        assertTrue(r.err.contains("(turntablectl --help: every command, option and exit code)"), r::toString);
    }

    @Test
    void watchListsItsIntervalAndCountAndStaysShort() {
        JmxFixture.Result r = usageError("--url", "127.0.0.1:9010", "watch", "orders", "--frob");
        assertEquals("turntablectl: unknown option '--frob'; options of watch: --pid, --url, --json, --interval,"
                + " --count, --help", r.err.lines().findFirst().orElse(""), r::toString);
        assertEquals("--pid <pid>, --url <jmx-service-url>, --json, --interval <ms>, --count <n>, --help",
                optionsLine(r, "watch"), r::toString);
        assertTrue(r.err.lines().count() <= 8, "the line that says what was wrong is not buried\n" + r);
    }

    /** attach and jvms work on local JVMs themselves: no --pid or --url is offered to them. */
    @Test
    void attachAndJvmsListOnlyTheOptionsTheyTake() {
        JmxFixture.Result attach = usageError("attach", "4242", "--pdi", "1");
        assertEquals("turntablectl: unknown option '--pdi'; options of attach: --json, --agent, --help",
                attach.err.lines().findFirst().orElse(""), attach::toString);
        assertEquals("--json, --agent <path>, --help", optionsLine(attach, "attach"), attach::toString);

        JmxFixture.Result jvms = usageError("jvms", "--all");
        assertEquals("--json, --help", optionsLine(jvms, "jvms"), jvms::toString);
    }

    /** An option that belongs to another command: the usage shows what this one takes instead. */
    @Test
    void anOptionOfAnotherCommandShowsThisCommandsOptions() {
        JmxFixture.Result r = usageError("--url", "127.0.0.1:9010", "get", "orders", "Strategy", "--count", "2");
        assertTrue(r.err.startsWith("turntablectl: --interval and --count belong to watch, not get"), r::toString);
        assertEquals("--pid <pid>, --url <jmx-service-url>, --json, --help", optionsLine(r, "get"), r::toString);
    }

    /** Without a command, the option line and the usage list every option and every command. */
    @Test
    void withoutACommandEveryOptionIsListed() {
        JmxFixture.Result r = usageError("--verbose");
        assertEquals("turntablectl: unknown option '--verbose'; options: --pid, --url, --json, --interval, --count,"
                + " --agent, --help", r.err.lines().findFirst().orElse(""), r::toString);
        assertTrue(r.err.contains("commands: jvms, attach, pools"), r::toString);
        assertTrue(r.err.contains("\noptions: --pid <pid>, --url <jmx-service-url>, --json, --interval <ms>,"
                + " --count <n>, --agent <path>, --help"), r::toString);
    }

    /** The full help describes every option, the ones of one command too. */
    @Test
    void theHelpDescribesEveryOption() {
        JmxFixture.Result r = run(new TurntablectlTest.FakeJvms(), false, Map.of(), "--help");
        assertEquals(0, r.code, r::toString);
        for (String option : List.of("--pid <pid>", "--url <url>", "--json", "--interval <ms>", "--count <n>",
                "--agent <path>")) {
            assertTrue(r.out.lines().anyMatch(l -> l.startsWith("  " + option + " ")), option + "\n" + r);
        }
    }
}
