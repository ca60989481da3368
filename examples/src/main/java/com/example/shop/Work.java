package com.example.shop;

/**
 * CPU work of a given length, the way a real handler burns time (parsing, pricing, rendering):
 * a busy loop that checks the clock. Stateless; any thread.
 */
final class Work {

    private Work() {
    }

    /** Spins for about {@code micros} microseconds and returns a value so the JIT keeps the loop. */
    static long busy(long micros) {
        long end = System.nanoTime() + micros * 1_000L;
        long x = micros;
        do {
            for (int i = 0; i < 64; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
            }
        } while (System.nanoTime() < end);
        return x;
    }

    /** Whether task number {@code id} is one of the 5% long ones (a fixed, well-spread choice). */
    static boolean isLong(long id) {
        long z = id + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        z ^= z >>> 31;
        return Math.floorMod(z, 100) < 5;
    }
}
