package org.acme.metrics;

import java.util.concurrent.atomic.AtomicLong;

/** The largest value seen since the last reset, for instance the longest queue. Lock-free. */
public final class MaxGauge {

    /** What {@link #get()} returns before the first update. */
    public static final long NONE = Long.MIN_VALUE;

    private final String name;
    private final AtomicLong max = new AtomicLong(NONE);

    public MaxGauge(String name) {
        this.name = name;
    }

    public String name() {
        return name;
    }

    public void update(long value) {
        max.accumulateAndGet(value, Math::max);
    }

    public long get() {
        return max.get();
    }

    /** Returns the maximum and starts over. */
    public long getAndReset() {
        return max.getAndSet(NONE);
    }
}
