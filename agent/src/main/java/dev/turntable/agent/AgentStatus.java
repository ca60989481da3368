package dev.turntable.agent;

import dev.turntable.jmx.AgentLoadStatus;
import java.util.List;

/**
 * Leaves what one load of the agent did in this JVM's system properties, in the form
 * {@link AgentLoadStatus} defines, for {@code turntablectl attach}. Written on the agent-loading
 * thread.
 */
final class AgentStatus {

    private AgentStatus() {
    }

    /**
     * Leaves {@link AgentLoadStatus#JMX_OFF} set when the agent starts with {@code jmx=false}, so
     * that {@code turntablectl jvms} does not connect (and start a management agent) where there
     * is nothing to read; never throws.
     */
    static void recordJmx(boolean jmxOn) {
        try {
            if (jmxOn) {
                System.clearProperty(AgentLoadStatus.JMX_OFF);
            } else {
                System.setProperty(AgentLoadStatus.JMX_OFF, "true");
            }
        } catch (RuntimeException e) {
            // Only the listing's shortcut is lost: it connects and finds no MBean, as before.
        }
    }

    /**
     * Records one load's outcome ({@code state} one of {@link AgentLoadStatus}'s; {@code attachId}
     * may be null); never throws (a security manager may refuse the property).
     */
    static void record(String state, List<String> lines, String attachId) {
        try {
            if (AgentLoadStatus.RUNNING.equals(state)) {
                System.setProperty(AgentLoadStatus.STARTED_BY, attachId == null ? "" : attachId);
            }
            System.setProperty(AgentLoadStatus.PROPERTY, AgentLoadStatus.format(state, attachId, lines));
        } catch (RuntimeException e) {
            // Only turntablectl's report of this load is lost; the lines were printed.
        }
    }
}
