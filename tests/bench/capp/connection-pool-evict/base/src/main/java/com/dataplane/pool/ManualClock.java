package com.dataplane.pool;

/** Milliseconds, set by whoever drives time (the scheduler in production, tests here). */
public class ManualClock {
    private volatile long now;

    public long now() {
        return now;
    }

    public void set(long millis) {
        now = millis;
    }
}
