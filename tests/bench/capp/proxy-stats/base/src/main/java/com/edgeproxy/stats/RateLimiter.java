package com.edgeproxy.stats;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** A fixed budget of requests per client for the current window. */
public class RateLimiter {
    private final ConcurrentHashMap<String, AtomicInteger> used = new ConcurrentHashMap<>();
    private final int budget;

    public RateLimiter(int budget) {
        this.budget = budget;
    }

    public boolean tryAcquire(String client) {
        AtomicInteger n = used.computeIfAbsent(client, c -> new AtomicInteger());
        if (n.incrementAndGet() > budget) {
            n.decrementAndGet();
            return false;
        }
        return true;
    }

    public int used(String client) {
        AtomicInteger n = used.get(client);
        return n == null ? 0 : n.get();
    }
}
