package dev.turntable.agent;

import com.sun.tools.attach.VirtualMachine;
import dev.turntable.jmx.AgentLoadStatus;
import java.net.URISyntaxException;
import java.util.List;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Loads the agent into a running JVM by process id (its {@code agentmain} runs there): the agent
 * jar's {@code Main-Class}, for {@code java -jar turntable-agent.jar <pid> [OPTIONS]} where
 * turntablectl is not at hand. {@code turntablectl attach} is the fuller path (it also refuses a
 * JVM that runs the agent already, and tells its own load from a concurrent one); this one checks
 * the options and reports what the agent said. Any thread may call {@link #attach}; each call
 * opens and closes its own attach connection.
 */
public final class Attach {

    private Attach() {
    }

    /**
     * Attaches to {@code pid} and loads {@code agentJar} with {@code options} (may be null).
     *
     * @throws Exception what the attach API throws: no such JVM, attach refused, agent failed to load
     */
    public static void attach(String pid, Path agentJar, String options) throws Exception {
        VirtualMachine vm = VirtualMachine.attach(pid);
        try {
            vm.loadAgent(agentJar.toAbsolutePath().toString(), options);
        } finally {
            vm.detach();
        }
    }

    /** Attaches the jar this class was loaded from. */
    public static void attach(String pid, String options) throws Exception {
        attach(pid, ownJar(), options);
    }

    /** The jar holding this class: the agent jar. */
    public static Path ownJar() throws URISyntaxException {
        Path p = Paths.get(Attach.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        if (!p.toString().endsWith(".jar")) {
            throw new IllegalStateException("not running from the agent jar but from " + p);
        }
        return p;
    }

    /**
     * {@code <pid> [OPTIONS]}: exit code 0 attached, 2 bad usage or options (nothing attached), 3
     * the attach failed, 4 the JVM left its pools untouched or runs the agent already.
     */
    public static void main(String[] args) {
        if (args.length < 1 || args.length > 2 || !args[0].matches("\\d+")) {
            System.err.println("usage: java -jar turntable-agent.jar <pid> [key=value,key=value...]");
            System.exit(2);
        }
        String options = args.length > 1 ? args[1] : null;
        List<String> problems = OptionsCheck.problems(options);
        if (!problems.isEmpty()) {
            problems.forEach(l -> System.err.println(Log.PREFIX + l));
            System.err.println(Log.PREFIX + "nothing attached");
            System.exit(2);
        }
        AgentLoadStatus status;
        try {
            VirtualMachine vm = VirtualMachine.attach(args[0]);
            try {
                vm.loadAgent(ownJar().toAbsolutePath().toString(), options);
                status = AgentLoadStatus.parse(vm.getSystemProperties().getProperty(AgentLoadStatus.PROPERTY));
            } finally {
                vm.detach();
            }
        } catch (Exception e) {
            System.err.println(Log.PREFIX + "cannot attach to " + args[0] + ": " + e);
            System.exit(3);
            return;
        }
        if (status == null) {
            System.err.println(Log.PREFIX + "JVM " + args[0] + " loaded the agent, which left no word of what it did"
                    + " (under a security manager the agent jar needs a grant); that JVM's output says why");
            System.exit(4);
        }
        if (!status.started()) {
            System.err.println(Log.PREFIX + "JVM " + args[0] + " did not start the agent: " + String.join("; ", status.lines()));
            System.exit(4);
        }
        for (String line : status.lines()) {
            System.err.println(Log.PREFIX + "JVM " + args[0] + " started the agent, and says: " + line);
        }
        System.out.println("attached to " + args[0]);
    }
}
