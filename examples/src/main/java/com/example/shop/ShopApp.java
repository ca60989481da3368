package com.example.shop;

import java.util.Map;

/**
 * A small legacy shop service: an HTTP quote server on a fixed request pool, plus background
 * reports on a bounded pool. It knows nothing of Turntable; run it under the agent to give its
 * pools the engine without changing a line.
 *
 * <pre>
 *   java -jar turntable-example.jar                    serve until stopped
 *   java -jar turntable-example.jar --requests 2000    drive 2000 requests over loopback, report, exit
 *        [--concurrency 8]
 *        [--mixed 3000]            also flood one work pool with interactive and batch tasks
 *        [--record-lifetimes]      print the Turntable pools' worker lifetimes as a sawtooth
 * </pre>
 */
public final class ShopApp {

    private ShopApp() {
    }

    public static void main(String[] args) throws Exception {
        int requests = -1;
        int concurrency = 8;
        int mixed = 0;
        boolean recordLifetimes = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--requests":
                    requests = Integer.parseInt(args[++i]);
                    break;
                case "--concurrency":
                    concurrency = Integer.parseInt(args[++i]);
                    break;
                case "--mixed":
                    mixed = Integer.parseInt(args[++i]);
                    break;
                case "--record-lifetimes":
                    recordLifetimes = true;
                    break;
                default:
                    System.err.println("usage: ShopApp [--requests N] [--concurrency C] [--mixed N] [--record-lifetimes]");
                    System.exit(2);
            }
        }
        if (requests == 0 || concurrency < 1 || mixed < 0) {
            System.err.println("--requests, --concurrency and --mixed must be positive");
            System.exit(2);
        }

        // The JDK server writes headers and body separately: without TCP_NODELAY every response
        // waits for the client's delayed ACK (about 40 ms).
        if (System.getProperty("sun.net.httpserver.nodelay") == null) {
            System.setProperty("sun.net.httpserver.nodelay", "true");
        }
        ReportService reports = new ReportService();
        reports.start();
        QuoteServer server = new QuoteServer(reports);
        int port = server.start();
        System.out.println("QuoteServer listening on http://127.0.0.1:" + port + "/quote");
        System.out.flush();
        if (requests < 0) {
            return; // serve until the process is stopped: the pools' threads keep the JVM alive
        }

        LifetimeRecorder recorder = recordLifetimes ? new LifetimeRecorder(10) : null;
        if (recorder != null) {
            recorder.start();
        }
        LoadDriver load = new LoadDriver(port, requests, concurrency);
        load.run();
        if (mixed > 0) {
            new MixedWorkload(mixed).run();
        }
        server.stop();
        reports.stop();
        System.out.println(load.summary());
        System.out.println(load.percentiles());
        print("request pool", server.counts().snapshot());
        print("report pool", reports.counts().snapshot());
        if (recorder != null) {
            recorder.print(100);
        }
        if (load.errors() > 0) {
            System.exit(1);
        }
    }

    private static void print(String pool, Map<String, Long> perThread) {
        long total = perThread.values().stream().mapToLong(Long::longValue).sum();
        System.out.println(pool + ": " + total + " tasks; per thread:");
        perThread.forEach((name, n) -> System.out.printf("  %-20s %6d%n", name, n));
    }
}
