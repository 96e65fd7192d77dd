package com.logship.pipeline;

import java.util.ArrayDeque;

/**
 * The bounded hand-off between the collector and the shippers. Producers wait while it is
 * full, consumers while it is empty; both kinds wait on this one monitor.
 */
public class BatchBuffer {
    private final ArrayDeque<Batch> batches = new ArrayDeque<>();
    private final int capacity;
    private long highWater;

    public BatchBuffer(int capacity) {
        this.capacity = capacity;
    }

    public synchronized void put(Batch b) throws InterruptedException {
        while (batches.size() == capacity) {
            wait();
        }
        batches.addLast(b);
        if (batches.size() > highWater) {
            highWater = batches.size();
        }
        notifyAll();
    }

    public synchronized Batch take() throws InterruptedException {
        while (batches.isEmpty()) {
            wait();
        }
        Batch b = batches.removeFirst();
        notifyAll();
        return b;
    }

    public synchronized int size() {
        return batches.size();
    }

    public synchronized long highWater() {
        return highWater;
    }
}
