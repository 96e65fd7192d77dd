package com.dataplane.pool;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * A bounded pool of connections. The pool's lists are guarded by its monitor; the pool
 * may lock a connection while holding its own lock, never the other way round.
 */
public class ConnectionPool {
    private final List<PooledConnection> all = new ArrayList<>();
    private final Deque<PooledConnection> idle = new ArrayDeque<>();
    private final int maxSize;
    private final ManualClock clock;
    private final QueryLog queryLog;
    private final PoolMetrics metrics;
    private int nextId = 1;
    private boolean closed;

    public ConnectionPool(int maxSize, ManualClock clock, QueryLog queryLog, PoolMetrics metrics) {
        this.maxSize = maxSize;
        this.clock = clock;
        this.queryLog = queryLog;
        this.metrics = metrics;
    }

    /** Opens {@code n} connections ahead of demand. */
    public synchronized void warmUp(int n) {
        while (all.size() < n && all.size() < maxSize) {
            PooledConnection c = new PooledConnection(nextId++, this, clock, queryLog);
            all.add(c);
            idle.addLast(c);
            metrics.created();
        }
    }

    public synchronized PooledConnection acquire() throws InterruptedException {
        while (idle.isEmpty() && all.size() >= maxSize && !closed) {
            wait();
        }
        if (closed) {
            throw new IllegalStateException("pool closed");
        }
        PooledConnection c = idle.pollFirst();
        if (c == null) {
            c = new PooledConnection(nextId++, this, clock, queryLog);
            all.add(c);
            metrics.created();
        }
        c.markInUse();
        metrics.acquired();
        return c;
    }

    synchronized void release(PooledConnection c) {
        if (!all.contains(c)) {
            return;
        }
        idle.addFirst(c);
        notifyAll();
    }

    /** Closes the connections that have been idle longer than {@code maxIdleMillis}. */
    public synchronized int evictIdle(long maxIdleMillis) {
        long now = clock.now();
        List<PooledConnection> victims = new ArrayList<>();
        for (PooledConnection c : all) {
            if (c.idleLongerThan(now, maxIdleMillis)) {
                victims.add(c);
            }
        }
        for (PooledConnection c : victims) {
            c.closePhysically();
            all.remove(c);
            idle.remove(c);
        }
        metrics.evicted(victims.size());
        notifyAll();
        return victims.size();
    }

    public synchronized int size() {
        return all.size();
    }

    public synchronized int idleCount() {
        return idle.size();
    }

    public synchronized void close() {
        closed = true;
        notifyAll();
    }
}
