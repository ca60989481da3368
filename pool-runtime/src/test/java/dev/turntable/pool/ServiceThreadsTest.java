package dev.turntable.pool;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Turntable's background threads (the housekeeper, the JMX reaper) serve the pools of every
 * application that shares the engine (under the agent, the whole JVM) for as long as any lives,
 * so they must keep nothing of the application whose thread happened to start them: in an
 * application server, that would keep an undeployed web application's classes in memory while
 * the other applications' pools run.
 */
class ServiceThreadsTest {

    /**
     * Code of the "web application": defined by its own class loader, so its frame carries that
     * loader; it also leaves one of its objects in an inheritable thread-local, as a request
     * context or logging MDC would.
     */
    public static final class WebAppCode implements Function<Supplier<Thread>, Thread> {
        private static final InheritableThreadLocal<Object> REQUEST = new InheritableThreadLocal<>();

        @Override
        public Thread apply(Supplier<Thread> make) {
            REQUEST.set(this);
            return make.get();
        }
    }

    /** The web application's own thread group class, as some servers and frameworks have. */
    public static final class WebAppGroup extends ThreadGroup {
        public WebAppGroup(String name) {
            super(name);
        }
    }

    /** Loads {@link WebAppCode} itself (everything else from its parent), as a web application's loader would. */
    private static final class WebAppLoader extends ClassLoader {
        WebAppLoader(ClassLoader parent) {
            super(parent);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.equals(WebAppCode.class.getName()) && !name.equals(WebAppGroup.class.getName())) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null) {
                    try (InputStream in = getParent().getResourceAsStream(name.replace('.', '/') + ".class")) {
                        byte[] bytes = in.readAllBytes();
                        c = defineClass(name, bytes, 0, bytes.length);
                    } catch (IOException e) {
                        throw new ClassNotFoundException(name, e);
                    }
                }
                return c;
            }
        }
    }

    @Test
    void aServiceThreadKeepsNoClassLoaderOfTheApplicationThatStartedIt() throws Exception {
        AtomicReference<Thread> housekeeper = new AtomicReference<>();
        WeakReference<ClassLoader> webApp = startedFromAWebApplication(housekeeper);
        // The thread lives on (held here); the web application is undeployed: its loader must go.
        awaitCollected(webApp);
        assertNotNull(housekeeper.get());
        assertNull(housekeeper.get().getContextClassLoader());
    }

    /**
     * A shared pool built lazily on a web application's request thread lives on after that
     * application is undeployed; the engine remembers the builder's context class loader for its
     * housekeeping, but weakly, so the application can still go.
     */
    @Test
    void aLongLivedPoolKeepsNoClassLoaderOfTheThreadThatBuiltIt() throws Exception {
        AtomicReference<TurntableQueue> shared = new AtomicReference<>();
        WeakReference<ClassLoader> webApp = builtOnAWebApplicationsThread(shared);
        awaitCollected(webApp);
        assertNotNull(shared.get());
    }

    /**
     * What a JDK without {@code AccessController} gets: the same thread but for the privileged
     * block (which JDK 24 and later no longer need), made here from an application's thread in a
     * group of its own, with its own context loader and an inheritable thread-local set.
     */
    @Test
    void withoutThePrivilegedBlockTheThreadStillTakesNothingFromTheApplicationsThread() throws Exception {
        InheritableThreadLocal<String> session = new InheritableThreadLocal<>();
        ClassLoader webAppLoader = new ClassLoader(ServiceThreadsTest.class.getClassLoader()) { };
        ThreadGroup webAppGroup = new ThreadGroup("web-app");
        AtomicReference<String> sessionSeen = new AtomicReference<>("not run");
        AtomicReference<Thread> made = new AtomicReference<>();
        Thread request = new Thread(webAppGroup, () -> {
            session.set("user-42");
            made.set(ServiceThreads.unprivilegedThread("turntable-test", () -> sessionSeen.set(session.get())));
        });
        request.setContextClassLoader(webAppLoader);
        request.start();
        request.join();

        Thread t = made.get();
        assertEquals("turntable-test", t.getName());
        assertTrue(t.isDaemon());
        assertNull(t.getContextClassLoader());
        assertNull(t.getThreadGroup().getParent(), "the root group, not the web application's");
        t.start();
        t.join();
        assertNull(sessionSeen.get(), "no inherited thread-locals");
    }

    private static void awaitCollected(WeakReference<ClassLoader> loader) {
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            System.gc();
            return loader.get() == null;
        });
    }

    private static WeakReference<ClassLoader> builtOnAWebApplicationsThread(AtomicReference<TurntableQueue> built)
            throws InterruptedException {
        ClassLoader loader = new WebAppLoader(ServiceThreadsTest.class.getClassLoader());
        Thread request = new Thread(() -> built.set(TurntableQueue.builder().build()));
        request.setContextClassLoader(loader);
        request.start();
        request.join();
        return new WeakReference<>(loader);
    }

    /**
     * A web application's thread (in its own thread group, in its code, with its context class
     * loader and an inheritable thread-local holding one of its objects) makes a service thread.
     */
    private static WeakReference<ClassLoader> startedFromAWebApplication(AtomicReference<Thread> made) throws Exception {
        ClassLoader loader = new WebAppLoader(ServiceThreadsTest.class.getClassLoader());
        @SuppressWarnings("unchecked")
        Function<Supplier<Thread>, Thread> code = (Function<Supplier<Thread>, Thread>)
                loader.loadClass(WebAppCode.class.getName()).getDeclaredConstructor().newInstance();
        if (code.getClass() == WebAppCode.class) {
            throw new AssertionError("the web application's code must be its own class");
        }
        ThreadGroup group = (ThreadGroup) loader.loadClass(WebAppGroup.class.getName())
                .getDeclaredConstructor(String.class).newInstance("web-app");
        Thread request = new Thread(group, () -> made.set(code.apply(
                () -> ServiceThreads.newThread("turntable-housekeeper", () -> { }))));
        request.setContextClassLoader(loader);
        request.start();
        request.join();
        group.destroy(); // the web application is undeployed (on JDK 17 its parent group held it until now)
        return new WeakReference<>(loader);
    }
}
