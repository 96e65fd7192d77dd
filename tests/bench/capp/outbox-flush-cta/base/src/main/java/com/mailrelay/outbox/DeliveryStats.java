package com.mailrelay.outbox;

import java.util.concurrent.atomic.AtomicInteger;

/** Counters for the relay's status page. */
public class DeliveryStats {
    private final AtomicInteger queued = new AtomicInteger();
    private final AtomicInteger delivered = new AtomicInteger();
    private final AtomicInteger suppressed = new AtomicInteger();
    private int flushes;
    private int largestFlush;

    public void queued() {
        queued.incrementAndGet();
    }

    public void delivered() {
        delivered.incrementAndGet();
    }

    public void suppressed() {
        suppressed.incrementAndGet();
    }

    public synchronized void flushed(int n) {
        flushes++;
        if (n > largestFlush) {
            largestFlush = n;
        }
    }

    public int queuedCount() {
        return queued.get();
    }

    public int deliveredCount() {
        return delivered.get();
    }

    public int suppressedCount() {
        return suppressed.get();
    }

    public synchronized int flushes() {
        return flushes;
    }
}
