package dev.turntable.agent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class OptionsParserTest {

    static Properties props(String... kv) {
        Properties p = new Properties();
        for (int i = 0; i < kv.length; i += 2) {
            p.setProperty(kv[i], kv[i + 1]);
        }
        return p;
    }

    static OptionsParser.Result parse(String args, Properties system, Properties file) {
        return OptionsParser.parse(args, system, path -> {
            if (file == null) {
                throw new NoSuchFileException(path);
            }
            return file;
        });
    }

    @Test
    void defaultsAreTheContracts() {
        OptionsParser.Result r = parse(null, props(), null);
        assertEquals(List.of(), r.messages());
        assertFalse(r.untouched());
        Options o = r.options();
        assertEquals("*", Options.text(OptionKey.INCLUDE, o.include()));
        assertEquals(List.of(), o.exclude());
        assertEquals("LEAST_USED", o.strategy());
        assertEquals("RUN_TIME", o.measurement());
        assertFalse(o.median());
        assertNull(o.weights());
        assertTrue(o.taskStealing());
        assertTrue(o.jmx());
        assertEquals(0, o.get(OptionKey.MAX_LIFETIME_TASKS));
        assertEquals(0, o.get(OptionKey.MAX_CONCURRENT_TASKS));
        assertEquals(60000L, o.get(OptionKey.HEARTBEAT_TIMEOUT_MS));
        assertEquals(5000L, o.get(OptionKey.WORKER_SELECT_TIMEOUT_MS));
        assertEquals("", o.get(OptionKey.CLASS_LOAD_PERCENTS));
        assertFalse(o.taskClasses(), "task classes are off by default");
        assertEquals("", o.get(OptionKey.REQUESTOR_MAP));
        assertEquals("THREAD_NAME", o.get(OptionKey.REQUESTOR));
        assertEquals(0, o.get(OptionKey.REBALANCE_THRESHOLD));
        assertEquals(240000L, o.get(OptionKey.REBALANCE_MIN_DURATION_MS));
    }

    @Test
    void agentOptionsBeatSystemPropertiesBeatTheConfigFileBeatDefaults() {
        Properties file = props("strategy", "ROUND_ROBIN", "measurement", "CPU_TIME", "median", "true");
        Properties system = props("turntable.strategy", "FAIR_SHARE", "turntable.measurement", "WAIT_TIME",
                "turntable.config", "/etc/turntable.properties");
        OptionsParser.Result r = parse("strategy=least-busy", system, file);
        assertEquals(List.of(), r.messages());
        assertEquals("LEAST_BUSY", r.options().strategy());
        assertEquals("WAIT_TIME", r.options().measurement());
        assertTrue(r.options().median());
        assertTrue(r.options().taskStealing());
    }

    @Test
    void theConfigFileComesFromTheAgentOptionBeforeTheSystemProperty() {
        String[] asked = new String[1];
        OptionsParser.parse("config=/a.properties", props("turntable.config", "/b.properties"), path -> {
            asked[0] = path;
            return props();
        });
        assertEquals("/a.properties", asked[0]);
    }

    @Test
    void listsAndMapsUseSemicolonsAndColons() {
        OptionsParser.Result r = parse("include=Orders*;Report?.start,exclude=*.tmp,weights=500;500;250,"
                + "class-load-percents=interactive:70;batch:30,requestor-map=http-.*:interactive;report-.*:batch", props(), null);
        Options o = r.options();
        assertEquals("Orders*;Report?.start", Options.text(OptionKey.INCLUDE, o.include()));
        assertEquals("*.tmp", Options.text(OptionKey.EXCLUDE, o.exclude()));
        assertArrayEquals(new long[] {500, 500, 250}, o.weights());
        // One ';' at the end of a list is a slip, not a problem: in include it left the whole application untouched.
        Options trailing = parse("include=Orders*;,weights=500;250;", props(), null).options();
        assertEquals("Orders*", Options.text(OptionKey.INCLUDE, trailing.include()));
        assertArrayEquals(new long[] {500, 250}, trailing.weights());
        assertEquals("interactive:70;batch:30", o.classLoadPercents());
        assertEquals("http-.*:interactive;report-.*:batch", o.requestorMap());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "strategy|FASTEST|one of ROUND_ROBIN, LEAST_USED, LEAST_BUSY|using the default LEAST_USED",
        "measurement|WALL|one of RUN_TIME, WAIT_TIME, CPU_TIME|using the default RUN_TIME",
        "median|yes|true or false|using the default false",
        "task-stealing|1|true or false|using the default true",
        "jmx|on|true or false|using the default true",
        "weights|500;0|worker weights in ms from 1 to 60000|using the default (derived from the CPUs)",
        "weights|500;;250|worker weights in ms|using the default (derived from the CPUs)",
        "weights|60001|worker weights in ms|using the default (derived from the CPUs)",
        "max-lifetime-tasks|-1|an integer from 0 (off)|using the default 0",
        "max-concurrent-tasks|many|an integer from 0 (no limit)|using the default 0",
        "heartbeat-timeout-ms|-1|milliseconds from 0 (off)|using the default 60000",
        "worker-select-timeout-ms|-5|milliseconds from 0|using the default 5000",
        "heartbeat-timeout-ms|9223372036854775807|milliseconds from 0 (off) to 9223372036854|using the default 60000",
        "worker-select-timeout-ms|9223372036855|milliseconds from 0 to 9223372036854|using the default 5000",
        "class-load-percents|a:-1|share '-1' of class 'a' is not allowed: an integer from 0 to 1000000; allowed: class:share|task classes stay off",
        "class-load-percents|a:1000001|shares from 0 to 1000000|task classes stay off",
        "class-load-percents|interactive|entry 'interactive' has no ':'|task classes stay off",
        "class-load-percents|a:50;a:50|names class 'a' twice|task classes stay off",
        "class-load-percents|a b:1|class name 'a b'|task classes stay off",
        "class-load-percents|a:0;b:0|gives every class 0|task classes stay off",
        "class-load-percents|a:1000;b:1|below 1% of the total|task classes stay off",
        "requestor-map|http-(.*:interactive|regex 'http-(.*' is not a valid java.util.regex pattern|task classes stay off",
        "requestor-map|nocolon|entry 'nocolon' has no ':'|task classes stay off",
        "requestor-map|x-.*:a b|class name 'a b'|task classes stay off",
        "requestor|THREAD|one of THREAD_NAME, TASK_CLASS, POOL_NAME|task classes stay off",
        "rebalance-threshold|201|percentage points from 0 (off) to 200|task classes stay off",
        "rebalance-threshold|-1|percentage points from 0 (off) to 200|task classes stay off",
        "rebalance-min-duration-ms|soon|milliseconds from 0|task classes stay off",
        "rebalance-min-duration-ms|9223372036855|milliseconds from 0 to 9223372036854|task classes stay off",
        "include|Orders pool|globs over pool names|leaving the application untouched",
        "exclude|a;;b|globs over pool names|leaving the application untouched",
    })
    void aBadValueGivesOneLineNamingKeyValueAndWhatIsAllowed(String key, String value, String allowed, String then) {
        OptionsParser.Result r = parse(key + "=" + value, props(), null);
        List<String> bad = r.messages().stream().filter(m -> m.startsWith("option " + key + "=")).collect(Collectors.toList());
        assertEquals(1, bad.size(), r.messages().toString());
        String line = bad.get(0);
        assertTrue(line.startsWith("option " + key + "=" + value + " is not allowed: "), line);
        assertTrue(line.contains(allowed), line);
        assertTrue(line.endsWith(then), line);
        assertEquals(then.contains("untouched"), r.untouched(), line);
        assertTrue(r.options().isDefault(OptionKey.byKey(key)), "the bad key keeps its default");
    }

    @Test
    void aBadSystemPropertyNamesItsSource() {
        OptionsParser.Result r = parse(null, props("turntable.strategy", "x"), null);
        assertEquals(List.of("option strategy=x (system property turntable.strategy) is not allowed: one of "
                + "ROUND_ROBIN, LEAST_USED, LEAST_BUSY, LEAST_CPU, FAIR_SHARE, WEIGHTED_ROUND_ROBIN, "
                + "INTERLEAVED_WEIGHTED_ROUND_ROBIN, LIFETIME_FIRST; using the default LEAST_USED"), r.messages());
    }

    @Test
    void unknownKeysAreReportedOnceWithTheirValueAndSourceAndIgnored() {
        OptionsParser.Result r = parse("strategi=ROUND_ROBIN,config=/t.properties", props("turntable.spins", "5"), props("colour", "blue"));
        List<String> m = r.messages();
        assertEquals(3, m.size(), m.toString());
        assertTrue(m.get(0).startsWith("unknown option strategi=ROUND_ROBIN ignored; known: include, exclude, strategy"), m.get(0));
        // A typo in a -D is as easy to make as one in the agent's options, and was silent. Its value
        // is not printed: a turntable.* property may be another program's, holding anything.
        assertTrue(m.get(1).startsWith("unknown option spins (system property turntable.spins) ignored; known: "), m.get(1));
        assertTrue(m.get(2).startsWith("unknown option colour=blue (config file) ignored"), m.get(2));
        assertFalse(r.untouched());
        assertEquals("LEAST_USED", r.options().strategy());
    }

    @Test
    void systemPropertyKeysAreReadInAnyCaseAsTheOtherSourcesAre() {
        OptionsParser.Result r = parse(null, props("turntable.STRATEGY", "ROUND_ROBIN", "Turntable.Median", "true"), null);
        assertEquals(List.of(), r.messages());
        assertEquals("ROUND_ROBIN", r.options().strategy());
        assertEquals(Boolean.TRUE, r.options().get(OptionKey.MEDIAN));
    }

    @Test
    void onceAProblemLeavesTheApplicationUntouchedNoLineClaimsADefaultIsUsed() {
        OptionsParser.Result r = parse("include=[,strategy=foo,median=yes", props(), null);
        assertTrue(r.untouched());
        List<String> m = r.messages();
        assertEquals(3, m.size(), m.toString());
        assertTrue(m.get(0).startsWith("option include=[ is not allowed") && m.get(0).endsWith("; leaving the application untouched"), m.get(0));
        assertTrue(m.get(1).startsWith("option strategy=foo is not allowed: one of ROUND_ROBIN"), m.get(1));
        assertTrue(m.get(2).startsWith("option median=yes is not allowed"), m.get(2));
        for (String line : m.subList(1, 3)) {
            assertFalse(line.contains("using the default"), line);
        }
        // Without the include problem, the same two say what happens instead.
        OptionsParser.Result alone = parse("strategy=foo", props(), null);
        assertTrue(alone.messages().get(0).endsWith("; using the default LEAST_USED"), alone.messages().get(0));
    }

    @Test
    void aBadValueOverriddenByAHigherSourceIsStillReported() {
        OptionsParser.Result r = parse("strategy=ROUND_ROBIN,config=/t.properties", props("turntable.strategy", "bad"),
                props("strategy", "worse", "median", "true"));
        assertEquals("ROUND_ROBIN", r.options().strategy());
        assertFalse(r.untouched());
        List<String> m = r.messages();
        assertEquals(2, m.size(), m.toString());
        assertTrue(m.get(0).startsWith("option strategy=bad (system property turntable.strategy) is not allowed: one of"), m.get(0));
        assertTrue(m.get(0).endsWith("; not used, strategy=ROUND_ROBIN takes precedence"), m.get(0));
        assertTrue(m.get(1).startsWith("option strategy=worse (config file) is not allowed"), m.get(1));
        assertEquals(Boolean.TRUE, r.options().get(OptionKey.MEDIAN), "good values of a lower source still apply");
    }

    @Test
    void aClientChecksTheOptionsItWouldAttachWithButNotTheTargetsConfigFile() {
        List<String> p = OptionsCheck.problems("strategy=NOPE,foo=1,max-lifetime-tasks=-1");
        assertEquals(3, p.size(), p.toString());
        assertTrue(p.get(0).startsWith("unknown option foo=1; known: include"), "refused, not ignored: " + p.get(0));
        assertTrue(p.get(1).startsWith("option strategy=NOPE is not allowed: one of ROUND_ROBIN"), p.get(1));
        assertTrue(p.get(2).startsWith("option max-lifetime-tasks=-1 is not allowed"), p.get(2));
        for (String line : p.subList(1, 3)) {
            assertFalse(line.contains("using the default"), "nothing is loaded, so nothing is used: " + line);
        }
        // The file is the target JVM's to read, from its own working directory.
        assertEquals(List.of(), OptionsCheck.problems("strategy=ROUND_ROBIN,config=/only/on/the/target.properties"));
        assertEquals(List.of(), OptionsCheck.problems(null));
    }

    /**
     * {@code turntablectl attach config=FILE} checks the file's keys and values here, with the
     * options given taking precedence, and refuses what the agent would print a line about.
     */
    @Test
    void aClientThatReadsTheConfigFileChecksItsContentsAsTheAgentWould(@TempDir Path dir) throws Exception {
        Path bad = Files.writeString(dir.resolve("bad.properties"), "strategy=BOGUS\nfoo=1\n");
        List<String> p = OptionsCheck.problemsWithConfigFile("config=" + bad);
        assertEquals(2, p.size(), p.toString());
        assertTrue(p.stream().anyMatch(l -> l.startsWith("unknown option foo=1 (config file)")), p.toString());
        assertTrue(p.stream().anyMatch(l -> l.startsWith("option strategy=BOGUS (config file) is not allowed")), p.toString());
        Path good = Files.writeString(dir.resolve("good.properties"), "strategy=ROUND_ROBIN\n");
        assertEquals(List.of(), OptionsCheck.problemsWithConfigFile("median=true,config=" + good));
        List<String> missing = OptionsCheck.problemsWithConfigFile("config=" + dir.resolve("none.properties"));
        assertEquals(1, missing.size(), missing.toString());
        assertTrue(missing.get(0).contains("cannot be read"), missing.get(0));
    }

    @Test
    void aClientDoesNotRefuseWhatDependsOnTheTargetsOwnSettings() {
        // The shares may come from the target's config file or -D: only the target can tell.
        assertEquals(List.of(), OptionsCheck.problems("config=/t.properties,requestor-map=http-.*:interactive"));
        // Both given here: the client can judge them together.
        List<String> p = OptionsCheck.problems("class-load-percents=a:50;b:50,requestor-map=x:zzz");
        assertEquals(1, p.size(), p.toString());
        assertTrue(p.get(0).startsWith("option requestor-map=x:zzz is not allowed"), p.get(0));
        // And the target, which sees them all, still reports what it sees.
        OptionsParser.Result r = parse("requestor-map=http-.*:interactive,config=/t.properties", props(),
                props("class-load-percents", "interactive:70;batch:30"));
        assertEquals(List.of(), r.messages());
        OptionsParser.Result fromFile = parse("config=/t.properties", props(), props("class-load-percents", "a:50;b:50",
                "requestor-map", "x:zzz"));
        assertTrue(fromFile.messages().get(0).startsWith("option requestor-map=x:zzz (config file) is not allowed"),
                fromFile.messages().toString());
    }

    @Test
    void anAttachIdIsNoOptionAndOnlyAnIdIsTakenForOne() {
        OptionsParser.Result r = parse("strategy=ROUND_ROBIN,attach-id=5f3a", props(), null);
        assertEquals(List.of(), r.messages(), "not reported as unknown");
        assertEquals("5f3a", OptionsParser.attachId("strategy=ROUND_ROBIN,attach-id=5f3a"));
        assertNull(OptionsParser.attachId("strategy=ROUND_ROBIN"));
        assertNull(OptionsParser.attachId("attach-id=not hex"), "nothing a client could not have sent");
        assertNull(OptionsParser.attachId(null));
    }

    @Test
    void aPoolNameKeyKeepsTheCaseOfItsGlob() {
        OptionsParser.Result r = parse("Pool.OrderService.*.Name=orders", props(), null);
        assertEquals(List.of(), r.messages());
        assertEquals(1, r.options().poolNames().size());
        assertEquals("orders", r.options().poolNames().get(0).name());
        assertTrue(r.options().poolNames().get(0).site().matches("OrderService.start"), "the glob as written");
    }

    @Test
    void aConfigFileIsReadPastAByteOrderMarkAndReportedInTheOrderOfItsLines(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws IOException {
        java.nio.file.Path file = dir.resolve("turntable.properties");
        byte[] bom = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};
        byte[] body = "strategy=ROUND_ROBIN\nzebra=1\nthis is not an option\napple=2\n".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        byte[] all = new byte[bom.length + body.length];
        System.arraycopy(bom, 0, all, 0, bom.length);
        System.arraycopy(body, 0, all, bom.length, body.length);
        java.nio.file.Files.write(file, all);
        OptionsParser.Result r = OptionsParser.parse("config=" + file, props());
        assertEquals("ROUND_ROBIN", r.options().strategy(), "the first key is not hidden behind the mark");
        List<String> m = r.messages();
        assertEquals(3, m.size(), m.toString());
        assertTrue(m.get(0).startsWith("unknown option zebra=1 (config file)"), m.toString());
        assertTrue(m.get(1).startsWith("unknown option this=is not an option (config file)"), m.toString());
        assertTrue(m.get(2).startsWith("unknown option apple=2 (config file)"), m.toString());
    }

    @Test
    void anItemThatIsNotKeyValueLeavesTheApplicationUntouched() {
        OptionsParser.Result r = parse("exclude=A,B", props(), null);
        assertTrue(r.untouched());
        assertEquals(1, r.messages().size());
        assertTrue(r.messages().get(0).startsWith("option 'B' is not key=value"), r.messages().get(0));

        // A regex's ',' splits the options: the line says how to write a literal one, and so written it works.
        r = parse("class-load-percents=a:50;b:50,requestor-map=x{1,3}:a", props(), null);
        assertTrue(r.untouched());
        assertTrue(r.messages().get(0).startsWith("option '3}:a' is not key=value (options are separated by ',',"
                + " list entries inside a value by ';'; in a regex, write a literal ',' or ';' as \\x2C or \\x3B)"), r.messages()::toString);
        r = parse("class-load-percents=a:50;b:50,requestor-map=x\\x2Cy:a", props(), null);
        assertEquals(List.of(), r.messages());
        assertTrue(r.options().taskClasses());
    }

    @Test
    void anUnreadableConfigFileLeavesTheApplicationUntouched() {
        OptionsParser.Result r = OptionsParser.parse("config=/nope.properties", props(), path -> {
            throw new IOException("denied");
        });
        assertTrue(r.untouched());
        assertEquals(1, r.messages().size());
        String m = r.messages().get(0);
        assertTrue(m.startsWith("option config=/nope.properties cannot be read (java.io.IOException: denied)"), m);
        assertTrue(m.endsWith("leaving the application untouched"), m);
    }

    @Test
    void taskClassOptionsTakeTheEnginesFormAndShowTheNormalisedShares() {
        OptionsParser.Result r = parse("class-load-percents= interactive:3 ; batch:1 ;,requestor-map=interactive-.*:interactive;"
                + "batch-.*:batch,requestor=pool-name,rebalance-threshold=200,rebalance-min-duration-ms=0", props(), null);
        assertEquals(List.of(), r.messages(), "valid values: nothing to say");
        Options o = r.options();
        assertTrue(o.taskClasses());
        assertEquals("interactive:3;batch:1", o.classLoadPercents());
        assertEquals("interactive-.*:interactive;batch-.*:batch", o.requestorMap());
        assertEquals("POOL_NAME", o.requestor());
        assertEquals(200, o.rebalanceThreshold(), "the engine's upper bound");
        assertEquals(0L, o.rebalanceMinDurationMillis());
        String text = o.text();
        assertTrue(text.contains("class-load-percents=interactive:3;batch:1 (normalised: interactive:75;batch:25)\n"), text);
        assertTrue(text.contains("requestor-map=interactive-.*:interactive;batch-.*:batch\n"), text);
        assertTrue(text.contains("requestor=POOL_NAME\n") && text.contains("rebalance-threshold=200\n"), text);
        assertTrue(parse("class-load-percents=a:70;b:30", props(), null).options().text()
                .contains("class-load-percents=a:70;b:30\n"), "no note when the shares are percents already");
        Options empty = parse("class-load-percents=a:1,requestor-map=", props(), null).options();
        assertTrue(empty.taskClasses());
        assertEquals("", empty.requestorMap(), "an empty map is allowed: every task goes to the smallest class");
    }

    @Test
    void aRequestorMapNamingAClassTheSharesDoNotLeavesTaskClassesOff() {
        OptionsParser.Result r = parse("class-load-percents=a:1,requestor-map=x-.*:b", props(), null);
        assertEquals(List.of("option requestor-map=x-.*:b is not allowed: requestor-map entry 'x-.*:b' names class 'b',"
                + " which is not in class-load-percents; allowed: [a]; task classes stay off"), r.messages());
        assertFalse(r.untouched());
        assertFalse(r.options().taskClasses());
        assertTrue(r.options().text().contains(
                "class-load-percents= (task classes stay off: a task-class option was not allowed)\n"), r.options().text());
    }

    @Test
    void aBadValueOfAnyTaskClassKeyLeavesThemAllOffAndTheRestAsItIs() {
        OptionsParser.Result r = parse("class-load-percents=a:1;b:1,requestor-map=x:a,strategy=ROUND_ROBIN",
                props("turntable.rebalance-threshold", "500"), null);
        assertEquals(1, r.messages().size(), r.messages().toString());
        assertEquals("option rebalance-threshold=500 (system property turntable.rebalance-threshold) is not allowed:"
                + " percentage points from 0 (off) to 200; task classes stay off", r.messages().get(0));
        assertFalse(r.untouched(), "the application still runs under Turntable");
        assertFalse(r.options().taskClasses());
        assertEquals("", r.options().requestorMap());
        assertEquals("ROUND_ROBIN", r.options().strategy());
    }

    @Test
    void aRequestorMapWithoutSharesSaysItHasNoEffect() {
        OptionsParser.Result r = parse("requestor-map=http-.*:web", props(), null);
        assertEquals(List.of("option requestor-map=http-.*:web has no effect without class-load-percents;"
                + " task classes are off"), r.messages());
        assertFalse(r.options().taskClasses());
    }

    @Test
    void workerRetirementOptionsAreImplemented() {
        OptionsParser.Result r = parse("max-lifetime-tasks=100,max-concurrent-tasks=3,heartbeat-timeout-ms=0,"
                + "worker-select-timeout-ms=250", props(), null);
        assertEquals(List.of(), r.messages(), "valid values: nothing to say");
        Options o = r.options();
        assertEquals(100, o.maxLifetimeTasks());
        assertEquals(3, o.maxConcurrentTasks());
        assertEquals(0L, o.heartbeatTimeoutMillis(), "0 turns heartbeats off, as in the engine and JMX");
        assertEquals(250L, o.workerSelectTimeoutMillis());
        String text = o.text();
        assertTrue(text.contains("max-lifetime-tasks=100\n"), text);
        assertTrue(o.text(Map.of(OptionKey.MAX_LIFETIME_TASKS, "stays 0")).contains("max-lifetime-tasks=100 (stays 0)\n"));
    }

    @Test
    void poolNamesComeFromAnySourceAndBadOnesAreIgnored() {
        OptionsParser.Result r = parse("pool.*Report*.name=reports", props("turntable.pool.com.acme.Orders.start.name", "orders",
                "turntable.config", "/t.properties"), props("pool.*Bad*.name", "no spaces allowed"));
        assertEquals(2, r.options().poolNames().size());
        assertEquals(1, r.messages().size());
        assertTrue(r.messages().get(0).startsWith("option pool.*Bad*.name=no spaces allowed is not allowed"), r.messages().get(0));
        assertTrue(r.messages().get(0).endsWith("using the default name"));
        assertFalse(r.untouched());
    }

    @Test
    void aConfiguredNameMayNotLookNumbered() {
        assertTrue(OptionsParser.validPoolName("orders"));
        assertTrue(OptionsParser.validPoolName("orders-eu.v2"));
        assertTrue(OptionsParser.validPoolName("pool2"));
        assertFalse(OptionsParser.validPoolName("orders-2"));
        assertFalse(OptionsParser.validPoolName("orders 2"));
        assertFalse(OptionsParser.validPoolName(""));
    }

    @Test
    void keysAreCaseInsensitiveAndValuesTrimmed() {
        OptionsParser.Result r = parse(" Strategy = round-robin , TASK-STEALING=FALSE ", props(), null);
        assertEquals(List.of(), r.messages());
        assertEquals("ROUND_ROBIN", r.options().strategy());
        assertFalse(r.options().taskStealing());
    }

    @Test
    void textListsEveryKeyInContractOrder() {
        String text = parse("exclude=a;b", props(), null).options().text();
        List<String> keys = text.lines().map(l -> l.substring(0, l.indexOf('='))).collect(Collectors.toList());
        assertEquals(OptionKey.keys(), keys);
        assertTrue(text.contains("exclude=a;b\n"), text);
        assertTrue(text.contains("weights= (derived from the CPUs)"), text);
    }

    // ------------------------------------------------------------------ a key given twice, empty values, digits

    /**
     * An empty {@code include} (an unset variable in a launch script, most likely) would take
     * over nothing without a word, and an empty {@code config} would drop the file meant: both
     * are refused with a line. A config file naming another is told it is not read.
     */
    @Test
    void anEmptyIncludeOrConfigIsRefusedAndAConfigFileCannotNameAnother() {
        OptionsParser.Result r = parse("include=", props(), null);
        assertTrue(r.untouched());
        assertEquals(List.of("option include= is not allowed: empty, which would take over no pool; write include=*"
                + " for every pool, or leave include out; allowed: " + OptionKey.INCLUDE.allowed
                + "; leaving the application untouched"), r.messages());
        assertTrue(parse("include=;", props(), null).untouched());
        assertFalse(parse("exclude=", props(), null).untouched(), "an empty exclude excludes nothing, as its default");

        // Overridden, the empty include is not used, and its line says why it is wrong all the same.
        r = parse("include=Orders.*,config=t.properties", props(), props("include", ""));
        assertFalse(r.untouched(), "the agent option's include is used");
        assertEquals("Orders.*", Options.text(OptionKey.INCLUDE, r.options().include()));
        assertEquals(List.of("option include= (config file) is not allowed: empty, which would take over no pool;"
                + " write include=* for every pool, or leave include out; allowed: " + OptionKey.INCLUDE.allowed
                + "; not used, include=Orders.* takes precedence"), r.messages());

        r = parse("config=", props(), null);
        assertTrue(r.untouched());
        assertEquals(List.of("option config= is not allowed: the path of a readable .properties file;"
                + " leaving the application untouched"), r.messages());

        r = parse("config=t.properties", props(), props("config", "other.properties", "median", "true"));
        assertEquals(List.of("option config=other.properties (config file) is not allowed: a config file cannot"
                + " name another; ignored"), r.messages());
        assertTrue(r.options().median());
        assertFalse(r.untouched());
    }

    /** Numbers are ASCII digits: a sign or another script's digit ('\u0665', Arabic-Indic five) is refused. */
    @Test
    void numbersAreAsciiDigitsOnly() {
        for (String v : List.of("+5", "-0", "\u0665", "5\u0665")) {
            OptionsParser.Result r = parse("max-lifetime-tasks=" + v, props(), null);
            assertEquals(List.of("option max-lifetime-tasks=" + v + " is not allowed: "
                    + OptionKey.MAX_LIFETIME_TASKS.allowed + "; using the default 0"), r.messages());
            assertEquals(0, r.options().get(OptionKey.MAX_LIFETIME_TASKS));
            r = parse("class-load-percents=a:" + v + ";b:5", props(), null);
            assertFalse(r.options().taskClasses(), v);
            assertEquals(1, r.messages().size(), r.messages()::toString);
            assertTrue(r.messages().get(0).contains("share '" + v + "' of class 'a' is not allowed"), r.messages()::toString);
        }
        assertEquals(1_000, parse("max-lifetime-tasks=1_000", props(), null).options().get(OptionKey.MAX_LIFETIME_TASKS));
    }
}
