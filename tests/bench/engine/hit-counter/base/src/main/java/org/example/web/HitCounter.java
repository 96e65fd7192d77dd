package org.example.web;

import java.util.HashMap;
import java.util.Map;

/** Counts page hits per path, and the busiest path so far. */
public class HitCounter {
    private final Map<String, Integer> hits = new HashMap<>();
    private String busiest;
    private int busiestHits;
    private long total;

    public synchronized void hit(String path) {
        int n = hits.getOrDefault(path, 0) + 1;
        hits.put(path, n);
        total++;
        if (n > busiestHits) {
            busiestHits = n;
            busiest = path;
        }
    }

    public synchronized long total() {
        return total;
    }

    public synchronized String busiest() {
        return busiest;
    }
}
