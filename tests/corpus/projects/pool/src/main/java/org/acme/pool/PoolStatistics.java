package org.acme.pool;

import java.util.concurrent.TimeUnit;

/** Counters of one pool, updated by borrowers and the evictor; every field is guarded by the monitor. */
public final class PoolStatistics {

    private long borrows;
    private long returns;
    private long timeouts;
    private long created;
    private long destroyed;
    private long evicted;
    private long totalWaitNanos;
    private long maxWaitNanos;
    private int peakActive;

    synchronized void recordBorrow(long waitNanos, int active) {
        borrows++;
        totalWaitNanos += waitNanos;
        maxWaitNanos = Math.max(maxWaitNanos, waitNanos);
        peakActive = Math.max(peakActive, active);
    }

    synchronized void recordReturn() {
        returns++;
    }

    synchronized void recordTimeout() {
        timeouts++;
    }

    synchronized void recordCreated() {
        created++;
    }

    synchronized void recordDestroyed() {
        destroyed++;
    }

    synchronized void recordEvicted(int count) {
        evicted += count;
    }

    public synchronized long borrows() {
        return borrows;
    }

    public synchronized long timeouts() {
        return timeouts;
    }

    public synchronized int peakActive() {
        return peakActive;
    }

    public synchronized double averageWaitMillis() {
        return borrows == 0 ? 0.0 : (double) TimeUnit.NANOSECONDS.toMicros(totalWaitNanos) / borrows / 1000.0;
    }

    public synchronized String summary() {
        return String.format("borrows=%d returns=%d timeouts=%d created=%d destroyed=%d evicted=%d peak=%d maxWait=%dms",
                borrows, returns, timeouts, created, destroyed, evicted, peakActive, TimeUnit.NANOSECONDS.toMillis(maxWaitNanos));
    }
}
