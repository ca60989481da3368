package dev.turntable.jmx;

import java.util.ArrayList;
import java.util.List;

/**
 * What one load of the Turntable agent did, as the agent leaves it in the JVM's system property
 * {@value #PROPERTY} and as {@code turntablectl attach} and {@code java -jar turntable-agent.jar}
 * read it back through the Attach API: the agent's own lines go to the application's output,
 * which the operator who attached does not see. One class for both sides (the agent jar carries
 * it), so writer and readers cannot drift apart. Immutable; any thread.
 *
 * <p>The value's first line is the state ({@value #RUNNING}: this load started the agent;
 * {@value #ALREADY_RUNNING}: it did nothing, the agent runs already; {@value #UNTOUCHED}: it did
 * nothing and the agent does not run), followed by {@code " #<id>"} when the load was given an
 * {@code attach-id}; the lines the load printed follow, one per line. The load that starts the
 * agent also leaves its id (or an empty string) in {@value #STARTED_BY}: two clients attaching at
 * the same moment can overwrite each other's status, but each can still tell whether its own
 * load started the agent.
 */
public final class AgentLoadStatus {

    public static final String PROPERTY = "dev.turntable.agent.status";
    public static final String STARTED_BY = "dev.turntable.agent.startedBy";
    /**
     * Set to {@code "true"} by an agent that runs with {@code jmx=false}: it registers no MBeans,
     * so a client has nothing to read there and does not connect (a connection starts the JVM's
     * local management agent).
     */
    public static final String JMX_OFF = "dev.turntable.agent.jmxOff";
    public static final String RUNNING = "running";
    public static final String ALREADY_RUNNING = "already running";
    public static final String UNTOUCHED = "untouched";

    private final String state;
    private final String id;
    private final List<String> lines;

    private AgentLoadStatus(String state, String id, List<String> lines) {
        this.state = state;
        this.id = id;
        this.lines = List.copyOf(lines);
    }

    /** The property's value for one load ({@code attachId} may be null). */
    public static String format(String state, String attachId, List<String> lines) {
        StringBuilder b = new StringBuilder(state);
        if (attachId != null) {
            b.append(" #").append(attachId);
        }
        for (String l : lines) {
            b.append('\n').append(l);
        }
        return b.toString();
    }

    /** The status a property value holds, or null for null (no Turntable agent was loaded). */
    public static AgentLoadStatus parse(String value) {
        if (value == null) {
            return null;
        }
        String[] parts = value.split("\n");
        String first = parts[0];
        int mark = first.lastIndexOf(" #");
        String state = mark < 0 ? first : first.substring(0, mark);
        String id = mark < 0 ? null : first.substring(mark + 2);
        List<String> lines = new ArrayList<>();
        for (int i = 1; i < parts.length; i++) {
            lines.add(parts[i]);
        }
        return new AgentLoadStatus(state, id, lines);
    }

    /** Whether this load started the agent. */
    public boolean started() {
        return RUNNING.equals(state);
    }

    /** Whether the agent runs after this load (it started it, or it ran already). */
    public boolean agentRuns() {
        return started() || ALREADY_RUNNING.equals(state);
    }

    /** Whether this is the status of the load given {@code attachId}. */
    public boolean isOf(String attachId) {
        return attachId != null && attachId.equals(id);
    }

    /** {@value #RUNNING}, {@value #ALREADY_RUNNING} or {@value #UNTOUCHED} (or what an agent of another version wrote). */
    public String state() {
        return state;
    }

    /** The lines the load printed. */
    public List<String> lines() {
        return lines;
    }
}
