package dev.turntable.jmx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** What the agent writes after a load is what turntablectl reads back, state, id and lines. */
class AgentLoadStatusTest {

    @Test
    void aLoadsStatusReadsBackAsItWasWritten() {
        String value = AgentLoadStatus.format(AgentLoadStatus.UNTOUCHED, "5f3a",
                List.of("option config=x cannot be read; leaving the application untouched", "second line"));
        AgentLoadStatus s = AgentLoadStatus.parse(value);
        assertEquals(AgentLoadStatus.UNTOUCHED, s.state());
        assertTrue(s.isOf("5f3a"));
        assertFalse(s.isOf("5f3b"));
        assertFalse(s.started());
        assertFalse(s.agentRuns());
        assertEquals(List.of("option config=x cannot be read; leaving the application untouched", "second line"), s.lines());
    }

    @Test
    void withoutAnIdOrLinesAndForEachState() {
        AgentLoadStatus running = AgentLoadStatus.parse(AgentLoadStatus.format(AgentLoadStatus.RUNNING, null, List.of()));
        assertTrue(running.started() && running.agentRuns());
        assertFalse(running.isOf(null), "a load without an id is no client's own");
        assertEquals(List.of(), running.lines());
        AgentLoadStatus already = AgentLoadStatus.parse(AgentLoadStatus.format(AgentLoadStatus.ALREADY_RUNNING, "a1", List.of()));
        assertFalse(already.started());
        assertTrue(already.agentRuns());
        assertEquals(AgentLoadStatus.ALREADY_RUNNING, already.state());
        assertNull(AgentLoadStatus.parse(null), "no agent was loaded");
    }
}
