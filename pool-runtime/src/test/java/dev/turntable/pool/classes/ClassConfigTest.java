package dev.turntable.pool.classes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ClassConfigTest {

    private static final ClassConfig ISSUE =
            ClassConfig.parse("interactive:75;batch:25", "http-.*:interactive;report-.*:batch");

    @Test
    void issueExampleParsesIntoPlannerOrderWithItsPercents() {
        assertEquals(List.of("interactive", "batch"), ISSUE.classNames());
        assertEquals(Map.of("interactive", 75, "batch", 25), ISSUE.normalisedPercents());
        assertEquals(75, ISSUE.normalisedPercent(ISSUE.classIndex("interactive")));
        assertEquals(-1, ISSUE.classIndex("nope"));
        assertFalse(ISSUE.rebalancingEnabled());
    }

    @Test
    void requestorsMapByFullMatchInTheOrderGiven() {
        assertEquals("interactive", ISSUE.classFor("http-42"));
        assertEquals("batch", ISSUE.classFor("report-monthly"));
        // full match: a requestor merely containing "http-" is not matched by http-.*
        assertEquals("batch", ISSUE.classFor("xhttp-1"));
        ClassConfig overlapping = ClassConfig.parse("a:50;b:50", "job-1.*:b;job-.*:a");
        assertEquals("b", overlapping.classFor("job-17"), "first entry given wins");
        assertEquals("a", overlapping.classFor("job-27"));
    }

    @Test
    void unmatchedRequestorGoesToTheSmallestClassTiesByName() {
        ClassConfig c = ClassConfig.parse("big:60;zeta:20;alpha:20", "http-.*:big");
        assertEquals("alpha", c.classFor("cron"));
        assertEquals("alpha", c.classFor(null), "null is read as the empty requestor");
        assertEquals("big", c.classFor("http-1"));
        // a:1;b:1;c:1 normalises to a=34, b=33, c=33: smallest are b and c, b by name
        assertEquals("b", ClassConfig.parse("a:1;b:1;c:1", "x:a").classFor("y"));
        // the smallest class may be at 0%: such requestors then never start (documented)
        assertEquals("idle", ClassConfig.parse("work:100;idle:0", "w.*:work").classFor("other"));
    }

    @Test
    void sharesNotSummingTo100AreNormalisedWithTheRestToTheLargest() {
        assertEquals(Map.of("interactive", 75, "batch", 25), ClassConfig.parse("interactive:3;batch:1", ".*:batch")
                .normalisedPercents());
        ClassConfig thirds = ClassConfig.parse("c:1;b:1;a:1", ".*:a");
        assertEquals(List.of("a", "b", "c"), thirds.classNames(), "equal shares ordered by name");
        assertEquals(List.of(34, 33, 33), List.copyOf(thirds.normalisedPercents().values()));
        ClassConfig over = ClassConfig.parse("x:120;y:60;z:20", ".*:x");
        assertEquals(List.of(60, 30, 10), List.copyOf(over.normalisedPercents().values()));
        assertEquals(Map.of("z", 20, "x", 120, "y", 60), over.configuredShares());
    }

    @Test
    void allSharesZeroButOneGivesThatClassEverything() {
        ClassConfig c = ClassConfig.parse("a:0;b:7;c:0", ".*:b");
        assertEquals(List.of("b", "a", "c"), c.classNames());
        assertEquals(List.of(100, 0, 0), List.copyOf(c.normalisedPercents().values()));
    }

    @Test
    void textFormsRoundTripThroughTheParser() {
        ClassConfig c = ClassConfig.parse(" batch : 25 ; interactive:75; ", "http-.*:interactive; a:b\\d+ : batch;",
                20, TimeUnit.SECONDS.toNanos(30));
        assertEquals("batch:25;interactive:75", c.classLoadPercentsText());
        assertEquals("http-.*:interactive;a:b\\d+:batch", c.requestorMapText());
        assertEquals("batch", c.classFor("a:b12"), "a regex may contain ':' (split at the last one)");
        ClassConfig back = ClassConfig.parse(c.classLoadPercentsText(), c.requestorMapText(), 20,
                TimeUnit.SECONDS.toNanos(30));
        assertEquals(c, back);
        assertEquals(c.hashCode(), back.hashCode());
        assertTrue(c.toString().contains("class-load-percents=batch:25;interactive:75"), c.toString());
        assertTrue(c.toString().contains("requestor-map=http-.*:interactive;a:b\\d+:batch"), c.toString());
        assertEquals(c.withRebalancing(0, 0), ClassConfig.parse("batch:25;interactive:75",
                "http-.*:interactive;a:b\\d+:batch", 0, 0));
    }

    @Test
    void defaultsAreScootsSingleClass() {
        ClassConfig d = ClassConfig.defaults();
        assertEquals(Map.of("c0", 100), d.normalisedPercents());
        assertEquals("c0", d.classFor(""));
        assertEquals(0, d.rebalanceThresholdPercent());
        assertEquals(TimeUnit.MINUTES.toNanos(4), d.rebalanceMinimumDurationNanos());
    }

    @ParameterizedTest(name = "[{index}] {0} / {1}")
    @CsvSource(delimiter = '|', value = {
            "''                 | .*:a       | class-load-percents '' is empty",
            "' ; '              | .*:a       | at least one entry",
            "a50                | .*:a       | has no ':'",
            "a:-1               | .*:a       | share '-1' of class 'a' is not allowed: an integer from 0 to 1000000",
            "a:lots             | .*:a       | share 'lots' of class 'a'",
            "a:+5;b:5           | .*:a       | share '+5' of class 'a' is not allowed: an integer from 0 to 1000000",
            "a:\u0665;b:5       | .*:a       | share '\u0665' of class 'a' is not allowed",
            "a:1000001          | .*:a       | share '1000001'",
            "a:50;a:50          | .*:a       | names class 'a' twice",
            "a b:50             | .*:a b     | class name 'a b'; a class name is one or more of A-Z a-z 0-9 . _ -",
            ":50                | .*:a       | class name ''",
            "a:0;b:0            | .*:a       | gives every class 0",
            "a:1000;b:1         | .*:a       | share 1 of class 'b' is below 1% of the total 1001",
            "a:50;b:50          | .*:c       | names class 'c', which is not in class-load-percents; allowed: [a, b]",
            "a:50;b:50          | .*         | requestor-map entry '.*' has no ':'",
            "a:50;b:50          | (http:a    | requestor-map regex '(http' is not a valid java.util.regex pattern: Unclosed group",
            "a:50;b:50          | x:a; x :b  | requestor-map names regex 'x' twice",
    })
    void badTextIsRejectedNamingTheValueAndWhatIsAllowed(String shares, String map, String expected) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ClassConfig.parse(shares, map));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    @Test
    void anEmptyRequestorMapSendsEveryRequestorToTheSmallestClass() {
        ClassConfig c = ClassConfig.parse("interactive:75;batch:25", "");
        assertEquals("batch", c.classFor("http-1"));
        assertEquals("", c.requestorMapText());
        assertEquals("batch", ClassConfig.parse("interactive:75;batch:25", null).classFor("x"));
    }

    @Test
    void badRebalanceSettingsAreRejected() {
        IllegalArgumentException t = assertThrows(IllegalArgumentException.class,
                () -> ClassConfig.parse("a:1", ".*:a", -1, 0));
        assertTrue(t.getMessage().contains("rebalance threshold -1"), t.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ClassConfig.parse("a:1", ".*:a", 201, 0));
        IllegalArgumentException d = assertThrows(IllegalArgumentException.class,
                () -> ClassConfig.parse("a:1", ".*:a", 10, -5));
        assertTrue(d.getMessage().contains("rebalance minimum duration -5 ns"), d.getMessage());
        assertTrue(ClassConfig.parse("a:1", ".*:a", 200, 0).rebalancingEnabled());
    }

    @Test
    void semicolonInARegexIsWrittenAsAnEscape() {
        ClassConfig c = ClassConfig.parse("a:60;b:40", "x\\x3By:a");
        assertEquals("a", c.classFor("x;y"));
        assertEquals("b", c.classFor("x"));
    }
}
