package com.example.apps;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A test application that builds no pool at all: under the agent, the threads the agent's
 * warm-up started (its workers, and the housekeeper their queue started) must end by themselves.
 * Waits up to 10 s for them, then prints {@code LEFT [names]} and exits.
 */
public final class NoPoolApp {

    private NoPoolApp() {
    }

    public static void main(String[] args) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        List<String> left;
        do {
            Thread.sleep(50); // watching other threads end: there is nothing of theirs to wait on
            left = Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                    .filter(n -> n.startsWith("turntable-warmup") || n.equals("turntable-housekeeper"))
                    .sorted().collect(Collectors.toList());
        } while (!left.isEmpty() && System.nanoTime() < deadline);
        System.out.println("LEFT " + left);
    }
}
