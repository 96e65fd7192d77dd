package org.acme.scheduler;

import java.util.concurrent.atomic.AtomicLong;

/** A token bucket shared by the workers; the bucket is guarded by the monitor. */
public final class RateLimiter {

    private final double permitsPerSecond;
    private final double maxBurst;
    private final AtomicLong throttled = new AtomicLong();

    // guarded by this
    private double tokens;
    private long lastRefillNanos;

    public RateLimiter(double permitsPerSecond, double maxBurst) {
        if (permitsPerSecond <= 0 || maxBurst < 1) {
            throw new IllegalArgumentException("bad rate");
        }
        this.permitsPerSecond = permitsPerSecond;
        this.maxBurst = maxBurst;
        this.tokens = maxBurst;
        this.lastRefillNanos = System.nanoTime();
    }

    /** Takes {@code permits} tokens if the bucket holds that many; false (and counted) otherwise. */
    public synchronized boolean tryAcquire(int permits) {
        refill(System.nanoTime());
        if (tokens < permits) {
            throttled.incrementAndGet();
            return false;
        }
        tokens -= permits;
        return true;
    }

    /** The tokens in the bucket now. */
    public synchronized double available() {
        refill(System.nanoTime());
        return tokens;
    }

    /** Called with the monitor held. */
    private void refill(long now) {
        double earned = (now - lastRefillNanos) / 1_000_000_000.0 * permitsPerSecond;
        if (earned > 0) {
            tokens = Math.min(maxBurst, tokens + earned);
            lastRefillNanos = now;
        }
    }

    public long throttledCount() {
        return throttled.get();
    }
}
