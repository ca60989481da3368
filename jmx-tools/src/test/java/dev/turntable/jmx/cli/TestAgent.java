package dev.turntable.jmx.cli;

/**
 * A java agent for {@link ForkedJvmTest}'s {@code attach}: records its options in the system
 * property {@code turntable.test.agent}, or refuses to start when they are {@code fail}.
 */
public final class TestAgent {

    private TestAgent() {
    }

    public static void agentmain(String options) {
        if ("fail".equals(options)) {
            throw new IllegalStateException("refusing on purpose");
        }
        System.setProperty("turntable.test.agent", options == null ? "" : options);
    }
}
