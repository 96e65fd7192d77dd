package com.bootkit.lifecycle;

import java.util.TreeMap;

/** Requests served per route, and how many requests had to wait for startup. */
public class RequestStats {
    private final TreeMap<String, Integer> byRoute = new TreeMap<>();
    private int waitedForStartup;
    private volatile long lastRequestAt;

    public synchronized void served(String route) {
        byRoute.merge(route, 1, Integer::sum);
    }

    public synchronized void waited() {
        waitedForStartup++;
    }

    public void touch(long now) {
        lastRequestAt = now;
    }

    public synchronized int served(String route, int dflt) {
        return byRoute.getOrDefault(route, dflt);
    }

    public synchronized int total() {
        int n = 0;
        for (int v : byRoute.values()) {
            n += v;
        }
        return n;
    }

    public long lastRequestAt() {
        return lastRequestAt;
    }
}
