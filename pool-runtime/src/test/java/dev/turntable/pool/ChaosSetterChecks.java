package dev.turntable.pool;

import static dev.turntable.pool.ChaosRound.stack;

import dev.turntable.pool.classes.ClassConfig;
import java.util.Arrays;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * How a chaos thread calls a live setter and judges the result. A valid value must be taken and
 * read back by the getter; an invalid one must be refused with IllegalArgumentException naming
 * the value, and leave the getter unchanged. With two changers racing ({@code checked} false)
 * the getter checks are off, and a size or keep-alive bound the other changer moved may turn a
 * valid call into a refused one or the reverse: that is counted, not failed.
 */
abstract class ChaosSetterChecks {

    final ChaosRound round;
    final boolean checked;

    ChaosSetterChecks(ChaosRound round, boolean checked) {
        this.round = round;
        this.checked = checked;
    }

    void count(String what) {
        round.count(what);
    }

    void fail(String what) {
        round.fail(what);
    }

    void call(String what, Runnable action) {
        try {
            action.run();
            count("valid " + what);
        } catch (Throwable t) {
            fail(what + " threw " + t + "\n" + stack(t));
        }
    }

    void valid(String what, Object value, Supplier<Object> getter, Runnable action) {
        try {
            action.run();
            count("valid " + what);
        } catch (IllegalArgumentException e) {
            if (!checked && (what.equals("setCorePoolSize") || what.equals("setMaximumPoolSize")
                    || what.startsWith("setKeepAliveTime") || what.equals("allowCoreThreadTimeOut"))) {
                count("racing changers: " + what + " refused"); // the other changer moved the bound
                return;
            }
            fail(what + "(" + value + ") threw " + e + "\n" + stack(e));
            return;
        } catch (Throwable t) {
            fail(what + "(" + value + ") threw " + t + "\n" + stack(t));
            return;
        }
        if (!checked) {
            return;
        }
        Object now = getter.get();
        if (!Objects.equals(now, value)) {
            fail(what + "(" + value + ") then the getter reads " + now);
        }
    }

    void expectRefused(String what, Object bad, Supplier<Object> getter, Runnable action) {
        Object before = getter.get();
        try {
            action.run();
            if (!checked && stateDependent(what)) {
                count("racing changers: " + what + " accepted"); // the other changer moved the bound
            } else {
                fail(what + "(" + bad + ") was accepted");
            }
        } catch (IllegalArgumentException e) {
            count("invalid " + what);
            String msg = e.getMessage();
            if (msg == null || !msg.contains(String.valueOf(bad))) {
                fail(what + "(" + bad + ") refused without naming the value: " + msg);
            }
        } catch (Throwable t) {
            fail(what + "(" + bad + ") threw " + t + " instead of IllegalArgumentException\n" + stack(t));
        }
        Object after = getter.get();
        if (checked && !sameConfig(before, after)) {
            fail(what + "(" + bad + ") refused but changed the setting: " + before + " -> " + after);
        }
    }

    /**
     * Refusals that depend on a setting the other changer may move between our read and our
     * call: the sizes' bounds, and keep-alive 0, refused only while core threads may time out.
     */
    boolean stateDependent(String what) {
        return what.equals("setCorePoolSize") || what.equals("setMaximumPoolSize")
                || what.equals(ChaosChanger.KEEP_ALIVE_0_WITH_CORE_TIME_OUT);
    }

    void refusedAnyMessage(String what, Supplier<Object> getter, Runnable action) {
        Object before = getter.get();
        try {
            action.run();
            if (!checked) {
                count("racing changers: " + what + " accepted");
            } else {
                fail(what + " was accepted");
            }
        } catch (IllegalArgumentException e) {
            count("invalid " + what);
        } catch (Throwable t) {
            fail(what + " threw " + t + " instead of IllegalArgumentException");
        }
        Object after = getter.get();
        if (checked && !sameConfig(before, after)) {
            fail(what + " refused but changed the setting: " + before + " -> " + after);
        }
    }

    static boolean sameConfig(Object a, Object b) {
        if (a instanceof ClassConfig && b instanceof ClassConfig) {
            // same object if nothing was configured; else compare what they say
            ClassConfig x = (ClassConfig) a;
            ClassConfig y = (ClassConfig) b;
            return x == y || (x.classLoadPercentsText().equals(y.classLoadPercentsText())
                    && x.requestorMapText().equals(y.requestorMapText()));
        }
        return Objects.equals(a, b);
    }

    /** Weights compared over the workers both readings have (a slot added in between gets the default). */
    static final class WeightsView {
        final long[] w;

        WeightsView(long[] w) {
            this.w = w;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof WeightsView)) {
                return false;
            }
            long[] v = ((WeightsView) o).w;
            int n = Math.min(w.length, v.length);
            return Arrays.equals(Arrays.copyOf(w, n), Arrays.copyOf(v, n));
        }

        @Override
        public int hashCode() {
            return 0;
        }

        @Override
        public String toString() {
            return Arrays.toString(w);
        }
    }
}
