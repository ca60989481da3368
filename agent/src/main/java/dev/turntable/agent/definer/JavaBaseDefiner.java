package dev.turntable.agent.definer;

import java.lang.invoke.MethodHandles;
import java.util.concurrent.ThreadPoolExecutor;

/**
 * Defines a class in {@code java.util.concurrent}, in the bootstrap class loader, with the
 * supported {@link MethodHandles.Lookup#defineClass}: the one place the agent does so. Any
 * thread may call it.
 *
 * <p>Never loaded from the agent jar: {@code BootClasses} loads it, from its bytes, into a module
 * of its own ({@code dev.turntable.definer}, in a module layer the agent makes), and opens
 * {@code java.util.concurrent} to that module alone. So the application's code, which shares the
 * agent jar's unnamed module, gains no access to {@code java.base} it did not have.
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
        return MethodHandles.privateLookupIn(ThreadPoolExecutor.class, MethodHandles.lookup()).defineClass(bytes);
    }
}
