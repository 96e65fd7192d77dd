package org.acme.pool;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A connection lent out by a {@link ConnectionPool}. Closing it gives it back to the pool.
 *
 * <p>Its bookkeeping is guarded by its monitor: the borrower writes it, and the pool's
 * evictor reads it to find idle and leaked connections.
 */
public final class PooledConnection implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(PooledConnection.class.getName());

    private final ConnectionPool pool;
    private final long id;
    private final RawConnection raw;
    private boolean borrowed;
    private boolean broken;
    private long borrowedAtNanos;
    private long lastUsedNanos;
    private int useCount;

    PooledConnection(ConnectionPool pool, long id, RawConnection raw) {
        this.pool = pool;
        this.id = id;
        this.raw = raw;
        this.lastUsedNanos = System.nanoTime();
    }

    public long id() {
        return id;
    }

    synchronized void markBorrowed() {
        borrowed = true;
        useCount++;
        borrowedAtNanos = System.nanoTime();
        lastUsedNanos = borrowedAtNanos;
    }

    /**
     * Sends a request on the connection.
     *
     * @throws IllegalStateException when the connection was given back already
     */
    public String send(String request) throws IOException {
        synchronized (this) {
            if (!borrowed) {
                throw new IllegalStateException("connection " + id + " was returned to the pool");
            }
            lastUsedNanos = System.nanoTime();
        }
        try {
            return raw.exchange(request);
        } catch (IOException e) {
            synchronized (this) {
                broken = true;
            }
            throw e;
        }
    }

    /** Whether the pool may lend the connection again. */
    synchronized boolean isUsable() {
        return !broken && raw.isOpen();
    }

    /** How long the connection has not been used. */
    synchronized long idleMillis() {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lastUsedNanos);
    }

    /** How long the current borrower has held the connection; 0 when it is not borrowed. */
    synchronized long heldMillis() {
        return borrowed ? TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - borrowedAtNanos) : 0;
    }

    public synchronized int useCount() {
        return useCount;
    }

    /** Gives the connection back to its pool. Closing it twice is harmless. */
    @Override
    public void close() {
        synchronized (this) {
            if (!borrowed) {
                return;
            }
            borrowed = false;
            lastUsedNanos = System.nanoTime();
        }
        pool.release(this);
    }

    /** Closes the backend connection; the pool calls this once it dropped the connection. */
    void destroy() {
        try {
            raw.close();
        } catch (IOException e) {
            LOG.log(Level.FINE, "closing connection " + id + " failed", e);
        }
    }

    @Override
    public String toString() {
        return "PooledConnection#" + id;
    }
}
