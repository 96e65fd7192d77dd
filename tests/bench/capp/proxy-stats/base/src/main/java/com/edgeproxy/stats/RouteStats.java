package com.edgeproxy.stats;

/** Traffic counters of one route: requests, server errors, bytes, and a latency histogram. */
public class RouteStats {
    /** Upper bounds (inclusive, microseconds) of the latency buckets; the last is open. */
    private static final long[] BOUNDS = {250, 500, 1_000, 5_000};

    private final String route;
    private final int[] latency = new int[BOUNDS.length + 1];
    private long requests;
    private long serverErrors;
    private long bytesOut;

    public RouteStats(String route) {
        this.route = route;
    }

    public String route() {
        return route;
    }

    public synchronized void record(int status, long bytes, long micros) {
        requests++;
        bytesOut += bytes;
        if (status >= 500) {
            serverErrors++;
        }
        latency[bucketOf(micros)]++;
    }

    private static int bucketOf(long micros) {
        int i = 0;
        while (i < BOUNDS.length && micros > BOUNDS[i]) {
            i++;
        }
        return i;
    }

    public synchronized long requests() {
        return requests;
    }

    public synchronized long serverErrors() {
        return serverErrors;
    }

    public synchronized long bytesOut() {
        return bytesOut;
    }

    public synchronized int[] latencyHistogram() {
        return latency.clone();
    }
}
