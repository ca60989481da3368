package dev.turntable.agent;

/**
 * The management interface of {@code dev.turntable:type=Agent}: what the agent runs with and every
 * pool it has seen. Read-only; JMX clients call it on their connection threads.
 */
public interface AgentMXBean {

    /** The agent's version. */
    String getVersion();

    /** The effective options, one {@code key=value} per line. */
    String getOptions();

    /** One row per pool the agent has seen and that is still reachable: name, creation site, managed, reason. */
    PoolInfo[] getPools();
}
