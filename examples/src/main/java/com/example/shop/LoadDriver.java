package com.example.shop;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Drives a bounded number of quote requests over loopback with a few client threads, and keeps
 * each request's latency as the client saw it. One instance per run; {@link #run} blocks until done.
 */
final class LoadDriver {

    private final URI base;
    private final int requests;
    private final int concurrency;
    private final long[] latencyNanos;
    private final AtomicInteger next = new AtomicInteger();
    private final AtomicLong errors = new AtomicLong();
    private long elapsedNanos;

    LoadDriver(int port, int requests, int concurrency) {
        this.base = URI.create("http://127.0.0.1:" + port + "/quote");
        this.requests = requests;
        this.concurrency = concurrency;
        this.latencyNanos = new long[requests];
    }

    void run() throws InterruptedException {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        Thread[] clients = new Thread[concurrency];
        long start = System.nanoTime();
        for (int c = 0; c < concurrency; c++) {
            clients[c] = new Thread(() -> sendAll(client), "load-client-" + c);
            clients[c].start();
        }
        for (Thread t : clients) {
            t.join();
        }
        elapsedNanos = System.nanoTime() - start;
    }

    private void sendAll(HttpClient client) {
        int i;
        while ((i = next.getAndIncrement()) < requests) {
            HttpRequest req = HttpRequest.newBuilder(URI.create(base + "?id=" + i))
                    .timeout(Duration.ofSeconds(30)).GET().build();
            long t0 = System.nanoTime();
            try {
                HttpResponse<String> r = client.send(req, HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() != 200) {
                    errors.incrementAndGet();
                }
            } catch (Exception e) {
                errors.incrementAndGet();
            }
            latencyNanos[i] = System.nanoTime() - t0;
        }
    }

    long errors() {
        return errors.get();
    }

    String summary() {
        double secs = elapsedNanos / 1e9;
        return String.format("load: %d requests, %d concurrent, %d errors, %.2f s (%.0f req/s)",
                requests, concurrency, errors(), secs, requests / secs);
    }

    /** Client-side latency percentiles, from the sorted samples. */
    String percentiles() {
        long[] sorted = latencyNanos.clone();
        Arrays.sort(sorted);
        return String.format("latency ms: p50=%.2f p90=%.2f p99=%.2f p99.9=%.2f max=%.2f",
                ms(at(sorted, 0.50)), ms(at(sorted, 0.90)), ms(at(sorted, 0.99)), ms(at(sorted, 0.999)),
                ms(sorted[sorted.length - 1]));
    }

    private static long at(long[] sorted, double q) {
        int idx = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, idx))];
    }

    private static double ms(long nanos) {
        return nanos / 1e6;
    }
}
