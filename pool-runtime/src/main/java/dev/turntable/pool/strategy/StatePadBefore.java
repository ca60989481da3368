package dev.turntable.pool.strategy;

/**
 * 128 bytes of padding that a stateful strategy's per-choice state extends, so that the state
 * sits a pair of cache lines past the object header and whatever the heap put before the
 * strategy (the round robins; each adds its own padding after its state). Never instantiated
 * on its own; no thread reads or writes these fields.
 *
 * <p>Ints, not longs: longs start 8-aligned and leave the 4 bytes after a 12-byte header empty,
 * and HotSpot (JDK 15+) puts a subclass's int into such a gap, so with long padding the round
 * robin's cursor sat at offset 12, on the object's first line. 128 bytes, not one 64-byte line:
 * Intel's spatial prefetcher fetches lines in 128-byte-aligned pairs, so a write 64 bytes away
 * can still cost a reader its line; the JDK's {@code @Contended} and JCTools pad 128 too.
 * {@code StrategyLayoutTest} checks the offsets.
 */
abstract class StatePadBefore {
    int p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p0a, p0b, p0c, p0d, p0e, p0f,
            p10, p11, p12, p13, p14, p15, p16, p17, p18, p19, p1a, p1b, p1c, p1d, p1e, p1f;
}
