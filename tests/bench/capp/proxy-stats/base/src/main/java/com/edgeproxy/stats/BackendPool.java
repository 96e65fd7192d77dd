package com.edgeproxy.stats;

import java.util.List;

/** Round-robin over the healthy backends. */
public class BackendPool {
    private final List<Backend> backends;
    private int next;

    public BackendPool(List<Backend> backends) {
        this.backends = List.copyOf(backends);
    }

    public synchronized Backend pick() {
        for (int tried = 0; tried < backends.size(); tried++) {
            Backend b = backends.get(next);
            next = (next + 1) % backends.size();
            if (b.healthy()) {
                return b;
            }
        }
        throw new IllegalStateException("no healthy backend");
    }
}
