package com.dataplane.pool;

import java.util.concurrent.locks.ReentrantLock;

/** Pool counters for monitoring, with a lock of their own. */
public class PoolMetrics {
    private final ReentrantLock lock = new ReentrantLock();
    private long acquired;
    private long created;
    private long evicted;
    private long queries;

    private void add(int which, long n) {
        lock.lock();
        try {
            switch (which) {
                case 0 -> acquired += n;
                case 1 -> created += n;
                case 2 -> evicted += n;
                default -> queries += n;
            }
        } finally {
            lock.unlock();
        }
    }

    public void acquired() {
        add(0, 1);
    }

    public void created() {
        add(1, 1);
    }

    public void evicted(int n) {
        add(2, n);
    }

    public void query() {
        add(3, 1);
    }

    public long evictedCount() {
        lock.lock();
        try {
            return evicted;
        } finally {
            lock.unlock();
        }
    }

    public long queryCount() {
        lock.lock();
        try {
            return queries;
        } finally {
            lock.unlock();
        }
    }
}
