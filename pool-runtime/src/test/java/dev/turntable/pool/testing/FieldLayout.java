package dev.turntable.pool.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where the JVM running the tests put the instance fields of a class and its superclasses, read
 * with {@code sun.misc.Unsafe.objectFieldOffset}, and assertions about which of them may share a
 * cache line. Immutable once built; any thread.
 *
 * <p>Why offsets and not timings: a field that shares a line with one another thread writes
 * costs a miss per access, which shows only as a throughput loss that no unit test may time.
 * Two fields at least {@link #LINE} bytes apart never share a line, whatever the object's
 * address; a field at least {@link #LINE} bytes from both ends of its object shares none with the
 * objects the heap puts beside it.
 */
public final class FieldLayout {

    /**
     * How far apart two fields must be never to share a line: 128 bytes. Lines are 64 bytes on
     * x86 and most ARM cores, but Intel's spatial prefetcher fetches them in 128-byte-aligned
     * pairs, and Apple's cores have 128-byte lines; the JDK's {@code @Contended} and JCTools
     * pad 128 bytes for the same reasons.
     */
    public static final int LINE = 128;

    private final Class<?> type;
    private final Map<String, Long> offsets;
    private final Map<String, Integer> sizes;
    private final long end;

    private FieldLayout(Class<?> type, Map<String, Long> offsets, Map<String, Integer> sizes, long end) {
        this.type = type;
        this.offsets = Collections.unmodifiableMap(offsets);
        this.sizes = Collections.unmodifiableMap(sizes);
        this.end = end;
    }

    /** The layout of {@code type}'s instance fields, its superclasses' included. */
    public static FieldLayout of(Class<?> type) {
        sun.misc.Unsafe unsafe = unsafe();
        Map<String, Long> offsets = new LinkedHashMap<>();
        Map<String, Integer> sizes = new LinkedHashMap<>();
        long end = 0;
        for (Class<?> c = type; c != Object.class; c = c.getSuperclass()) {
            for (Field field : c.getDeclaredFields()) {
                if (Modifier.isStatic(field.getModifiers())) {
                    continue;
                }
                long off = unsafe.objectFieldOffset(field);
                offsets.put(field.getName(), off);
                sizes.put(field.getName(), size(unsafe, field.getType()));
                end = Math.max(end, off + size(unsafe, field.getType()));
            }
        }
        return new FieldLayout(type, offsets, sizes, end);
    }

    private static sun.misc.Unsafe unsafe() {
        try {
            Field f = Class.forName("sun.misc.Unsafe").getDeclaredField("theUnsafe");
            f.setAccessible(true);
            return (sun.misc.Unsafe) f.get(null);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError("cannot read field offsets on this JVM", e);
        }
    }

    private static int size(sun.misc.Unsafe unsafe, Class<?> fieldType) {
        if (!fieldType.isPrimitive()) {
            return unsafe.arrayIndexScale(Object[].class); // a reference: 4 compressed, 8 otherwise
        }
        return fieldType == long.class || fieldType == double.class ? 8
                : fieldType == int.class || fieldType == float.class ? 4
                : fieldType == short.class || fieldType == char.class ? 2 : 1;
    }

    /** The offset of field {@code name}; fails naming the fields there are if it has none. */
    public long offset(String name) {
        Long o = offsets.get(name);
        assertTrue(o != null, () -> "no field " + name + " in " + type.getSimpleName() + "'s hierarchy; fields: " + offsets.keySet());
        return o;
    }

    /** Where the last field ends. */
    public long end() {
        return end;
    }

    /** Fails, naming the pairs and {@code why}, if any field of {@code a} is within a line of any of {@code b}. */
    public void assertApart(List<String> a, List<String> b, String why) {
        List<String> close = new ArrayList<>();
        for (String x : a) {
            for (String y : b) {
                if (Math.abs(offset(x) - offset(y)) < LINE) {
                    close.add(x + "@" + offset(x) + " / " + y + "@" + offset(y));
                }
            }
        }
        assertTrue(close.isEmpty(), () -> why + ": within one cache line: " + close + "; layout: " + offsets);
    }

    /** Fails if a field of {@code names} is within a line of the object's start (the object before it in the heap). */
    public void assertOffTheObjectBefore(List<String> names, String why) {
        for (String name : names) {
            assertTrue(offset(name) >= LINE, () -> name + " at " + offset(name) + " may share a line with the object before the "
                    + type.getSimpleName() + ": " + why + "; layout: " + offsets);
        }
    }

    /**
     * Fails if a field of {@code names} ends within a line of the object's end (the object after
     * it in the heap); the object's end is where its last field ends, so alignment padding only
     * adds room.
     */
    public void assertOffTheObjectAfter(List<String> names, String why) {
        for (String name : names) {
            long fieldEnd = offset(name) + sizes.get(name);
            assertTrue(end - fieldEnd >= LINE, () -> name + " at " + offset(name) + " ends within a line of the "
                    + type.getSimpleName() + "'s end (" + end + "): " + why + "; layout: " + offsets);
        }
    }
}
