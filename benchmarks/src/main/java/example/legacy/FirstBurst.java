package example.legacy;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * An application's first pool, cold: after {@code --startup-ms} (default 1000) of start-up, a
 * {@code ThreadPoolExecutor(2, 4)} with a {@code LinkedBlockingQueue} of 100 places (Spring's
 * {@code ThreadPoolTaskExecutor} shape) gets a burst of 200 no-op tasks. Prints the tasks
 * rejected and the time until every task ran or was rejected. Run it in a fresh JVM per
 * measurement, with and without the agent: {@code benchmarks/first-burst.sh} alternates them.
 * Outside {@code dev.turntable.*} on purpose: the agent never takes over pools Turntable's own
 * code builds, and this one stands for the application's. Main thread only.
 */
public final class FirstBurst {

    private FirstBurst() {
    }

    public static void main(String[] args) throws Exception {
        long startupMillis = 1000;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--startup-ms")) {
                startupMillis = Long.parseLong(args[++i]);
            } else {
                throw new IllegalArgumentException("unknown argument " + args[i] + "; allowed: --startup-ms N");
            }
        }
        Thread.sleep(startupMillis); // the application's own start-up, during which the agent warms up
        ThreadPoolExecutor pool = new ThreadPoolExecutor(2, 4, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(100));
        CountDownLatch done = new CountDownLatch(200);
        long start = System.nanoTime();
        int rejected = 0;
        for (int i = 0; i < 200; i++) {
            try {
                pool.execute(done::countDown);
            } catch (RejectedExecutionException e) {
                rejected++;
                done.countDown();
            }
        }
        done.await();
        long micros = (System.nanoTime() - start) / 1000;
        System.out.println("rejected " + rejected + " of 200, all done in " + micros + " us, queue "
                + pool.getQueue().getClass().getSimpleName());
        pool.shutdown();
    }
}
