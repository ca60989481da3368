package dev.turntable.pool.strategy;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * The worker choice strategies a pool can switch between, by name: the built-in ones plus any a
 * user registers. Immutable once built; any thread may call it.
 *
 * <p>A name maps to a factory, because each activation of a strategy starts from fresh state
 * (a switch never inherits a half-consumed turn from an earlier activation).
 */
public final class StrategyRegistry {

    private static final Pattern NAME = Pattern.compile("[A-Z][A-Z0-9_]*");

    private static final StrategyRegistry BUILT_IN = new StrategyRegistry(builtIns());

    private final Map<String, Supplier<? extends WorkerChoiceStrategy>> factories;

    private StrategyRegistry(Map<String, Supplier<? extends WorkerChoiceStrategy>> factories) {
        this.factories = Collections.unmodifiableMap(factories);
    }

    private static Map<String, Supplier<? extends WorkerChoiceStrategy>> builtIns() {
        Map<String, Supplier<? extends WorkerChoiceStrategy>> m = new LinkedHashMap<>();
        m.put(RoundRobin.NAME, RoundRobin::new);
        m.put(LeastUsed.NAME, LeastUsed::new);
        m.put(LeastBusy.NAME, LeastBusy::new);
        m.put(LeastCpu.NAME, LeastCpu::new);
        m.put(FairShare.NAME, FairShare::new);
        m.put(WeightedRoundRobin.NAME, WeightedRoundRobin::new);
        m.put(InterleavedWeightedRoundRobin.NAME, InterleavedWeightedRoundRobin::new);
        m.put(LifetimeFirst.NAME, LifetimeFirst::new);
        return m;
    }

    /** The built-in strategies, in the order {@code AvailableStrategies} lists them. */
    public static StrategyRegistry builtIn() {
        return BUILT_IN;
    }

    /** The name of the strategy a pool starts with unless told otherwise. */
    public static String defaultName() {
        return LeastUsed.NAME;
    }

    /**
     * A registry with one more strategy (or a replacement for one of the same name), checked now
     * rather than when it is first selected, which may be much later, live: the name is read as
     * {@link #resolve} reads a selection (trimmed, upper-cased, {@code -} as {@code _}) and must
     * then match {@code [A-Z][A-Z0-9_]*}; the factory is called once, here, and must return a
     * strategy whose {@link WorkerChoiceStrategy#name()} is that name and whose
     * {@link WorkerChoiceStrategy#requiredStatistics()} is not null (the instance is dropped).
     * On failure nothing is registered. Any thread.
     *
     * @throws IllegalArgumentException naming the value, if the name is null or does not read as
     *                                  {@code [A-Z][A-Z0-9_]*}, or the factory is null, throws,
     *                                  returns null, a strategy of another name or one whose
     *                                  {@code requiredStatistics()} throws or is null
     */
    public StrategyRegistry with(String name, Supplier<? extends WorkerChoiceStrategy> factory) {
        String key = name == null ? null : normalize(name);
        if (key == null || !NAME.matcher(key).matches()) {
            throw new IllegalArgumentException("strategy name '" + name + "' must read as [A-Z][A-Z0-9_]*"
                    + " (after trimming, upper-casing and reading - as _) so JMX clients and scripts can type it");
        }
        if (factory == null) {
            throw new IllegalArgumentException("factory null is not allowed for strategy '" + name
                    + "': a Supplier of a new WorkerChoiceStrategy per pool");
        }
        WorkerChoiceStrategy sample;
        String made;
        try {
            sample = factory.get();
            made = sample == null ? null : sample.name();
        } catch (RuntimeException failed) {
            throw new IllegalArgumentException("strategy factory for '" + name + "' threw " + failed
                    + ": it must return a new WorkerChoiceStrategy named '" + key + "'", failed);
        }
        if (sample == null) {
            throw new IllegalArgumentException("strategy factory for '" + name + "' returned null:"
                    + " it must return a new WorkerChoiceStrategy named '" + key + "'");
        }
        if (!key.equals(made)) {
            throw new IllegalArgumentException("strategy factory for '" + name + "' returned a strategy named '"
                    + made + "': its name() must be '" + key + "', the name it is registered under");
        }
        checkRequiredStatistics(key, sample);
        Map<String, Supplier<? extends WorkerChoiceStrategy>> m = new LinkedHashMap<>(factories);
        m.put(key, factory);
        return new StrategyRegistry(m);
    }

    /**
     * Refuses a strategy whose {@link WorkerChoiceStrategy#requiredStatistics()} is null or throws:
     * the engine reads it each time the strategy is activated, and would fail there instead (in
     * {@code build()}, or in a live {@code setStrategy}) with an exception that names nothing.
     */
    private static void checkRequiredStatistics(String key, WorkerChoiceStrategy s) {
        java.util.Set<Statistic> needed;
        try {
            needed = s.requiredStatistics();
        } catch (RuntimeException failed) {
            throw new IllegalArgumentException("strategy '" + key + "': requiredStatistics() threw " + failed
                    + ": it must return a set of Statistic (empty for none)", failed);
        }
        if (needed == null) {
            throw new IllegalArgumentException("strategy '" + key + "': requiredStatistics() returned null:"
                    + " it must return a set of Statistic (Set.of() for none)");
        }
        for (Statistic st : needed) {
            if (st == null) {
                throw new IllegalArgumentException("strategy '" + key + "': requiredStatistics() " + needed
                        + " holds null: it must hold Statistic values only");
            }
        }
    }

    /** A user-typed name as registration and lookups read it: trimmed, upper-cased, {@code -} as {@code _}. */
    private static String normalize(String name) {
        return name.trim().toUpperCase(java.util.Locale.ROOT).replace('-', '_');
    }

    /** Registered names, built-ins first. */
    public List<String> names() {
        return List.copyOf(factories.keySet());
    }

    /** Whether {@code name} is registered (exact, upper-case match). */
    public boolean contains(String name) {
        return name != null && factories.containsKey(name);
    }

    /**
     * Normalises a user-typed name (trimmed, upper-cased, {@code -} read as {@code _}) and checks it.
     *
     * @throws IllegalArgumentException naming the value and the registered names
     */
    public String resolve(String name) {
        if (name != null) {
            String key = normalize(name);
            if (factories.containsKey(key)) {
                return key;
            }
        }
        throw new IllegalArgumentException("strategy '" + name + "' is not one of " + names());
    }

    /**
     * A fresh instance of the named strategy.
     *
     * @throws IllegalArgumentException if the name is unknown, or the factory returns a strategy
     *                                  whose {@link WorkerChoiceStrategy#name()} differs or whose
     *                                  {@link WorkerChoiceStrategy#requiredStatistics()} is null
     */
    public WorkerChoiceStrategy create(String name) {
        String key = resolve(name);
        WorkerChoiceStrategy s = factories.get(key).get();
        if (s == null || !key.equals(s.name())) {
            throw new IllegalArgumentException("strategy factory for '" + key + "' returned "
                    + (s == null ? "null" : "a strategy named '" + s.name() + "'"));
        }
        checkRequiredStatistics(key, s); // registration checked one instance; this one is new
        return s;
    }
}
