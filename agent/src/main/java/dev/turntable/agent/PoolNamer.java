package dev.turntable.agent;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Gives each pool the agent sees its contract name: {@code <SimpleClassName>.<method>} of its
 * creation site, or the name a {@code pool.<creation-site-glob>.name} rule sets, then
 * {@code -2}, {@code -3} … for more pools from the same place. Names are never reused, and unique:
 * a site's name never contains {@code -} (Java names cannot), and a configured name may not end in
 * {@code -<digits>} (see {@link OptionsParser}). Memory grows with distinct places, not with pools.
 * Any thread.
 */
final class PoolNamer {

    private final List<Options.PoolNameRule> rules;
    private final Map<String, Integer> counters = new HashMap<>();

    PoolNamer(List<Options.PoolNameRule> rules) {
        this.rules = List.copyOf(rules);
    }

    /**
     * The name before numbering: a configured name whose glob matches the full site
     * ({@code com.acme.OrderService.start}) or its short form ({@code OrderService.start}); the
     * most specific glob wins (fewest wildcards, then longest). Else the site's own name.
     */
    String baseName(CreationSite site) {
        Options.PoolNameRule best = null;
        for (Options.PoolNameRule r : rules) {
            if (r.site().matches(site.site()) || r.site().matches(site.baseName())) {
                if (best == null || moreSpecific(r.site(), best.site())) {
                    best = r;
                }
            }
        }
        return best != null ? best.name() : site.baseName();
    }

    private static boolean moreSpecific(Glob a, Glob b) {
        if (a.wildcards() != b.wildcards()) {
            return a.wildcards() < b.wildcards();
        }
        return a.text().length() > b.text().length();
    }

    /** The next free name for {@code base}: {@code base}, then {@code base-2}, {@code base-3} … */
    synchronized String unique(String base) {
        int n = counters.merge(base, 1, Integer::sum);
        return n == 1 ? base : base + "-" + n;
    }
}
