package com.shopfront.inventory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * A bounded in-memory log of inventory activity, shown on the operations dashboard.
 * Old entries are dropped when the log is full.
 */
public class ActivityLog {
    private final Deque<String> entries = new ArrayDeque<>();
    private final int capacity;
    private long written;
    private long dropped;

    public ActivityLog(int capacity) {
        this.capacity = capacity;
    }

    public synchronized void record(String orderId, String sku, String event) {
        if (entries.size() == capacity) {
            entries.removeFirst();
            dropped++;
        }
        entries.addLast(orderId + " " + sku + " " + event);
        written++;
    }

    public synchronized List<String> recent() {
        return new ArrayList<>(entries);
    }

    public synchronized long written() {
        return written;
    }

    public synchronized long dropped() {
        return dropped;
    }
}
