package dev.turntable.agent;

import java.util.List;

/**
 * What the last load of the agent did, left in this JVM's system property {@value #PROPERTY}
 * for {@code turntablectl attach}, which reads it through the Attach API: the agent's lines go
 * to the application's standard error, which the operator who attached does not see. The first
 * line is {@value #RUNNING} (this load started the agent), {@value #ALREADY_RUNNING} (it did
 * nothing: the agent runs already) or {@value #UNTOUCHED} (it did nothing and the agent does not
 * run), followed by {@code " #<id>"} when the load was given an {@code attach-id}; the lines the
 * load printed follow, one per line. The load that starts the agent also leaves its id (or an
 * empty string) in {@value #STARTED_BY}: two clients attaching at the same moment can overwrite
 * each other's status, but each can still tell whether its own load started the agent. Written
 * on the agent-loading thread.
 */
final class AgentStatus {

    static final String PROPERTY = "dev.turntable.agent.status";
    static final String STARTED_BY = "dev.turntable.agent.startedBy";
    static final String RUNNING = "running";
    static final String ALREADY_RUNNING = "already running";
    static final String UNTOUCHED = "untouched";

    private AgentStatus() {
    }

    /**
     * Records one load's outcome ({@code attachId} may be null); never throws (a security manager
     * may refuse the property).
     */
    static void record(String state, List<String> lines, String attachId) {
        StringBuilder b = new StringBuilder(state);
        if (attachId != null) {
            b.append(" #").append(attachId);
        }
        for (String l : lines) {
            b.append('\n').append(l);
        }
        try {
            if (RUNNING.equals(state)) {
                System.setProperty(STARTED_BY, attachId == null ? "" : attachId);
            }
            System.setProperty(PROPERTY, b.toString());
        } catch (RuntimeException e) {
            // Only turntablectl's report of this load is lost; the lines were printed.
        }
    }
}
