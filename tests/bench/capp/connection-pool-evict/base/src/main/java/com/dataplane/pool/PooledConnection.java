package com.dataplane.pool;

/**
 * A connection lent out by a {@link ConnectionPool}. Its state is guarded by its own
 * monitor; {@link #close()} gives it back to the pool.
 */
public class PooledConnection implements AutoCloseable {
    private final int id;
    private final ConnectionPool pool;
    private final ManualClock clock;
    private final QueryLog queryLog;
    private boolean inUse;
    private boolean open = true;
    private long lastUsedAt;
    private int useCount;

    PooledConnection(int id, ConnectionPool pool, ManualClock clock, QueryLog queryLog) {
        this.id = id;
        this.pool = pool;
        this.clock = clock;
        this.queryLog = queryLog;
        this.lastUsedAt = clock.now();
    }

    public int id() {
        return id;
    }

    synchronized void markInUse() {
        if (!open) {
            throw new IllegalStateException("connection " + id + " was evicted");
        }
        inUse = true;
        useCount++;
    }

    /** Runs a statement; the "result" is the number of rows, here derived from the text. */
    public synchronized int execute(String sql) {
        if (!inUse || !open) {
            throw new IllegalStateException("connection " + id + " is not checked out");
        }
        queryLog.log(id, sql);
        return sql.length() % 7;
    }

    /** Gives the connection back to its pool. */
    @Override
    public void close() {
        synchronized (this) {
            if (!inUse) {
                return;
            }
            inUse = false;
            lastUsedAt = clock.now();
        }
        pool.release(this);
    }

    synchronized boolean idleLongerThan(long now, long maxIdleMillis) {
        return !inUse && now - lastUsedAt > maxIdleMillis;
    }

    synchronized void closePhysically() {
        open = false;
    }

    public synchronized boolean isOpen() {
        return open;
    }

    public synchronized int useCount() {
        return useCount;
    }
}
