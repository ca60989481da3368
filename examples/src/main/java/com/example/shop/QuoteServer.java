package com.example.shop;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The shop's HTTP front: {@code GET /quote?id=N} prices item N. 95% of quotes are quick, 5% are
 * slow (a cache miss). Requests run on a fixed pool of four threads. Started and stopped by one
 * thread; requests are served on the pool's threads.
 */
final class QuoteServer {

    static final long SHORT_MICROS = 300;
    static final long LONG_MICROS = 15_000;

    private final TaskCounts counts = new TaskCounts();
    private final AtomicLong served = new AtomicLong();
    private final ReportService reports;
    private HttpServer server;
    private ExecutorService requestPool;

    QuoteServer(ReportService reports) {
        this.reports = reports;
    }

    /** Binds 127.0.0.1 on an ephemeral port and starts serving; returns the port. */
    int start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        requestPool = Executors.newFixedThreadPool(4);
        server.setExecutor(requestPool);
        server.createContext("/quote", this::quote);
        server.start();
        return server.getAddress().getPort();
    }

    private void quote(HttpExchange exchange) throws IOException {
        try {
            long id = parseId(exchange.getRequestURI().getRawQuery());
            long price = Math.floorMod(Work.busy(Work.isLong(id) ? LONG_MICROS : SHORT_MICROS), 10_000);
            counts.countCurrentThread();
            reports.requestServed(served.incrementAndGet());
            byte[] body = ("{\"id\":" + id + ",\"price\":" + price + "}\n").getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        } finally {
            exchange.close();
        }
    }

    private static long parseId(String query) {
        if (query != null) {
            for (String p : query.split("&")) {
                if (p.startsWith("id=")) {
                    try {
                        return Long.parseLong(p.substring(3));
                    } catch (NumberFormatException e) {
                        return 0;
                    }
                }
            }
        }
        return 0;
    }

    TaskCounts counts() {
        return counts;
    }

    void stop() throws InterruptedException {
        server.stop(0);
        requestPool.shutdown();
        requestPool.awaitTermination(10, TimeUnit.SECONDS);
    }
}
