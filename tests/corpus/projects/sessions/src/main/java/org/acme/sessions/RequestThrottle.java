package org.acme.sessions;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts the requests of each client in the current window and refuses them past the limit.
 * A timer calls {@link #newWindow()}; a request counted on a counter that a new window just
 * dropped only makes the limit a little more lenient.
 */
public final class RequestThrottle {

    private final ConcurrentHashMap<String, AtomicInteger> counts = new ConcurrentHashMap<>();
    private final int limitPerWindow;

    public RequestThrottle(int limitPerWindow) {
        this.limitPerWindow = limitPerWindow;
    }

    public boolean allow(String client) {
        AtomicInteger count = counts.get(client);
        if (count == null) {
            AtomicInteger fresh = new AtomicInteger();
            count = counts.putIfAbsent(client, fresh);
            if (count == null) {
                count = fresh;
            }
        }
        return count.incrementAndGet() <= limitPerWindow;
    }

    public void newWindow() {
        counts.clear();
    }
}
