package dev.turntable.agent;

import java.util.List;
import java.util.Properties;

/**
 * The agent's options as a client checks them before it attaches: the agent's own lines go to
 * the target JVM's output, which the operator who attached does not see. Used by {@link Attach}
 * and, reflectively, by {@code turntablectl attach} (in a class loader of its own over the agent
 * jar, whose parent is the platform loader: so this class refers to nothing outside the jar and
 * {@code java.base}). Stateless; any thread.
 */
public final class OptionsCheck {

    private OptionsCheck() {
    }

    /**
     * The problems a load of the agent with {@code options} (may be null) would print a line
     * for, without what the agent would then do (nothing is loaded), but for the config file
     * they name, which the target JVM reads: empty when they are good.
     */
    public static List<String> problems(String options) {
        return OptionsParser.parse(options, new Properties(), path -> new Properties()).problems();
    }

    /**
     * As {@link #problems}, with the config file that {@code options} name read here, and its
     * keys and values checked as the agent would check them (the options given take precedence
     * over the file's, as in the agent); no system properties (the target's are its own). For a
     * client that has made the file's path one this JVM reads as the target would.
     */
    public static List<String> problemsWithConfigFile(String options) {
        return OptionsParser.parse(options, new Properties()).problems();
    }
}
