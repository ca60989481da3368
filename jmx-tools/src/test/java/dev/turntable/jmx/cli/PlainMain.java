package dev.turntable.jmx.cli;

/**
 * A JVM with nothing of Turntable in it, for {@link PlainJvmTest}: prints {@code READY}, then
 * lives until its standard input closes.
 */
public final class PlainMain {

    private PlainMain() {
    }

    public static void main(String[] args) throws Exception {
        System.out.println("READY");
        System.out.flush();
        while (System.in.read() >= 0) {
            // the parent holds our stdin open while it needs us
        }
        System.exit(0);
    }
}
