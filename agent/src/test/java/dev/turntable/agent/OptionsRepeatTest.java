package dev.turntable.agent;

import static dev.turntable.agent.OptionsParserTest.parse;
import static dev.turntable.agent.OptionsParserTest.props;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A key given more than once in one source with different values: which was meant is anyone's
 * guess, so each line names every value, in whichever source it is, used or overridden.
 */
class OptionsRepeatTest {

    /**
     * A key given twice with different values is a mistake whichever was meant: one line names
     * both, and the key is handled as a value that is not allowed (the default where that is
     * safe). The same value twice is no mistake. Keys match in any case.
     */
    @Test
    void aKeyGivenTwiceWithDifferentValuesNamesBothAndIsHandledAsNotAllowed() {
        OptionsParser.Result r = parse("strategy=ROUND_ROBIN,STRATEGY=FAIR_SHARE", props(), null);
        assertEquals(List.of("option strategy is given 2 times with different values (strategy=ROUND_ROBIN,"
                + " strategy=FAIR_SHARE), allowed: once; using the default LEAST_USED"), r.messages());
        assertEquals("LEAST_USED", r.options().strategy());
        assertFalse(r.untouched());
        assertEquals(r.messages().size(), r.problems().size(), "a client checking the options refuses them");

        r = parse("strategy=nope,strategy=FAIR_SHARE", props(), null);
        assertEquals(List.of("option strategy is given 2 times with different values (strategy=nope,"
                + " strategy=FAIR_SHARE), allowed: once; using the default LEAST_USED"), r.messages(),
                "the bad value is not hidden behind the good one");

        r = parse("strategy=ROUND_ROBIN,strategy=ROUND_ROBIN,strategy=FAIR_SHARE", props(), null);
        assertEquals(List.of("option strategy is given 3 times with different values (strategy=ROUND_ROBIN,"
                + " strategy=ROUND_ROBIN, strategy=FAIR_SHARE), allowed: once; using the default LEAST_USED"),
                r.messages(), "every value given is named");

        r = parse("strategy=FAIR_SHARE,strategy=FAIR_SHARE", props(), null);
        assertEquals(List.of(), r.messages());
        assertEquals("FAIR_SHARE", r.options().strategy());
        // Values that mean the same once parsed are no mistake either.
        r = parse("strategy=fair_share,strategy=FAIR_SHARE,median=TRUE,median=true,include=Orders.*;Billing.*,"
                + "include=Orders.*; Billing.*", props(), null);
        assertEquals(List.of(), r.messages());
        assertFalse(r.untouched());
        assertEquals("FAIR_SHARE", r.options().strategy());
        assertTrue(r.options().median());

        r = parse("include=Orders.*,include=Billing.*", props(), null);
        assertTrue(r.untouched(), "which pools to take over is not guessed");
        assertEquals(List.of("option include is given 2 times with different values (include=Orders.*,"
                + " include=Billing.*), allowed: once; leaving the application untouched"), r.messages());

        r = parse("class-load-percents=a:50;b:50,requestor-map=a-.*:a,requestor-map=b-.*:b", props(), null);
        assertFalse(r.options().taskClasses());
        assertEquals(List.of("option requestor-map is given 2 times with different values (requestor-map=a-.*:a,"
                + " requestor-map=b-.*:b), allowed: once; task classes stay off"), r.messages());

        r = parse("config=a.properties,config=b.properties", props(), props("strategy", "FAIR_SHARE"));
        assertTrue(r.untouched());
        assertEquals(List.of("option config is given 2 times with different values (config=a.properties,"
                + " config=b.properties), allowed: once; leaving the application untouched"), r.messages());

        r = parse("pool.*Orders.start.name=orders,pool.*Orders.start.name=sales", props(), null);
        assertEquals(List.of(), r.options().poolNames());
        assertEquals(List.of("option pool.*Orders.start.name is given 2 times with different values"
                + " (pool.*Orders.start.name=orders, pool.*Orders.start.name=sales), allowed: once;"
                + " using the default name"), r.messages());
    }

    /** A config file's line that a later line sets again is named too, as the file's. */
    @Test
    void aKeyGivenTwiceInTheConfigFileIsNamedAsTheFiles() throws Exception {
        OptionsParser.OrderedProperties file = new OptionsParser.OrderedProperties();
        file.load(new java.io.StringReader("strategy=ROUND_ROBIN\nmedian=true\nstrategy=FAIR_SHARE\n"));
        OptionsParser.Result r = parse("config=t.properties", props(), file);
        assertEquals(List.of("option strategy (config file) is given 2 times with different values"
                + " (strategy=ROUND_ROBIN, strategy=FAIR_SHARE), allowed: once; using the default LEAST_USED"),
                r.messages());
        assertEquals("LEAST_USED", r.options().strategy());
        assertTrue(r.options().median(), "the file's other lines apply");

        r = parse("config=t.properties,strategy=LEAST_BUSY", props(), file);
        assertEquals("LEAST_BUSY", r.options().strategy(), "the agent option wins");
        assertFalse(r.untouched());
        assertTrue(r.options().median(), "the file's other lines apply");
        // Not used, but the file is still wrong, and will bite once the agent option goes.
        assertEquals(List.of("option strategy (config file) is given 2 times with different values"
                + " (strategy=ROUND_ROBIN, strategy=FAIR_SHARE), allowed: once; not used, strategy=LEAST_BUSY"
                + " takes precedence"), r.messages());
    }

    /**
     * Two spellings of one -D (keys are read in any case) are a key given twice: the line names
     * each property with its value, not one property for both.
     */
    @Test
    void aKeyGivenAsTwoSystemPropertiesNamesBoth() {
        OptionsParser.Result r = parse(null, props("turntable.strategy", "ROUND_ROBIN", "turntable.STRATEGY", "FAIR_SHARE"), null);
        assertEquals(List.of("option strategy (system properties) is given 2 times with different values"
                + " (turntable.STRATEGY=FAIR_SHARE, turntable.strategy=ROUND_ROBIN), allowed: once;"
                + " using the default LEAST_USED"), r.messages());
        assertEquals("LEAST_USED", r.options().strategy());

        r = parse(null, props("turntable.strategy", "fair_share", "Turntable.Strategy", "FAIR_SHARE"), null);
        assertEquals(List.of(), r.messages(), "two spellings of one value are no mistake");
        assertEquals("FAIR_SHARE", r.options().strategy());

        r = parse(null, props("turntable.config", "a.properties", "turntable.Config", "b.properties"), props());
        assertTrue(r.untouched());
        assertEquals(List.of("option config (system properties) is given 2 times with different values"
                + " (turntable.Config=b.properties, turntable.config=a.properties), allowed: once;"
                + " leaving the application untouched"), r.messages());

        // Overridden by an agent option: still named, both of them, and not used.
        r = parse("strategy=LEAST_BUSY", props("turntable.strategy", "ROUND_ROBIN", "turntable.STRATEGY", "FAIR_SHARE"), null);
        assertEquals("LEAST_BUSY", r.options().strategy());
        assertEquals(List.of("option strategy (system properties) is given 2 times with different values"
                + " (turntable.STRATEGY=FAIR_SHARE, turntable.strategy=ROUND_ROBIN), allowed: once;"
                + " not used, strategy=LEAST_BUSY takes precedence"), r.messages());
        r = parse("config=c.properties", props("turntable.config", "a.properties", "turntable.Config", "b.properties"),
                props("median", "true"));
        assertFalse(r.untouched(), "the agent option's file is read");
        assertTrue(r.options().median());
        assertEquals(List.of("option config (system properties) is given 2 times with different values"
                + " (turntable.Config=b.properties, turntable.config=a.properties), allowed: once;"
                + " not used, config=c.properties takes precedence"), r.messages());
    }

    /** A repeat in the config file that a -D overrides is named as the file's; the -D is used. */
    @Test
    void aRepeatInTheConfigFileOverriddenByASystemPropertyIsReported() throws Exception {
        OptionsParser.OrderedProperties file = new OptionsParser.OrderedProperties();
        file.load(new java.io.StringReader("include=Orders.*\ninclude=Billing.*\npool.*Orders.start.name=a\n"
                + "pool.*Orders.start.name=b\n"));
        OptionsParser.Result r = parse("config=t.properties,pool.*Orders.start.name=orders",
                props("turntable.include", "Orders.*"), file);
        assertFalse(r.untouched(), "the repeat is not used: which pools to take over is not in doubt");
        assertEquals("Orders.*", Options.text(OptionKey.INCLUDE, r.options().include()));
        assertEquals("orders", r.options().poolNames().get(0).name());
        assertEquals(List.of("option include (config file) is given 2 times with different values"
                + " (include=Orders.*, include=Billing.*), allowed: once; not used,"
                + " include=Orders.* (system property turntable.include) takes precedence",
                "option pool.*Orders.start.name (config file) is given 2 times with different values"
                + " (pool.*Orders.start.name=a, pool.*Orders.start.name=b), allowed: once; not used,"
                + " pool.*Orders.start.name=orders takes precedence"), r.messages());
    }
}
