package com.shopfront.inventory;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/** Counters exported to monitoring; guarded by their own lock, never by the inventory's. */
public class InventoryMetrics {
    private final ReentrantLock lock = new ReentrantLock();
    private final Map<String, Integer> shortagesBySku = new HashMap<>();
    private long requestedUnits;
    private long reservedUnits;
    private long rejectedRequests;
    private volatile long lastActivityNanos;

    public void requested(int qty) {
        lock.lock();
        try {
            requestedUnits += qty;
        } finally {
            lock.unlock();
        }
        lastActivityNanos = System.nanoTime();
    }

    public void reserved(int qty) {
        lock.lock();
        try {
            reservedUnits += qty;
        } finally {
            lock.unlock();
        }
    }

    public void shortage(String sku) {
        lock.lock();
        try {
            shortagesBySku.merge(sku, 1, Integer::sum);
            rejectedRequests++;
        } finally {
            lock.unlock();
        }
    }

    public void rejected() {
        lock.lock();
        try {
            rejectedRequests++;
        } finally {
            lock.unlock();
        }
    }

    public long reservedUnits() {
        lock.lock();
        try {
            return reservedUnits;
        } finally {
            lock.unlock();
        }
    }

    public long requestedUnits() {
        lock.lock();
        try {
            return requestedUnits;
        } finally {
            lock.unlock();
        }
    }

    public int shortages(String sku) {
        lock.lock();
        try {
            return shortagesBySku.getOrDefault(sku, 0);
        } finally {
            lock.unlock();
        }
    }

    public long lastActivityNanos() {
        return lastActivityNanos;
    }
}
