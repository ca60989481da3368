package dev.turntable.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.turntable.agent.CreationSite.Frame;
import java.util.List;
import java.util.concurrent.ThreadPoolExecutor;
import org.junit.jupiter.api.Test;

class PoolNamerTest {

    private static CreationSite site(String cls, String method) {
        return CreationSite.of(List.of(new Frame(ThreadPoolExecutor.class.getName(), "<init>", ThreadPoolExecutor.class),
                new Frame(cls, method, null)));
    }

    private static Options.PoolNameRule rule(String glob, String name) {
        return new Options.PoolNameRule(Glob.of(glob), name);
    }

    @Test
    void morePoolsFromOnePlaceAreNumbered() {
        PoolNamer n = new PoolNamer(List.of());
        CreationSite s = site("com.acme.OrderService", "start");
        assertEquals("OrderService.start", n.unique(n.baseName(s)));
        assertEquals("OrderService.start-2", n.unique(n.baseName(s)));
        assertEquals("OrderService.start-3", n.unique(n.baseName(s)));
        assertEquals("Other.start", n.unique(n.baseName(site("com.acme.Other", "start"))));
    }

    @Test
    void aSiteNameNeverContainsADashSoNumberingCannotCollide() {
        for (String[] s : new String[][] {{"com.acme.Outer$1", "lambda$run$0"}, {"a.B$C", "<init>"}, {"x.Y", "access$000"}}) {
            String base = new PoolNamer(List.of()).baseName(site(s[0], s[1]));
            assertEquals(-1, base.indexOf('-'), base);
        }
    }

    @Test
    void sameSimpleNameInTwoPackagesSharesOneNumbering() {
        PoolNamer n = new PoolNamer(List.of());
        assertEquals("Worker.run", n.unique(n.baseName(site("com.acme.a.Worker", "run"))));
        assertEquals("Worker.run-2", n.unique(n.baseName(site("com.acme.b.Worker", "run"))));
    }

    @Test
    void configuredNamesMatchTheFullSiteOrTheShortNameAndTheMostSpecificWins() {
        PoolNamer n = new PoolNamer(List.of(rule("*", "everything"), rule("com.acme.*", "acme"),
                rule("com.acme.OrderService.start", "orders"), rule("Report*", "reports")));
        assertEquals("orders", n.baseName(site("com.acme.OrderService", "start")));
        assertEquals("acme", n.baseName(site("com.acme.OrderService", "stop")));
        assertEquals("reports", n.baseName(site("org.other.ReportJob", "run")));
        assertEquals("everything", n.baseName(site("org.other.Thing", "run")));
        assertEquals("orders", n.unique(n.baseName(site("com.acme.OrderService", "start"))));
        assertEquals("orders-2", n.unique(n.baseName(site("com.acme.OrderService", "start"))));
    }

    @Test
    void withoutAMatchingRuleTheSiteNames() {
        PoolNamer n = new PoolNamer(List.of(rule("com.other.*", "other")));
        assertEquals("Main.main", n.baseName(site("com.acme.Main", "lambda$main$0")));
    }
}
