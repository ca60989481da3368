package dev.turntable.pool.testing;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/** Argument sources for the parameterised executor tests. */
public final class Params {

    /** The built-in worker choice strategies, in the order {@code getAvailableStrategies()} lists them. */
    public static final List<String> STRATEGIES = List.of(
            "ROUND_ROBIN",
            "LEAST_USED",
            "LEAST_BUSY",
            "LEAST_CPU",
            "FAIR_SHARE",
            "WEIGHTED_ROUND_ROBIN",
            "INTERLEAVED_WEIGHTED_ROUND_ROBIN",
            "LIFETIME_FIRST");

    private Params() {
    }

    /** Every strategy name. */
    public static Stream<String> strategies() {
        return STRATEGIES.stream();
    }

    /** Every strategy name, once with task stealing on and once with it off. */
    public static Stream<Arguments> strategiesAndStealing() {
        return STRATEGIES.stream().flatMap(s -> Stream.of(Arguments.of(s, true), Arguments.of(s, false)));
    }
}
