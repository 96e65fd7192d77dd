package org.acme.pool;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiConsumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A bounded pool of backend connections.
 *
 * <p>{@code lock} guards the idle connections, the borrowed ones and {@code total}, the
 * number of connections open or being opened. Connections are opened and closed without
 * the lock. {@code changed} is signalled whenever a connection is returned or dropped:
 * borrowers wait on it for a connection, and {@link #close()} waits on it for the
 * borrowed connections to come back, so every change wakes all waiters.
 */
public final class ConnectionPool implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(ConnectionPool.class.getName());
    private static final long CLOSE_TIMEOUT_SECONDS = 30;

    private final String name;
    private final ConnectionFactory factory;
    private final Properties properties;
    private final PoolStatistics stats = new PoolStatistics();
    private final CopyOnWriteArrayList<PoolListener> listeners = new CopyOnWriteArrayList<>();
    private final AtomicLong nextId = new AtomicLong();
    private final Evictor evictor;

    private final Object settingsLock = new Object();
    private volatile PoolSettings settings;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final Deque<PooledConnection> idle = new ArrayDeque<>();
    private final Set<PooledConnection> inUse = new HashSet<>();
    private int total;
    private boolean closed;

    public ConnectionPool(String name, ConnectionFactory factory, Properties properties) {
        this.name = name;
        this.factory = factory;
        this.properties = properties;
        this.evictor = new Evictor(this);
    }

    public String name() {
        return name;
    }

    /** The settings, read from the properties on first use. */
    PoolSettings settings() {
        PoolSettings s = settings;
        if (s == null) {
            synchronized (settingsLock) {
                s = settings;
                if (s == null) {
                    s = new PoolSettings();
                    s.load(properties, "pool." + name + ".");
                    settings = s;
                }
            }
        }
        return s;
    }

    /** Applies new values; borrowers see the old settings or the new ones, never a mix. */
    public void reconfigure(Properties overrides) {
        synchronized (settingsLock) {
            PoolSettings next = settings().copy();
            next.load(overrides, "pool." + name + ".");
            settings = next;
        }
        lock.lock();
        try {
            // a larger maximum lets waiting borrowers open connections
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        LOG.info(() -> "pool " + name + " reconfigured");
    }

    public void addListener(PoolListener listener) {
        listeners.addIfAbsent(listener);
    }

    public void removeListener(PoolListener listener) {
        listeners.remove(listener);
    }

    /** Starts the evictor thread. */
    public void start() {
        evictor.start();
    }

    /**
     * Lends a connection: an idle one, else a new one while the pool is below its
     * maximum, else the first one returned within the borrow timeout.
     *
     * @throws PoolExhaustedException when none became available in time
     * @throws IllegalStateException when the pool is closed
     */
    public PooledConnection borrow() throws IOException, InterruptedException {
        PoolSettings s = settings();
        long start = System.nanoTime();
        long remaining = TimeUnit.MILLISECONDS.toNanos(s.borrowTimeoutMillis());
        PooledConnection conn;
        lock.lock();
        try {
            while (true) {
                if (closed) {
                    throw new IllegalStateException("pool " + name + " is closed");
                }
                conn = idle.pollFirst();
                if (conn != null || total < s.maxTotal()) {
                    break;
                }
                if (remaining <= 0) {
                    stats.recordTimeout();
                    throw new PoolExhaustedException(name, s.borrowTimeoutMillis());
                }
                remaining = changed.awaitNanos(remaining);
            }
            if (conn == null) {
                total++;
            } else {
                inUse.add(conn);
            }
            stats.recordBorrow(System.nanoTime() - start, total - idle.size());
        } finally {
            lock.unlock();
        }
        if (conn == null) {
            conn = open();
            lock.lock();
            try {
                inUse.add(conn);
            } finally {
                lock.unlock();
            }
        }
        conn.markBorrowed();
        fire(PoolListener::borrowed, conn);
        return conn;
    }

    /** Takes back a connection its borrower closed. */
    void release(PooledConnection conn) {
        boolean keep;
        lock.lock();
        try {
            if (!inUse.remove(conn)) {
                throw new IllegalStateException(conn + " is not borrowed from pool " + name);
            }
            keep = !closed && conn.isUsable() && idle.size() < settings().maxIdle();
            if (keep) {
                idle.addFirst(conn);
            } else {
                total--;
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        stats.recordReturn();
        fire(PoolListener::returned, conn);
        if (!keep) {
            destroy(conn);
        }
    }

    /**
     * Opens up to {@code count} connections ahead of demand, never beyond the maximum.
     *
     * @return how many were opened
     */
    public int prefill(int count) throws IOException {
        int opened = 0;
        while (opened < count) {
            lock.lock();
            try {
                if (closed || total >= settings().maxTotal()) {
                    break;
                }
                total++;
            } finally {
                lock.unlock();
            }
            PooledConnection conn = open();
            if (!addIdle(conn)) {
                destroy(conn);
                break;
            }
            opened++;
        }
        return opened;
    }

    /** Closes idle connections unused for longer than {@code maxIdleMillis}, keeping {@code minIdle}. */
    int evictIdle(long maxIdleMillis, int minIdle) {
        List<PooledConnection> evicted = new ArrayList<>();
        lock.lock();
        try {
            // the least recently returned connections are at the end
            Iterator<PooledConnection> oldestFirst = idle.descendingIterator();
            while (oldestFirst.hasNext() && idle.size() > minIdle) {
                PooledConnection conn = oldestFirst.next();
                if (conn.idleMillis() > maxIdleMillis) {
                    oldestFirst.remove();
                    total--;
                    evicted.add(conn);
                }
            }
            if (!evicted.isEmpty()) {
                changed.signalAll();
            }
        } finally {
            lock.unlock();
        }
        for (PooledConnection conn : evicted) {
            destroy(conn);
        }
        stats.recordEvicted(evicted.size());
        return evicted.size();
    }

    /** Borrowed connections held for longer than {@code thresholdMillis}. */
    List<PooledConnection> findLeaks(long thresholdMillis) {
        lock.lock();
        try {
            List<PooledConnection> leaks = new ArrayList<>();
            for (PooledConnection conn : inUse) {
                if (conn.heldMillis() > thresholdMillis) {
                    leaks.add(conn);
                }
            }
            return leaks;
        } finally {
            lock.unlock();
        }
    }

    public int idleCount() {
        lock.lock();
        try {
            return idle.size();
        } finally {
            lock.unlock();
        }
    }

    /** Connections open or being opened. */
    public int totalCount() {
        lock.lock();
        try {
            return total;
        } finally {
            lock.unlock();
        }
    }

    public PoolStatistics statistics() {
        return stats;
    }

    /**
     * Closes the pool: borrowers fail from now on, borrowed connections are waited for
     * (thirty seconds at most), idle ones are closed.
     */
    @Override
    public void close() throws InterruptedException {
        List<PooledConnection> toDestroy;
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            changed.signalAll();
            long remaining = TimeUnit.SECONDS.toNanos(CLOSE_TIMEOUT_SECONDS);
            while (total > idle.size() && remaining > 0) {
                remaining = changed.awaitNanos(remaining);
            }
            if (total > idle.size()) {
                LOG.warning("pool " + name + " closed with " + (total - idle.size()) + " connections still borrowed");
            }
            toDestroy = new ArrayList<>(idle);
            idle.clear();
            total -= toDestroy.size();
        } finally {
            lock.unlock();
        }
        evictor.stop();
        for (PooledConnection conn : toDestroy) {
            destroy(conn);
        }
    }

    /** Opens a connection for a slot already counted in {@code total}. */
    private PooledConnection open() throws IOException {
        try {
            PooledConnection conn = new PooledConnection(this, nextId.incrementAndGet(), factory.open());
            stats.recordCreated();
            return conn;
        } catch (IOException | RuntimeException e) {
            lock.lock();
            try {
                total--;
                changed.signalAll();
            } finally {
                lock.unlock();
            }
            throw e;
        }
    }

    private boolean addIdle(PooledConnection conn) {
        lock.lock();
        try {
            changed.signalAll();
            if (closed) {
                total--;
                return false;
            }
            idle.addLast(conn);
            return true;
        } finally {
            lock.unlock();
        }
    }

    private void destroy(PooledConnection conn) {
        conn.destroy();
        stats.recordDestroyed();
        fire(PoolListener::destroyed, conn);
    }

    private void fire(BiConsumer<PoolListener, PooledConnection> event, PooledConnection conn) {
        for (PoolListener listener : listeners) {
            try {
                event.accept(listener, conn);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "pool listener failed", e);
            }
        }
    }
}
