package dev.turntable.agent.definer;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.ThreadPoolExecutor;

/**
 * Defines classes in {@code java.util.concurrent}, in the bootstrap class loader, with the
 * supported {@link MethodHandles.Lookup#defineClass}, and finds their package-private members
 * for the agent: the one place the agent reaches into {@code java.base}. Any thread may call it.
 *
 * <p>Never loaded from the agent jar: {@code BootClasses} loads it, from its bytes, into a module
 * of its own ({@code dev.turntable.definer}, in a module layer only the agent holds), and opens
 * {@code java.util.concurrent} to that module alone. So the application's code, which shares the
 * agent jar's unnamed module, gains no access to {@code java.base} it did not have, and the
 * classes defined keep their members package-private: only {@code ThreadPoolExecutor} and
 * {@code ForkJoinPool}, in the same package, call them.
 */
public final class JavaBaseDefiner {

    private JavaBaseDefiner() {
    }

    /**
     * Defines {@code bytes}, a class named {@code java/util/concurrent/...}, next to
     * {@code ThreadPoolExecutor}.
     *
     * @throws IllegalAccessException if {@code java.util.concurrent} is not open to this class's module
     */
    public static Class<?> define(byte[] bytes) throws IllegalAccessException {
        return lookupIn(ThreadPoolExecutor.class).defineClass(bytes);
    }

    /** A handle that sets the static field {@code name} of {@code owner}, a class this defined. */
    public static MethodHandle staticSetter(Class<?> owner, String name, Class<?> type)
            throws ReflectiveOperationException {
        return lookupIn(owner).findStaticSetter(owner, name, type);
    }

    /** A handle on the static method {@code name} of {@code owner}, a class this defined. */
    public static MethodHandle staticMethod(Class<?> owner, String name, MethodType type)
            throws ReflectiveOperationException {
        return lookupIn(owner).findStatic(owner, name, type);
    }

    /** A handle that reads the instance field {@code name} of {@code owner}, a {@code java.util.concurrent} class. */
    public static MethodHandle getter(Class<?> owner, String name, Class<?> type) throws ReflectiveOperationException {
        return lookupIn(owner).findGetter(owner, name, type);
    }

    private static MethodHandles.Lookup lookupIn(Class<?> owner) throws IllegalAccessException {
        if (owner.getClassLoader() != null || !owner.getPackageName().equals("java.util.concurrent")) {
            throw new IllegalArgumentException(owner + " is not in java.util.concurrent");
        }
        return MethodHandles.privateLookupIn(owner, MethodHandles.lookup());
    }
}
