package dev.turntable.jmx.cli;

import java.io.IOException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code attach}'s check of the config file its options name ({@code config=<file>}): the target
 * JVM reads that file when the agent loads, and the lines the agent prints about it go to that
 * JVM's output, which the operator who attached does not see. So the file is read here first,
 * where the target would read it (a relative path from the target's working directory), and
 * checked by the agent jar's own option parser with the command line's options, in the agent's
 * order of precedence. Stateless; any thread.
 */
final class ConfigFileCheck {

    private static final String CONFIG = "config";

    private ConfigFileCheck() {
    }

    /**
     * The config file the agent options name (the last {@code config=} among them, whose key is
     * read in any case, as the agent reads it), or null if they name none. A blank one is the
     * agent's to refuse, with the other options.
     */
    static String configPath(String options) {
        String path = null;
        for (String item : options.split(",")) {
            int eq = item.indexOf('=');
            if (eq > 0 && isConfig(item.substring(0, eq))) {
                path = item.substring(eq + 1).trim();
            }
        }
        return path;
    }

    private static boolean isConfig(String key) {
        return key.trim().toLowerCase(Locale.ROOT).equals(CONFIG);
    }

    /**
     * The file as the target JVM reads it: {@code path} itself if absolute, else from
     * {@code workingDir}, the target's {@code user.dir}.
     *
     * @throws CliException exit 2 for a path that is no path, or a relative one where the target does not tell its working directory
     */
    static Path resolve(String path, String workingDir, String pid) throws CliException {
        try {
            Path p = Paths.get(path);
            if (p.isAbsolute()) {
                return p.normalize();
            }
            if (workingDir == null) {
                throw CliException.invalid("attach: config=" + path + " is a relative path, and JVM " + pid
                        + " does not tell its working directory (user.dir), from which it would read it: give the"
                        + " file's absolute path; nothing attached");
            }
            return Paths.get(workingDir).resolve(p).normalize();
        } catch (InvalidPathException e) {
            throw CliException.invalid("attach: config=" + path + " is not a path (" + e.getMessage()
                    + "); allowed: the path of a readable .properties file; nothing attached");
        }
    }

    /**
     * Refuses a file the target could not read: missing, not a regular file, or unreadable.
     *
     * @param given the path as the options give it, which the message names along with {@code file}
     * @throws CliException exit 2
     */
    static void requireReadable(String given, Path file, String pid) throws CliException {
        String why = !Files.exists(file) ? "does not exist"
                : !Files.isRegularFile(file) ? "is not a file"
                : !Files.isReadable(file) ? "cannot be read" : null;
        if (why != null) {
            String where = Paths.get(given).isAbsolute() ? "" : " (that is " + file + ", from JVM " + pid
                    + "'s working directory)";
            throw CliException.invalid("attach: config file " + given + where + " " + why
                    + "; allowed: the path of a readable .properties file; nothing attached");
        }
    }

    /**
     * {@code options} with every {@code config=} value replaced by {@code file}: the same file,
     * named so that this JVM reads what the target would.
     */
    static String withConfigFile(String options, Path file) {
        String[] items = options.split(",", -1);
        for (int i = 0; i < items.length; i++) {
            int eq = items[i].indexOf('=');
            if (eq > 0 && isConfig(items[i].substring(0, eq))) {
                items[i] = items[i].substring(0, eq) + "=" + file;
            }
        }
        return String.join(",", items);
    }

    /**
     * What the agent jar's own option parser says of {@code options} with the config file they
     * name read (its public {@code OptionsCheck.problemsWithConfigFile}, with no system
     * properties: the target's are its own), as the lines a client refusing them shows; or null
     * if the jar cannot tell (an older jar without that method): the agent then reports in the
     * JVM's output, and {@code attach} prints what it said. By reflection, in a class loader of
     * its own over the jar (parent: the platform loader), closed afterwards.
     */
    static List<String> problems(Path jar, String options) {
        try (URLClassLoader loader = new URLClassLoader(new URL[] {jar.toUri().toURL()},
                ClassLoader.getPlatformClassLoader())) {
            Method check = Class.forName("dev.turntable.agent.OptionsCheck", true, loader)
                    .getMethod("problemsWithConfigFile", String.class);
            Object lines = check.invoke(null, options);
            if (!(lines instanceof List)) {
                return null;
            }
            List<String> out = new ArrayList<>();
            for (Object l : (List<?>) lines) {
                out.add(String.valueOf(l));
            }
            return out;
        } catch (ReflectiveOperationException | IOException | LinkageError | RuntimeException e) {
            return null;
        }
    }
}
