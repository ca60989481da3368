package dev.turntable.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The application ends as it would without the agent: same exit code, and no hang when the
 * non-daemon threads of a shut-down managed pool are all that is left.
 */
class ExitIT {

    @ParameterizedTest(name = "{0}")
    @MethodSource(ForkedJvm.JDKS)
    void exitCodesAreTheApplications(ForkedJvm jvm) throws Exception {
        jvm.assumeInstalled();
        for (String[] c : new String[][] {{"return", "0"}, {"timeout", "0"}, {"exit7", "7"}, {"throw", "1"}}) {
            ForkedJvm.Result r = jvm.run(jvm.command(List.of(ForkedJvm.agent(null)), "com.example.apps.ExitApp", c[0]), 30);
            assertEquals(Integer.parseInt(c[1]), r.exitCode, c[0] + "\n" + r);
            assertTrue(r.out().contains("WORKED"), r::toString);
            assertEquals(List.of(), r.agentLines(), r::toString);
            if (c[0].equals("throw")) {
                assertTrue(r.stderr.contains("the app fails on purpose"), r::toString);
            }
        }
    }
}
