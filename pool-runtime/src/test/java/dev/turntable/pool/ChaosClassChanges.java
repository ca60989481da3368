package dev.turntable.pool;

import static dev.turntable.pool.ChaosConfig.MAPS;
import static dev.turntable.pool.ChaosConfig.PERCENTS;

import dev.turntable.pool.ChaosConfig.Mode;
import dev.turntable.pool.classes.ClassConfig;
import java.util.Random;

/**
 * The chaos thread's changes to task classes, the settings with rules across fields: a hand-off
 * pool refuses classes; a requestor map alone needs classes on; shares and map are set together,
 * or one at a time keeping the other half; malformed shares and maps are refused naming what is
 * wrong. Draws from the changer's own Random, in the changer's thread, so the changer's sequence
 * is as it was.
 */
final class ChaosClassChanges extends ChaosSetterChecks {

    /** text|what the message must name */
    static final String[] BAD_PERCENTS = {"a:75;b:x|x", "a:-5;b:25|-5", "a:0;b:0|a:0;b:0", "a:75;a:25|a", "a75|a75", "a:1000001|1000001"};
    static final String[] BAD_MAPS = {"chaos-[:a|chaos-[", "chaos-sub-.*:zz|zz", "nocolon|nocolon"};

    private final Random r;
    private final ChaosConfig config;
    private final TurntableQueue queue;

    ChaosClassChanges(ChaosRound round, Random r, boolean checked) {
        super(round, checked);
        this.r = r;
        this.config = round.config;
        this.queue = round.queue;
    }

    /** setClassLoadPercents and setRequestorMap, each keeping the other half. */
    void classesOneAtATime() {
        ClassConfig before = queue.classConfig();
        if (r.nextBoolean()) {
            String p = r.nextInt(6) == 0 ? null : PERCENTS[r.nextInt(PERCENTS.length)];
            try {
                queue.setClassLoadPercents(p);
                count("valid setClassLoadPercents");
                if (config.mode == Mode.HAND_OFF && p != null) {
                    fail("setClassLoadPercents(" + p + ") accepted on a hand-off pool");
                }
            } catch (IllegalArgumentException e) {
                // refused: on hand-off, or the kept map names a class these shares lack
                // (all our maps name a and b, which all our shares have) 
                if (config.mode != Mode.HAND_OFF || p == null) {
                    fail("setClassLoadPercents(" + p + ") refused: " + e.getMessage() + " (classes were " + before + ")");
                }
                count("invalid setClassLoadPercents");
            }
        } else {
            String m = MAPS[r.nextInt(MAPS.length)];
            try {
                queue.setRequestorMap(m);
                count("valid setRequestorMap");
                if (before == null && checked) {
                    fail("setRequestorMap(" + m + ") accepted with classes off");
                }
            } catch (IllegalArgumentException e) {
                if (queue.classConfig() != null && before != null && checked) {
                    fail("setRequestorMap(" + m + ") refused with classes on: " + e.getMessage());
                }
                count("invalid setRequestorMap");
            }
        }
    }

    void classes() {
        int k = r.nextInt(10);
        if (config.mode == Mode.HAND_OFF) {
            if (k < 8) {
                String p = PERCENTS[r.nextInt(PERCENTS.length)];
                expectRefused("setTaskClasses on hand-off", p, queue::classConfig,
                        () -> queue.setTaskClasses(p, MAPS[0]));
            } else {
                call("setTaskClasses(null) on hand-off", () -> queue.setTaskClasses(null, null));
            }
            return;
        }
        if (k < 2) {
            call("setTaskClasses off", () -> queue.setTaskClasses(null, null));
            if (checked && queue.classConfig() != null) {
                fail("classes still on after setTaskClasses(null, null)");
            }
        } else if (k < 6) {
            String p = PERCENTS[r.nextInt(PERCENTS.length)];
            String m = MAPS[r.nextInt(MAPS.length)];
            call("setTaskClasses", () -> queue.setTaskClasses(p, m));
            count("classes on");
        } else if (k < 8) {
            String bad = BAD_PERCENTS[r.nextInt(BAD_PERCENTS.length)];
            String named = bad.substring(bad.lastIndexOf('|') + 1);
            String text = bad.substring(0, bad.lastIndexOf('|'));
            expectRefused("setTaskClasses", named, queue::classConfig,
                    () -> queue.setTaskClasses(text, MAPS[0]));
        } else {
            String bad = BAD_MAPS[r.nextInt(BAD_MAPS.length)];
            String named = bad.substring(bad.lastIndexOf('|') + 1);
            String text = bad.substring(0, bad.lastIndexOf('|'));
            expectRefused("setTaskClasses (map)", named, queue::classConfig,
                    () -> queue.setTaskClasses(PERCENTS[0], text));
        }
    }
}
