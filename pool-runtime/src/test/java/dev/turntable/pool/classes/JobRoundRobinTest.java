package dev.turntable.pool.classes;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class JobRoundRobinTest {

    @Test
    void jobsWithFewestRunningTasksGoFirstThenRoundRobin() {
        // level 0: jobs 1 and 3 (job 1 then has nothing left); level 1: job 2, then job 3 promoted;
        // level 2: job 0, then job 2 promoted - sixth task reached
        int[] starts = JobRoundRobin.startsPerJob(new int[] {2, 0, 1, 0}, new int[] {5, 1, 5, 5}, 6);
        assertArrayEquals(new int[] {1, 1, 2, 2}, starts);
    }

    @Test
    void equalJobsAreServedInTheOrderGiven() {
        assertArrayEquals(new int[] {2, 1, 1}, JobRoundRobin.startsPerJob(new int[3], new int[] {2, 2, 2}, 4));
        assertArrayEquals(new int[] {1, 1, 0}, JobRoundRobin.startsPerJob(new int[3], new int[] {2, 2, 2}, 2));
    }

    @Test
    void aBusyJobWaitsUntilTheOthersCatchUp() {
        int[] starts = JobRoundRobin.startsPerJob(new int[] {1_000_000, 0}, new int[] {3, 3}, 5);
        assertArrayEquals(new int[] {2, 3}, starts, "the idle job's 3 first, then the busy one");
        assertArrayEquals(new int[] {0, 4}, JobRoundRobin.startsPerJob(new int[] {5, 0}, new int[] {9, 9}, 4));
    }

    @Test
    void neverMoreThanWaitingNorMoreThanAsked() {
        int[] out = new int[3];
        assertEquals(4, JobRoundRobin.startsPerJob(new int[] {0, 3, 1}, new int[] {1, 0, 3}, 10, out));
        assertArrayEquals(new int[] {1, 0, 3}, out);
        assertArrayEquals(new int[] {0, 0}, JobRoundRobin.startsPerJob(new int[] {0, 0}, new int[] {4, 4}, 0));
        assertArrayEquals(new int[0], JobRoundRobin.startsPerJob(new int[0], new int[0], 7));
    }

    @Test
    void manyJobsShareEvenly() {
        int[] running = new int[1000];
        int[] waiting = new int[1000];
        Arrays.fill(waiting, 10);
        int[] starts = JobRoundRobin.startsPerJob(running, waiting, 5000);
        assertEquals(5, Arrays.stream(starts).min().getAsInt());
        assertEquals(5, Arrays.stream(starts).max().getAsInt());
    }

    @Test
    void badInputIsRejected() {
        assertThrows(IllegalArgumentException.class, () -> JobRoundRobin.startsPerJob(new int[2], new int[3], 1));
        assertThrows(IllegalArgumentException.class, () -> JobRoundRobin.startsPerJob(new int[] {-1}, new int[1], 1));
        assertThrows(IllegalArgumentException.class, () -> JobRoundRobin.startsPerJob(new int[1], new int[1], -1));
    }
}
