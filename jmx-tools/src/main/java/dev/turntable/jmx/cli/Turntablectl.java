package dev.turntable.jmx.cli;

import dev.turntable.jmx.AgentLoadStatus;
import dev.turntable.jmx.TurntableJmx;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code turntablectl}: the command-line client for Turntable's JMX face. {@link #main} runs one
 * command and exits with its code; {@link #run(PrintStream, PrintStream, String...)} does the same
 * without exiting, writing to the streams it is given (for tests and embedding). One instance
 * runs one command at a time; separate instances may run on separate threads.
 *
 * <p>Exit codes (the contract's): {@value #EXIT_OK} done, {@value #EXIT_USAGE} bad usage (or a
 * pool/attribute that does not exist), {@value #EXIT_CONNECT} cannot connect, {@value #EXIT_REFUSED}
 * the JVM refused the value; {@value #EXIT_INTERNAL} only for a bug in turntablectl itself.
 *
 * <p>Why this file is long (~750 lines): the usage texts of every command and their options
 * (which the usage errors quote), the option parsing and checks, the dispatch and error handling
 * that every command goes through, and the two commands that need no pool MBean ({@code jvms}
 * and {@code attach}, with locating the agent jar); the pool commands live in
 * {@link ReadCommands}, {@link WriteCommands}, {@link ClassCommands} and {@link Watch}, on
 * {@link PoolMBeans}.
 */
public final class Turntablectl {

    public static final int EXIT_OK = 0;
    public static final int EXIT_INTERNAL = 1;
    public static final int EXIT_USAGE = 2;
    public static final int EXIT_CONNECT = 3;
    public static final int EXIT_REFUSED = 4;

    static final String AGENT_JAR = "turntable-agent.jar";
    static final String AGENT_ENV = "TURNTABLE_AGENT_JAR";
    static final String USER_ENV = "TURNTABLE_JMX_USER";
    static final String PASSWORD_ENV = "TURNTABLE_JMX_PASSWORD";
    private static final long MAX_INTERVAL_MILLIS = 3_600_000;

    static final String USAGE = String.join(System.lineSeparator(),
            "usage: turntablectl [--pid <pid> | --url <jmx-service-url>] [--json] <command> [arguments]",
            "",
            "commands:",
            "  jvms                            local JVMs, with how many Turntable pools each has",
            "  attach <pid> [OPTIONS]          load the Turntable agent into a running JVM; OPTIONS as for",
            "                                  -javaagent (key=value,...); agent jar: --agent <path>,",
            "                                  $" + AGENT_ENV + ", or next to turntablectl.jar",
            "  pools                           pools: name, managed, strategy, workers, queued, completed",
            "  show <pool>                     attributes and the workers table",
            "  get <pool> <attribute>          read one attribute",
            "  set <pool> <attribute> <value>  write one attribute; lists as 500;500;250 (WorkerWeightsMillis",
            "                                  default: back to the weights derived from the CPUs)",
            "  watch <pool> [--interval <ms>] [--count <n>]",
            "                                  live view, redrawn every interval (default 1000 ms) until",
            "                                  Ctrl-C, or n times",
            "  lifetimes <pool>                one bar per worker: its lifetime so far against",
            "                                  MaxLifetimeTasks (the lifetime staircase)",
            "  recycle <pool> <index>          retire worker <index> at its next task boundary and",
            "                                  replace it with a new thread",
            "  classes <pool> [<percents> [<requestor-map>]]",
            "                                  task classes: shares, running and waiting per class, the",
            "                                  requestor map; with <percents> (interactive:70;batch:30,",
            "                                  '' or off for none) set the shares, with <requestor-map>",
            "                                  (http-.*:interactive;report-.*:batch) the map too",
            "",
            "options:",
            "  --pid <pid>     connect to a local JVM through the Attach API",
            "  --url <url>     connect to a JMX service URL, e.g. service:jmx:rmi:///jndi/rmi://host:9010/jmxrmi",
            "                  (host:port is short for that form)",
            "                  with neither, the one local JVM that has Turntable MBeans is used",
            "  --json          print one JSON document on stdout (watch --json needs --count);",
            "                  a failure prints {\"error\": {\"exitCode\", \"message\"}}",
            "  --interval <ms> watch: milliseconds between frames, 1 to " + MAX_INTERVAL_MILLIS + " (default 1000)",
            "  --count <n>     watch: draw n frames, then exit (default: until Ctrl-C)",
            "  --agent <path>  attach: the agent jar (default: $" + AGENT_ENV + ", or next to turntablectl.jar)",
            "",
            "environment: $" + USER_ENV + " and $" + PASSWORD_ENV + " log in to a --url that authenticates",
            "",
            "exit codes: 0 done, 2 bad usage, 3 cannot connect, 4 the JVM refused the value",
            "");

    private static final Set<String> VALUE_OPTIONS = Set.of("--pid", "--url", "--interval", "--count", "--agent");
    /** Every option but --help, as a usage writes it, in the order of {@link #USAGE}. */
    private static final Map<String, String> OPTION_FORMS = optionForms();
    private static final long DEFAULT_INTERVAL_MILLIS = 1000;
    /** How long the shutdown hook waits for its {@code --json} document to be printed. */
    static final long STOPPED_PRINT_MILLIS = 1_000;

    private final PrintStream out;
    private final PrintStream err;
    private final boolean terminal;
    private final LocalJvms jvms;
    private final Map<String, String> env;
    /** The {@code --json} document, printed once (see {@link JsonDocument}). */
    private final JsonDocument document;
    /** Whether the command line asked for {@code --json}; set by {@link #execute}. */
    private volatile boolean jsonAsked;

    Turntablectl(PrintStream out, PrintStream err, boolean terminal, LocalJvms jvms, Map<String, String> env) {
        this.document = new JsonDocument(out);
        this.out = out;
        this.err = err;
        this.terminal = terminal;
        this.jvms = jvms;
        this.env = env;
    }

    public static void main(String[] args) {
        Turntablectl ctl = new Turntablectl(System.out, System.err, System.console() != null,
                LocalJvms.attachApi(), System.getenv());
        // A signal (timeout, Ctrl-C) must not leave a --json caller with an empty stdout. Also
        // run by System.exit below, when the document has been printed and it does nothing.
        Runtime.getRuntime().addShutdownHook(new Thread(ctl::stopped, "turntablectl-stopped"));
        int code = ctl.execute(args);
        System.out.flush();
        System.exit(code);
    }

    /**
     * The shutdown hook's work: with {@code --json}, if no document was printed yet (a signal
     * stopped the command), prints what it had gathered with an error saying so.
     */
    void stopped() {
        if (!jsonAsked) {
            return; // the text printed so far is all there is; flushing could block on a full pipe
        }
        // On a thread of its own, waited for a while only: stdout may be a pipe nobody reads
        // (a paused pager), where printing blocks, or the command may be blocked printing its own
        // document; either way the JVM must still exit, so this hook gives up after a second.
        Thread printer = new Thread(document::printStopped, "turntablectl-stopped-document");
        printer.setDaemon(true);
        printer.start();
        try {
            printer.join(STOPPED_PRINT_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Runs one command as {@code main} would, without exiting and without terminal redraws.
     *
     * @return the exit code
     */
    public static int run(PrintStream out, PrintStream err, String... args) {
        return new Turntablectl(out, err, false, LocalJvms.attachApi(), System.getenv()).execute(args);
    }

    /**
     * Runs one command; returns its exit code. Never throws. A failure is told on stderr; with
     * {@code --json} it is also told on stdout as one document, {@code {"error": {"exitCode",
     * "message"}}} (and a {@code watch} that fails after some frames keeps them in that
     * document), so a script that reads stdout always gets the one document it was promised.
     */
    int execute(String... args) {
        boolean json = Options.asksForJson(args);
        jsonAsked = json;
        try {
            Options o = Options.parse(args);
            if (o.help || "help".equals(first(o))) {
                if (json) {
                    document.print(Map.of("usage", USAGE));
                } else {
                    out.print(USAGE);
                }
                return EXIT_OK;
            }
            if (o.positional.isEmpty()) {
                throw CliException.usage("no command given");
            }
            dispatch(o);
            return EXIT_OK;
        } catch (CliException e) {
            err.println("turntablectl: " + e.getMessage());
            if (e.showUsage()) {
                err.println();
                err.print(shortUsage(commandIn(args)));
            }
            if (json) {
                document.printError(e.exitCode(), e.getMessage());
            }
            return e.exitCode();
        } catch (RuntimeException | Error e) {
            err.println("turntablectl: internal error: " + e);
            e.printStackTrace(err);
            if (json) {
                document.printError(EXIT_INTERNAL, "internal error: " + e);
            }
            return EXIT_INTERNAL;
        } finally {
            out.flush();
            err.flush();
        }
    }

    /** The commands, in the order of {@link #USAGE}. */
    static final List<String> COMMANDS = List.of("jvms", "attach", "pools", "show", "get", "set", "watch", "lifetimes",
            "recycle", "classes");

    /**
     * What follows a usage error: the synopsis, then that command's lines of {@link #USAGE} (or
     * the list of commands, when none is recognised), the options it takes, and where the rest
     * is. The whole text (about 40 lines) buried the one line that says what was wrong.
     */
    static String shortUsage(String command) {
        String nl = System.lineSeparator();
        String[] lines = USAGE.split(nl);
        StringBuilder sb = new StringBuilder(lines[0]).append(nl);
        boolean in = false;
        boolean found = false;
        for (String l : lines) {
            if (command != null && (l.startsWith("  " + command + " ") || l.equals("  " + command))) {
                in = true;
                found = true;
            } else if (in && !l.startsWith("      ")) {
                in = false;
            }
            if (in) {
                sb.append(l).append(nl);
            }
        }
        if (!found) {
            sb.append("commands: ").append(String.join(", ", COMMANDS)).append(nl);
        }
        // What the command takes besides its arguments: the error may well be about one of them.
        sb.append(optionsLine(found ? command : null, true)).append(nl);
        return sb.append("(turntablectl --help: every command, option and exit code)").append(nl).toString();
    }

    private static Map<String, String> optionForms() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("--pid", "--pid <pid>");
        m.put("--url", "--url <jmx-service-url>");
        m.put("--json", "--json");
        m.put("--interval", "--interval <ms>");
        m.put("--count", "--count <n>");
        m.put("--agent", "--agent <path>");
        return java.util.Collections.unmodifiableMap(m);
    }

    /**
     * The options {@code command} takes, in the order of {@link #USAGE}, but for {@code --help},
     * which every command takes; every option for null or a command that does not exist.
     */
    static List<String> optionsOf(String command) {
        if (command == null || !COMMANDS.contains(command)) {
            return List.copyOf(OPTION_FORMS.keySet());
        }
        switch (command) {
            case "jvms":
                return List.of("--json");
            case "attach":
                return List.of("--json", "--agent");
            case "watch":
                return List.of("--pid", "--url", "--json", "--interval", "--count");
            default:
                return List.of("--pid", "--url", "--json");
        }
    }

    /** {@code options of <command>: --pid, ..., --help} (or {@code options: ...} for no command): what an option error names. */
    static String optionsLine(String command, boolean forms) {
        List<String> names = new ArrayList<>();
        for (String o : optionsOf(command)) {
            names.add(forms ? OPTION_FORMS.get(o) : o);
        }
        names.add("--help");
        boolean known = command != null && COMMANDS.contains(command);
        return (known ? "options of " + command : "options") + ": " + String.join(", ", names);
    }

    /** The first argument that names a command, skipping options and their values; null if none does. */
    static String commandIn(String[] args) {
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--")) {
                return i + 1 < args.length && COMMANDS.contains(args[i + 1]) ? args[i + 1] : null;
            }
            if (VALUE_OPTIONS.contains(a)) {
                i++; // its value
            } else if (!a.startsWith("-") && COMMANDS.contains(a)) {
                return a;
            }
        }
        return null;
    }

    private static String first(Options o) {
        return o.positional.isEmpty() ? null : o.positional.get(0);
    }

    private void dispatch(Options o) throws CliException {
        String command = o.positional.get(0);
        List<String> a = o.positional.subList(1, o.positional.size());
        if (!"watch".equals(command) && (o.interval != null || o.count != null)) {
            throw CliException.usage("--interval and --count belong to watch, not " + command);
        }
        if (!"attach".equals(command) && o.agent != null) {
            throw CliException.usage("--agent belongs to attach, not " + command);
        }
        switch (command) {
            case "jvms":
                arity(command, a, 0, 0, "jvms");
                noTarget(o, command);
                jvms(o.json);
                return;
            case "attach":
                arity(command, a, 1, 2, "attach <pid> [OPTIONS]");
                noTarget(o, command);
                attach(pid(a.get(0), "attach"), a.size() > 1 ? a.get(1) : "", o.agent, o.json);
                return;
            case "pools":
                arity(command, a, 0, 0, "pools");
                break;
            case "show":
                arity(command, a, 1, 1, "show <pool>");
                break;
            case "get":
                arity(command, a, 2, 2, "get <pool> <attribute>");
                break;
            case "set":
                arity(command, a, 3, 3, "set <pool> <attribute> <value>");
                break;
            case "lifetimes":
                arity(command, a, 1, 1, "lifetimes <pool>");
                break;
            case "recycle":
                arity(command, a, 2, 2, "recycle <pool> <index>");
                break;
            case "classes":
                arity(command, a, 1, 3, "classes <pool> [<percents> [<requestor-map>]]");
                break;
            case "watch":
                arity(command, a, 1, 1, "watch <pool> [--interval <ms>] [--count <n>]");
                if (o.json && o.count == null) {
                    throw CliException.usage("watch --json prints one JSON document at the end, so it needs --count <n>");
                }
                break;
            default:
                throw CliException.usage("unknown command '" + command
                        + "'; commands: " + String.join(", ", COMMANDS));
        }
        long interval = o.interval == null ? DEFAULT_INTERVAL_MILLIS
                : number("--interval", o.interval, 1, MAX_INTERVAL_MILLIS, "milliseconds from 1 to " + MAX_INTERVAL_MILLIS);
        long count = o.count == null ? -1 : number("--count", o.count, 1, Long.MAX_VALUE, "a whole number from 1 to " + Long.MAX_VALUE);
        String pid = o.pid == null ? null : pid(o.pid, "--pid");
        try (Connector.Connection c = Connector.open(jvms, pid, o.url, credentials())) {
            PoolMBeans p = new PoolMBeans(c);
            JsonDocument json = o.json ? document : null;
            switch (command) {
                case "pools":
                    new ReadCommands(p, out, json).pools();
                    break;
                case "show":
                    new ReadCommands(p, out, json).show(a.get(0));
                    break;
                case "get":
                    new ReadCommands(p, out, json).get(a.get(0), a.get(1));
                    break;
                case "set":
                    new WriteCommands(p, out, json).set(a.get(0), a.get(1), a.get(2));
                    break;
                case "lifetimes":
                    new ReadCommands(p, out, json).lifetimes(a.get(0));
                    break;
                case "recycle":
                    new WriteCommands(p, out, json).recycle(a.get(0), a.get(1));
                    break;
                case "classes":
                    if (a.size() == 1) {
                        new ClassCommands(p, out, json).classes(a.get(0));
                    } else {
                        new ClassCommands(p, out, json).classes(a.get(0), a.get(1), a.size() > 2 ? a.get(2) : null);
                    }
                    break;
                default:
                    new Watch(p, out, json).run(a.get(0), interval, count, terminal);
            }
        }
    }

    /**
     * {@code $TURNTABLE_JMX_USER} and {@code $TURNTABLE_JMX_PASSWORD} for a {@code --url} whose JMX
     * agent authenticates (environment, not arguments, so the password stays out of process lists).
     */
    private String[] credentials() throws CliException {
        String user = env.get(USER_ENV);
        String password = env.get(PASSWORD_ENV);
        if (user == null && password == null) {
            return null;
        }
        if (user == null || password == null) {
            throw CliException.usage("set both $" + USER_ENV + " and $" + PASSWORD_ENV + ", or neither");
        }
        return new String[] {user, password};
    }

    // ------------------------------------------------------------------ jvms and attach

    private void jvms(boolean json) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (LocalJvms.Jvm j : jvms.list()) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("pid", Long.parseLong(j.pid));
            row.put("name", j.displayName);
            try {
                // Read without starting anything there; only a JVM that runs Turntable is
                // connected to, which starts its local management agent if it has none.
                Map<String, String> props = jvms.systemProperties(j.pid, LocalJvms.TURNTABLE_PROPERTIES);
                if (LocalJvms.agentRunsWithoutJmx(props)) {
                    // Its pools are managed but registered nowhere: how many is unknown, not 0
                    // (a script reading 0 would conclude Turntable manages nothing there).
                    row.put("pools", null);
                    row.put("note", "JVM " + j.pid + " runs the agent with jmx=false: its pools are not counted");
                } else if (!LocalJvms.runsTurntable(props)) {
                    row.put("pools", 0);
                } else {
                    try (Connector.Connection c = Connector.connectLocal(jvms, j.pid)) {
                        row.put("pools", c.server.queryNames(TurntableJmx.poolPattern(), null).size());
                    }
                }
            } catch (CliException e) {
                row.put("pools", null);
                row.put("error", e.getMessage());
            } catch (IOException | RuntimeException e) {
                row.put("pools", null);
                row.put("error", "lost JVM " + j.pid + ": " + e);
            }
            rows.add(row);
        }
        if (json) {
            document.print(Map.of("jvms", rows));
            return;
        }
        if (rows.isEmpty()) {
            out.println("no other JVM of this user is running");
            return;
        }
        Table t = new Table("PID", "POOLS", "NAME");
        List<String> notes = new ArrayList<>();
        for (Map<String, Object> r : rows) {
            t.row(String.valueOf(r.get("pid")), r.get("pools") == null ? "?" : String.valueOf(r.get("pools")),
                    Values.text("name", mainOnly(r.get("name"))));
            if (r.get("error") != null) {
                notes.add("? " + r.get("error"));
            } else if (r.get("note") != null) {
                notes.add("? " + r.get("note"));
            }
        }
        t.print(out);
        if (!notes.isEmpty()) {
            out.println();
            notes.forEach(out::println);
        }
    }

    /** The main class or jar of a display name, without the program's arguments. */
    private static String mainOnly(Object displayName) {
        String s = displayName == null ? "" : displayName.toString().trim();
        int space = s.indexOf(' ');
        return space < 0 ? s : s.substring(0, space);
    }

    /**
     * Loads the agent, unless its options are bad (exit 2, checked first, here, by the jar's own
     * parser, with the config file they name: the agent's lines would go to the application's
     * output, not to the operator) or
     * the JVM runs it already (exit 4: a second load does nothing). After the load, the JVM's status property
     * says what the agent did: if it left the pools untouched, exit 4 with its lines; if it
     * started with lines (a value at its default, say), they are printed here as warnings.
     */
    private void attach(String pid, String options, String agentOption, boolean json) throws CliException {
        Path jar = locateAgent(agentOption);
        // The options first: a command line that is wrong is told so (exit 2) whatever the JVM runs.
        List<String> problems = agentOptionProblems(jar, options);
        if (problems != null && !problems.isEmpty()) {
            throw CliException.invalid("attach: the agent's options are not allowed, nothing attached:\n  "
                    + String.join("\n  ", problems));
        }
        checkConfigFile(pid, jar, options);
        AgentLoadStatus before = AgentLoadStatus.parse(jvms.agentStatus(pid));
        if (before != null && before.agentRuns()) {
            throw CliException.refused("Turntable already runs in JVM " + pid + "; nothing loaded"
                    + (options.isEmpty() ? "" : ", so these options do not apply")
                    + " (change settings live with set or classes)", null);
        }
        // An id for this load, so that its outcome is found even if another attach overwrites the
        // JVM's status meanwhile; only for an agent that checks options, which knows the key.
        String id = problems == null ? null : Long.toHexString(java.util.concurrent.ThreadLocalRandom.current().nextLong());
        String sent = id == null ? options : (options.isEmpty() ? "" : options + ",") + "attach-id=" + id;
        Map<String, String> agent = jvms.loadAgent(pid, jar.toString(), sent);
        AgentLoadStatus after = AgentLoadStatus.parse(agent.get(AgentLoadStatus.PROPERTY));
        if (id != null && after != null && !after.isOf(id)) {
            // Another load came between ours and this read: our own lines are gone, but whether
            // ours started the agent is kept apart.
            if (!id.equals(agent.get(AgentLoadStatus.STARTED_BY))) {
                throw CliException.refused("another attach loaded the agent into JVM " + pid + " at the same moment, and"
                        + " this one did not start Turntable (" + after.state() + "); that JVM's output says why", null);
            }
            err.println("turntablectl: JVM " + pid + " started Turntable; another attach came at the same moment,"
                    + " so this one's lines, if any, are only in that JVM's output");
        } else if (after == null && problems != null) {
            // This agent writes its status on every load: none means it could not even do that.
            throw CliException.refused("JVM " + pid + " loaded the agent, which left no word of what it did (under a"
                    + " security manager the agent jar needs a grant); that JVM's output says why", null);
        } else if (after != null) {
            if (!after.started()) {
                throw CliException.refused("JVM " + pid + " did not start Turntable"
                        + (after.lines().isEmpty() ? "" : ":\n  " + String.join("\n  ", after.lines())), null);
            }
            for (String line : after.lines()) {
                err.println("turntablectl: JVM " + pid + " started Turntable, and says: " + line);
            }
        }
        if (json) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("pid", Long.parseLong(pid));
            doc.put("agent", jar.toString());
            doc.put("options", options);
            doc.put("loaded", true);
            document.print(doc);
        } else {
            out.println("loaded " + jar + " into JVM " + pid + (options.isEmpty() ? "" : " with options " + options));
        }
    }

    /**
     * The config file the options name, checked as the agent will read it in the target, before
     * anything is loaded: a file the target could not read, or keys and values in it that the
     * agent would print a line about (taken with the command line's options, which take
     * precedence over the file), are refused (exit 2), as the same mistakes on the command line
     * are. An agent jar that cannot check a file's contents leaves them to the agent, whose
     * lines {@code attach} prints after the load.
     */
    private void checkConfigFile(String pid, Path jar, String options) throws CliException {
        String given = ConfigFileCheck.configPath(options);
        if (given == null || given.isEmpty()) {
            return; // none; an empty one is the agent's option check's to refuse
        }
        String workingDir = java.nio.file.Paths.get(given).isAbsolute() ? null
                : jvms.systemProperties(pid, List.of("user.dir")).get("user.dir");
        Path file = ConfigFileCheck.resolve(given, workingDir, pid);
        ConfigFileCheck.requireReadable(given, file, pid);
        List<String> problems = ConfigFileCheck.problems(jar, ConfigFileCheck.withConfigFile(options, file));
        if (problems == null) {
            err.println("turntablectl: the agent jar " + jar + " cannot check the contents of config file " + given
                    + " here; JVM " + pid + " will, and what it says is printed after the load");
        } else if (!problems.isEmpty()) {
            throw CliException.invalid("attach: the agent's options are not allowed (config file " + given
                    + (given.equals(file.toString()) ? "" : ", that is " + file) + "), nothing attached:\n  "
                    + String.join("\n  ", problems));
        }
    }

    /**
     * What the agent jar's own option parser says of {@code options} ({@code OptionsCheck.problems}, by
     * reflection in a class loader of its own that is closed afterwards), or null if the jar
     * cannot tell (an older agent without that method): the agent then reports in the JVM's output.
     */
    static List<String> agentOptionProblems(Path jar, String options) {
        try (java.net.URLClassLoader loader = new java.net.URLClassLoader(new java.net.URL[] {jar.toUri().toURL()},
                ClassLoader.getPlatformClassLoader())) {
            Object lines = Class.forName("dev.turntable.agent.OptionsCheck", true, loader)
                    .getMethod("problems", String.class).invoke(null, options);
            List<String> out = new ArrayList<>();
            if (lines instanceof List) {
                for (Object l : (List<?>) lines) {
                    out.add(String.valueOf(l));
                }
            }
            return out;
        } catch (ReflectiveOperationException | IOException | LinkageError | RuntimeException e) {
            return null;
        }
    }

    /**
     * The agent jar: {@code --agent}, else {@code $TURNTABLE_AGENT_JAR}, else the first
     * {@value #AGENT_JAR} found in the directory holding turntablectl (its jar or classes), or
     * in {@code agent/target/} of that directory or one of its three parents (the repository
     * layout: {@code jmx-tools/target/turntablectl.jar} next to {@code agent/target/turntable-agent.jar}).
     */
    Path locateAgent(String agentOption) throws CliException {
        if (agentOption != null) {
            return existing(Paths.get(agentOption), "--agent");
        }
        String fromEnv = env.get(AGENT_ENV);
        if (fromEnv != null && !fromEnv.isBlank()) {
            return existing(Paths.get(fromEnv), "$" + AGENT_ENV);
        }
        List<Path> looked = new ArrayList<>();
        Path dir = ownDirectory();
        for (int up = 0; dir != null && up <= 3; up++, dir = dir.getParent()) {
            for (Path p : List.of(dir.resolve(AGENT_JAR), dir.resolve("agent").resolve("target").resolve(AGENT_JAR))) {
                Path n = p.normalize();
                if (Files.isRegularFile(n)) {
                    return n;
                }
                looked.add(n);
            }
        }
        throw CliException.connect("agent jar not found (looked at " + looked
                + "); build it (mvn -B package at the repository root) or pass --agent <path> or set $"
                + AGENT_ENV, null);
    }

    private static Path existing(Path p, String from) throws CliException {
        if (!Files.isRegularFile(p)) {
            // The path given is wrong: a bad argument (exit 2), which retrying will not fix, not
            // an unreachable JVM (exit 3, which scripts may retry).
            throw CliException.invalid("agent jar " + p + " (from " + from + ") does not exist");
        }
        return p.toAbsolutePath().normalize();
    }

    private static Path ownDirectory() {
        try {
            CodeSource cs = Turntablectl.class.getProtectionDomain().getCodeSource();
            if (cs == null || cs.getLocation() == null) {
                return null;
            }
            Path p = Paths.get(cs.getLocation().toURI()).toAbsolutePath();
            return Files.isRegularFile(p) ? p.getParent() : p;
        } catch (URISyntaxException | RuntimeException e) {
            return null;
        }
    }

    // ------------------------------------------------------------------ argument checks

    private static void arity(String command, List<String> args, int min, int max, String form) throws CliException {
        if (args.size() < min || args.size() > max) {
            throw CliException.usage(command + " takes " + (min == max ? String.valueOf(min) : min + " to " + max)
                    + " argument" + (max == 1 ? "" : "s") + " (" + form + "), got " + args.size()
                    + (args.isEmpty() ? "" : ": " + String.join(" ", args)));
        }
    }

    private static void noTarget(Options o, String command) throws CliException {
        if (o.pid != null || o.url != null) {
            throw CliException.usage(command + " works on local JVMs itself; it takes no --pid or --url");
        }
    }

    private static String pid(String text, String what) throws CliException {
        if (!text.matches("[0-9]{1,18}") || text.matches("0+")) {
            throw CliException.usage(what + " '" + text + "' is not a process id (a positive whole number)");
        }
        return text;
    }

    private static long number(String option, String text, long min, long max, String allowed) throws CliException {
        try {
            long v = Long.parseLong(text.trim());
            if (v >= min && v <= max) {
                return v;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw CliException.usage(option + " '" + text + "' is not valid: expected " + allowed);
    }

    /** The parsed command line: options anywhere, {@code --} ends them. Not thread-safe. */
    static final class Options {
        String pid;
        String url;
        String agent;
        String interval;
        String count;
        boolean json;
        boolean help;
        final List<String> positional = new ArrayList<>();

        /**
         * Whether the command line asks for {@code --json}, read before (and whether or not)
         * it parses, so that a command line that does not parse is also answered in JSON.
         */
        static boolean asksForJson(String[] args) {
            for (String a : args) {
                if (a.equals("--")) {
                    return false;
                }
                if (a.equals("--json") || a.equalsIgnoreCase("--json=true")) {
                    return true; // --json=true is refused, but in the form its writer asked for
                }
            }
            return false;
        }

        static Options parse(String[] args) throws CliException {
            Options o = new Options();
            String command = commandIn(args);
            boolean optionsEnded = false;
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                if (optionsEnded || !a.startsWith("--") && !a.equals("-h")) {
                    o.positional.add(a);
                    continue;
                }
                if (a.equals("--")) {
                    optionsEnded = true;
                    continue;
                }
                if (a.equals("--json")) {
                    o.json = true;
                    continue;
                }
                if (a.equals("--help") || a.equals("-h")) {
                    o.help = true;
                    continue;
                }
                int eq = a.indexOf('=');
                String key = eq < 0 ? a : a.substring(0, eq);
                if (key.equals("--json") || key.equals("--help")) {
                    throw CliException.usage(key + " is a flag and takes no value, not '" + a + "': write " + key + " alone");
                }
                if (!VALUE_OPTIONS.contains(key)) {
                    throw CliException.usage("unknown option '" + a + "'; " + optionsLine(command, false));
                }
                String value;
                if (eq >= 0) {
                    value = a.substring(eq + 1);
                } else if (i + 1 < args.length) {
                    value = args[++i];
                } else {
                    throw CliException.usage(key + " needs a value");
                }
                o.set(key, value);
            }
            if (o.pid != null && o.url != null) {
                throw CliException.usage("--pid and --url name the JVM twice; give one of them");
            }
            return o;
        }

        private void set(String key, String value) throws CliException {
            String previous;
            switch (key) {
                case "--pid": previous = pid; pid = value; break;
                case "--url": previous = url; url = value; break;
                case "--agent": previous = agent; agent = value; break;
                case "--interval": previous = interval; interval = value; break;
                default: previous = count; count = value; break;
            }
            if (previous != null) {
                throw CliException.usage(key + " is given twice");
            }
        }
    }
}
