package dev.turntable.agent;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.stream.Stream;

/**
 * Where a pool was created: the first stack frame below the pool's constructors and the
 * {@code Executors} factories, and whose code that is (the application's, the JDK's or
 * Turntable's). Immutable; any thread.
 */
final class CreationSite {

    /** Whose code created the pool. */
    enum Origin { APPLICATION, JDK, TURNTABLE, UNKNOWN }

    /**
     * One stack frame: class name, method name and, when known, the declaring class (only
     * needed to tell a pool constructor, which the names alone cannot: a subclass constructor
     * chaining to {@code super} looks like application code building a pool in its constructor),
     * the method's descriptor and the line it is at ({@code null} and {@code -1} when unknown;
     * {@link QueueSharing} reads the method's bytecode with them).
     */
    record Frame(String className, String methodName, Class<?> type, String descriptor, int lineNumber) {
        Frame(String className, String methodName, Class<?> type) {
            this(className, methodName, type, null, -1);
        }

        boolean poolConstructor() {
            return "<init>".equals(methodName) && isPoolClass(type);
        }
    }

    /** Frames looked at: the advice, the constructor chain and the caller are all near the top. */
    static final int MAX_FRAMES = 96;

    private static final String[] JDK_PREFIXES = {"java.", "javax.", "jdk.", "sun.", "com.sun."};
    private static final String TURNTABLE_PREFIX = "dev.turntable.";

    static final CreationSite UNKNOWN = new CreationSite(Origin.UNKNOWN, null, null, null, false, List.of());

    private final Origin origin;
    private final String className;
    private final String methodName;
    private final Class<?> poolClass;
    private final boolean byFactory;
    /** The stack from the innermost pool constructor outwards, for {@link #queueSharing()}. */
    private final List<Frame> chain;

    private CreationSite(Origin origin, String className, String methodName, Class<?> poolClass, boolean byFactory,
                         List<Frame> chain) {
        this.origin = origin;
        this.className = className;
        this.methodName = methodName;
        this.poolClass = poolClass;
        this.byFactory = byFactory;
        this.chain = chain;
    }

    /**
     * Whether application code keeps its own reference to the work queue it passed to this pool:
     * {@code PRIVATE} when an {@code Executors} factory made the queue, else what the bytecode of
     * the methods that built the pool shows (see {@link QueueSharing}).
     */
    QueueSharing.Verdict queueSharing() {
        return byFactory ? QueueSharing.Verdict.FACTORY : QueueSharing.of(chain);
    }


    /**
     * Frames a walk fetches in its first batch: the agent's own (advice, hook, this class), the
     * pool's constructors, an {@code Executors} factory and the site, with room to spare.
     */
    private static final int USUAL_DEPTH = 16;
    /**
     * Made on first use, not in the class initialiser: under a security manager that refuses the
     * calling code the permission, the walk fails for that call (and the pool is left alone), not
     * this class for good.
     */
    private static volatile StackWalker walker;

    /**
     * The creation site of the pool whose constructor is running on this thread right now.
     *
     * <p>This runs in every pool's constructor, so it reads as little of the stack as the answer
     * needs ({@link #poolFrames}). The first version described {@value #MAX_FRAMES} frames, line
     * numbers and all, for a decision that reads a handful: a {@code newFixedThreadPool} built
     * 100 frames deep cost 181 µs under the agent, now 22 µs (46 and 37 µs 5 frames deep).
     */
    static CreationSite current() {
        StackWalker w = walker;
        if (w == null) {
            w = StackWalker.getInstance(Set.of(StackWalker.Option.RETAIN_CLASS_REFERENCE), USUAL_DEPTH);
            walker = w; // racy: another thread may make its own, equal one
        }
        return of(w.walk(CreationSite::poolFrames));
    }

    /**
     * The frames {@link #of} reads, innermost first, from the first pool constructor on: frames
     * above it (the agent's) are skipped undescribed. A factory-built pool's stack ends at its
     * site, the first frame past the factories: nothing beyond is read for a pool whose queue
     * the factory made. A pool built with {@code new} gets what {@link QueueSharing} can follow:
     * {@value QueueSharing#MAX_METHODS} methods past {@code ThreadPoolExecutor}'s constructors
     * and the one after, where it gives up, and at least the first frame past the pool's
     * constructors (its site); so a deep stack costs no more than a shallow one.
     */
    static List<Frame> poolFrames(Stream<StackWalker.StackFrame> stack) {
        List<Frame> out = new ArrayList<>(8);
        boolean pastFactory = false;
        boolean pastConstructors = false;
        int tpeConstructors = 0; // ThreadPoolExecutor's own, innermost: QueueSharing follows from the last
        Iterator<StackWalker.StackFrame> it = stack.limit(MAX_FRAMES).iterator();
        while (it.hasNext()) {
            StackWalker.StackFrame f = it.next();
            Class<?> type = f.getDeclaringClass();
            if (out.isEmpty() && !(isPoolClass(type) && "<init>".equals(f.getMethodName()))) {
                continue; // above the pool's constructor: only its class is looked at, then its name
            }
            String className = f.getClassName();
            boolean factory = isFactory(className);
            // Only QueueSharing reads line numbers, and never of the JDK's code or of a pool a
            // factory built; they are the dearest part of a frame to describe.
            boolean siteOfAFactoryPool = pastFactory && !factory;
            int line = siteOfAFactoryPool || surelyTheJdks(type) ? -1 : f.getLineNumber();
            Frame frame = new Frame(className, f.getMethodName(), type, f.getDescriptor(), line);
            out.add(frame);
            boolean constructor = frame.poolConstructor();
            if (factory) {
                pastFactory = true;
            } else if (siteOfAFactoryPool) {
                break; // the site of a factory-built pool
            } else if (!constructor) {
                pastConstructors = true;
            }
            if (constructor && type == ThreadPoolExecutor.class && tpeConstructors == out.size() - 1) {
                tpeConstructors++;
            }
            if (pastConstructors && tpeConstructors == 0) {
                break; // the site of a ForkJoinPool: no queue to follow
            }
            if (pastConstructors && out.size() > tpeConstructors + QueueSharing.MAX_METHODS) {
                break; // QueueSharing gives up at the next frame it reads: this one
            }
        }
        return out;
    }

    /** {@link #definedByTheJdk}, or false where a security manager will not say. */
    private static boolean surelyTheJdks(Class<?> type) {
        try {
            return definedByTheJdk(type);
        } catch (SecurityException e) { // getClassLoader refused: describe the frame in full
            return false;
        }
    }

    private static boolean isPoolClass(Class<?> type) {
        return type != null
                && (ThreadPoolExecutor.class.isAssignableFrom(type) || ForkJoinPool.class.isAssignableFrom(type));
    }

    /**
     * Classifies a stack, innermost frame first: skips to the first pool constructor, then past
     * the constructor chain and the {@code Executors} factories; the next frame is the site.
     */
    static CreationSite of(List<Frame> frames) {
        int i = 0;
        int n = frames.size();
        while (i < n && !frames.get(i).poolConstructor()) {
            i++;
        }
        if (i == n) {
            return UNKNOWN;
        }
        List<Frame> chain = frames.subList(i, n);
        // The chain: constructors of the pool's class and its subclasses (super/this calls), then
        // the factories. A pool constructor past a factory, or of an unrelated class, is code
        // that builds this pool (a pool subclass making a helper pool in its constructor); so is
        // a subclass constructor whose bytecode builds it with new rather than super(...).
        Class<?> poolClass = null;
        boolean pastFactory = false;
        while (i < n) {
            Frame fr = frames.get(i);
            if (!pastFactory && fr.poolConstructor() && (poolClass == null || poolClass.isAssignableFrom(fr.type()))) {
                if (poolClass != null && QueueSharing.buildsAnotherPool(fr, frames.get(i - 1))) {
                    break; // a pool subclass's constructor built this pool with new: it is the site
                }
                poolClass = fr.type();
            } else if (isFactory(fr.className())) {
                pastFactory = true;
            } else {
                break;
            }
            i++;
        }
        if (i == n) {
            return new CreationSite(Origin.UNKNOWN, null, null, poolClass, pastFactory, chain);
        }
        Frame f = frames.get(i);
        return new CreationSite(originOf(f), f.className(), f.methodName(), poolClass, pastFactory, chain);
    }

    /**
     * Whose code a frame is: by its class name, except that a class the JDK did not define is
     * never the JDK's, whatever its package. Libraries on the class path live in JDK-looking
     * packages too ({@code com.sun.jersey}, {@code com.sun.mail}, {@code javax.*} implementations);
     * their pools are the application's.
     */
    static Origin originOf(Frame f) {
        Origin byName = originOf(f.className());
        if (byName == Origin.JDK && f.type() != null && !definedByTheJdk(f.type())) {
            return Origin.APPLICATION;
        }
        return byName;
    }

    /** Loaded by the boot or platform loader, or in one of the JDK's own modules (tool modules use the application loader). */
    static boolean definedByTheJdk(Class<?> type) {
        ClassLoader l = type.getClassLoader();
        if (l == null || l == ClassLoader.getPlatformClassLoader()) {
            return true;
        }
        Module m = type.getModule();
        return m.isNamed() && m.getLayer() == ModuleLayer.boot()
                && (m.getName().startsWith("java.") || m.getName().startsWith("jdk."));
    }

    static boolean isFactory(String className) {
        return className.equals("java.util.concurrent.Executors")
                || className.startsWith("java.util.concurrent.Executors$");
    }

    static Origin originOf(String className) {
        if (className.startsWith(TURNTABLE_PREFIX)) {
            return Origin.TURNTABLE;
        }
        for (String p : JDK_PREFIXES) {
            if (className.startsWith(p)) {
                return Origin.JDK;
            }
        }
        return Origin.APPLICATION;
    }

    Origin origin() {
        return origin;
    }

    /** The most derived pool class whose constructor ran, or {@code null} if none was seen. */
    Class<?> poolClass() {
        return poolClass;
    }

    /** {@code com.acme.OrderService.start}, or {@code unknown}. */
    String site() {
        return className == null ? "unknown" : className + "." + methodName;
    }

    /** The pool name this site gives before numbering: {@code OrderService.start}. */
    String baseName() {
        if (className == null) {
            return poolClass == null ? "unknown" : simpleName(poolClass.getName()) + ".unknown";
        }
        return simpleName(className) + "." + methodPart(methodName);
    }

    /**
     * The simple name of a binary class name: {@code com.acme.Outer$Inner} gives {@code Inner};
     * an anonymous or local class ({@code Outer$1}) gives {@code Outer_1}; only
     * {@code [A-Za-z0-9._-]} remain.
     */
    static String simpleName(String binaryName) {
        String s = binaryName.substring(binaryName.lastIndexOf('.') + 1);
        int slash = s.indexOf('/'); // hidden classes: Foo$$Lambda/0x0000...
        if (slash >= 0) {
            s = s.substring(0, slash);
        }
        int dollar = s.lastIndexOf('$');
        if (dollar >= 0 && dollar < s.length() - 1 && Character.isJavaIdentifierStart(s.charAt(dollar + 1))) {
            s = s.substring(dollar + 1);
        }
        while (s.endsWith("$")) {
            s = s.substring(0, s.length() - 1);
        }
        return sanitize(s);
    }

    /**
     * A method name fit for a pool name: constructors read {@code new}, static initialisers
     * {@code static}, a lambda body its enclosing method ({@code lambda$main$0} gives
     * {@code main}); a run of {@code $} becomes one {@code _}, and any other character outside
     * {@code [A-Za-z0-9._-]} becomes {@code _}.
     */
    static String methodPart(String method) {
        String s = method;
        int last = method.lastIndexOf('$');
        if (method.startsWith(LAMBDA_PREFIX) && last >= LAMBDA_PREFIX.length() && last < method.length() - 1
                && allDigits(method, last + 1)) {
            s = method.substring(LAMBDA_PREFIX.length(), last); // lambda$<enclosing>$<n>
        }
        if (s.equals("<init>")) {
            s = "new";
        } else if (s.equals("<clinit>")) {
            s = "static";
        }
        return sanitize(s);
    }

    private static final String LAMBDA_PREFIX = "lambda$";

    private static boolean allDigits(String s, int from) {
        for (int i = from; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    /**
     * {@code s} with each run of {@code $} made one {@code _} and each other character (code
     * point, so a character outside the Basic Multilingual Plane too) outside
     * {@code [A-Za-z0-9._-]} made {@code _}; {@code _} if empty. A loop, not a regular
     * expression: it runs for every pool an application builds.
     */
    static String sanitize(String s) {
        if (s.isEmpty()) {
            return "_";
        }
        StringBuilder out = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean allowed = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '.' || c == '_' || c == '-';
            if (allowed && out == null) {
                continue; // nothing to change so far: no copy
            }
            if (out == null) {
                out = new StringBuilder(s.length()).append(s, 0, i);
            }
            if (allowed) {
                out.append(c);
            } else if (Character.isLowSurrogate(c) && i > 0 && Character.isHighSurrogate(s.charAt(i - 1))) {
                continue; // the second half of one character, which has its _ already
            } else if (c != '$' || i == 0 || s.charAt(i - 1) != '$') {
                out.append('_');
            }
        }
        return out == null ? s : out.toString();
    }

    @Override
    public String toString() {
        return origin + " " + site();
    }
}
