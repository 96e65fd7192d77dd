package org.acme.scheduler;

import java.util.concurrent.ThreadLocalRandom;

/** Exponential backoff with jitter. Immutable, shared by every worker. */
public final class RetryPolicy {

    private final long baseDelayMillis;
    private final long maxDelayMillis;
    private final double multiplier;
    private final int maxAttempts;

    public RetryPolicy(long baseDelayMillis, long maxDelayMillis, double multiplier, int maxAttempts) {
        if (baseDelayMillis <= 0 || maxDelayMillis < baseDelayMillis || multiplier < 1.0 || maxAttempts < 1) {
            throw new IllegalArgumentException("bad retry policy");
        }
        this.baseDelayMillis = baseDelayMillis;
        this.maxDelayMillis = maxDelayMillis;
        this.multiplier = multiplier;
        this.maxAttempts = maxAttempts;
    }

    public static RetryPolicy defaults() {
        return new RetryPolicy(100, 30_000, 2.0, 5);
    }

    public int maxAttempts() {
        return maxAttempts;
    }

    /** The delay before attempt number {@code attempt} (2 for the first retry), with up to 20% jitter. */
    public long delayBefore(int attempt) {
        double raw = baseDelayMillis * Math.pow(multiplier, Math.max(0, attempt - 2));
        long capped = (long) Math.min(raw, maxDelayMillis);
        long jitter = capped / 5 == 0 ? 0 : ThreadLocalRandom.current().nextLong(capped / 5);
        return capped - jitter;
    }
}
