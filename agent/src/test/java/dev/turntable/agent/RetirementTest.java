package dev.turntable.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Properties;
import org.junit.jupiter.api.Test;

class RetirementTest {

    private static Options options(String args) {
        return OptionsParser.parse(args, new Properties()).options();
    }

    @Test
    void supportedOnlyOnceTheAdviceIsInstalled() {
        Retirement r = new Retirement(null);
        assertFalse(r.supported(), "not before ThreadPoolExecutor is transformed");
        assertTrue(r.unavailableReason().contains("runWorker"), r.unavailableReason());
        r.adviceInstalled();
        assertTrue(r.supported());
        assertNull(r.unavailableReason());
        assertNull(r.unavailableLine(options("max-lifetime-tasks=10")), "nothing to say when it works");
        r.adviceFailed("ThreadPoolExecutor could not be retransformed: boom");
        assertFalse(r.supported(), "the latest report wins");
    }

    @Test
    void aJdkWithoutRunWorkerNeverRetiresAndSaysSoInOneLineWhenAsked() {
        Retirement r = new Retirement("ThreadPoolExecutor has no runWorker(Worker) to catch a retired worker's signal in");
        r.adviceInstalled(); // the other advice went in; this one had nothing to go into
        assertFalse(r.supported());
        String line = r.unavailableLine(options("max-lifetime-tasks=10"));
        assertTrue(line.startsWith("option max-lifetime-tasks=10 cannot take effect: worker retirement is unavailable"
                + " on this JVM (" + System.getProperty("java.version") + "): ThreadPoolExecutor has no runWorker"), line);
        assertTrue(line.endsWith("; workers are never retired, max-lifetime-tasks stays 0"), line);
        assertFalse(line.contains("\n"));
        assertNull(r.unavailableLine(options("max-concurrent-tasks=2")), "silent when retirement is not asked for");
        assertEquals(0, options(null).maxLifetimeTasks());
    }
}
