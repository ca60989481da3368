package dev.turntable.pool;

/**
 * Makes Turntable's own long-lived background threads (the engine's housekeeper, the JMX
 * reaper, the agent's JMX registration thread), which serve the pools of every application
 * sharing this library (under the agent, the whole JVM) and so must keep no class loader of the
 * thread that happens to make them: in an application server that thread is a web application's,
 * and its loader would stay in memory after the application is undeployed, for as long as any
 * other application's pool lives. Such a thread that must run some code with an application's
 * context class loader remembers it weakly ({@link #callersContextLoader()}) and sets it only
 * around that code ({@link #setContextLoader}), back to none afterwards. Public for Turntable's
 * other modules, not part of the engine's API. Any thread.
 */
public final class ServiceThreads {

    private ServiceThreads() {
    }

    /**
     * An unstarted daemon thread named {@code name} running {@code body}, with:
     * <ul>
     *   <li>no context class loader (set one around application code it runs, as the
     *       housekeeper does for each pool);</li>
     *   <li>no inherited thread-locals;</li>
     *   <li>the root thread group, not the caller's (an application's own group would be held,
     *       could not be destroyed at undeploy, and would cap the thread's priority);</li>
     *   <li>no access-control context of the calling stack: on JDK 17 and 18 a new thread keeps
     *       the one of the stack that made it, whose protection domains hold their class loaders,
     *       so it is made in a privileged block (a test shows a web application's loader
     *       collected only then).</li>
     * </ul>
     * Under a security manager that refuses Turntable the root group or the context loader
     * change, the thread keeps the caller's group or loader rather than not being made. On a JDK
     * without {@code AccessController} (deprecated for removal; a no-op since JDK 24, whose
     * threads no longer capture an access-control context) the thread is made as it is.
     */
    public static Thread newThread(String name, Runnable body) {
        try {
            return Privileged.newThread(name, body);
        } catch (LinkageError noAccessController) {
            return unprivilegedThread(name, body);
        }
    }

    /** {@link #newThread} without the privileged block. Package-private for tests. */
    static Thread unprivilegedThread(String name, Runnable body) {
        Thread t = new Thread(rootGroup(), body, name, 0, false);
        t.setDaemon(true);
        setContextLoader(t, null); // refused: keeps the caller's, the thread is still needed
        return t;
    }

    /**
     * Everything that names {@code java.security}, apart, so that on a JDK without it only this
     * class fails to link, and callers fall back to the plain calls.
     */
    @SuppressWarnings("removal") // AccessController: the one way to shed the caller's context on JDK 17-23
    private static final class Privileged {
        static Thread newThread(String name, Runnable body) {
            java.security.PrivilegedAction<Thread> make = () -> unprivilegedThread(name, body);
            return java.security.AccessController.doPrivileged(make);
        }

        static ClassLoader callersContextLoader() {
            java.security.PrivilegedAction<ClassLoader> read = () -> Thread.currentThread().getContextClassLoader();
            return java.security.AccessController.doPrivileged(read);
        }
    }

    /**
     * Sets {@code t}'s context class loader; false, changing nothing, where a security manager
     * refuses it.
     */
    public static boolean setContextLoader(Thread t, ClassLoader loader) {
        try {
            t.setContextClassLoader(loader);
            return true;
        } catch (SecurityException refused) {
            return false;
        }
    }

    /** The root thread group, or {@code null} (the caller's) where a security manager will not say. */
    private static ThreadGroup rootGroup() {
        try {
            ThreadGroup g = Thread.currentThread().getThreadGroup();
            while (g != null && g.getParent() != null) {
                g = g.getParent();
            }
            return g;
        } catch (SecurityException refused) {
            return null;
        }
    }

    /**
     * The calling thread's context class loader, weakly (so a long-lived pool built on an
     * application's thread, or a service thread it started, does not keep that application), or
     * {@code null} where it has none or a security manager will not say.
     */
    public static java.lang.ref.WeakReference<ClassLoader> callersContextLoader() {
        try {
            ClassLoader l;
            try {
                l = Privileged.callersContextLoader();
            } catch (LinkageError noAccessController) {
                l = Thread.currentThread().getContextClassLoader();
            }
            return l == null ? null : new java.lang.ref.WeakReference<>(l);
        } catch (SecurityException refused) {
            return null;
        }
    }
}
