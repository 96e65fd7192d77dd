package org.acme.orders;

import java.io.IOException;
import java.io.Writer;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * An audit trail written to a {@link Writer} by a background thread.
 *
 * <p>Entries are queued under {@code lock} and written in batches by the flusher thread,
 * the only thread that touches the writer. When more than {@code capacity} entries are
 * waiting, the oldest are dropped and counted.
 */
public final class AuditLog implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(AuditLog.class.getName());

    private final ReentrantLock lock = new ReentrantLock();
    /** Signalled when an entry is queued or the log closes; only the flusher waits on it. */
    private final Condition nonEmpty = lock.newCondition();
    private final Deque<String> pending = new ArrayDeque<>();
    private final int capacity;
    private final Writer out;
    private final Thread flusher;
    private long sequence;
    private long dropped;
    private boolean closed;

    public AuditLog(Writer out, int capacity) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("capacity must be positive: " + capacity);
        }
        this.out = out;
        this.capacity = capacity;
        this.flusher = new Thread(this::flushLoop, "audit-flusher");
        this.flusher.setDaemon(true);
    }

    public void start() {
        flusher.start();
    }

    /**
     * Queues an entry.
     *
     * @throws IllegalStateException after {@link #close()}
     */
    public void record(String event) {
        lock.lock();
        try {
            if (closed) {
                throw new IllegalStateException("audit log is closed");
            }
            if (pending.size() == capacity) {
                pending.removeFirst();
                dropped++;
            }
            pending.addLast(++sequence + " " + Instant.now() + " " + event);
            nonEmpty.signal();
        } finally {
            lock.unlock();
        }
    }

    /** Entries queued and not yet written. */
    public int pendingCount() {
        lock.lock();
        try {
            return pending.size();
        } finally {
            lock.unlock();
        }
    }

    /** Entries dropped because the queue was full. */
    public long droppedCount() {
        lock.lock();
        try {
            return dropped;
        } finally {
            lock.unlock();
        }
    }

    /** Sequence number of the last entry recorded, 0 before the first. */
    public long lastSequence() {
        lock.lock();
        try {
            return sequence;
        } finally {
            lock.unlock();
        }
    }

    private void flushLoop() {
        List<String> batch = new ArrayList<>();
        try {
            while (true) {
                lock.lock();
                try {
                    while (pending.isEmpty() && !closed) {
                        nonEmpty.await();
                    }
                    if (pending.isEmpty()) {
                        return;
                    }
                    batch.addAll(pending);
                    pending.clear();
                } finally {
                    lock.unlock();
                }
                write(batch);
                batch.clear();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void write(List<String> batch) {
        try {
            for (String line : batch) {
                out.write(line);
                out.write(System.lineSeparator());
            }
            out.flush();
        } catch (IOException e) {
            LOG.log(Level.WARNING, "could not write " + batch.size() + " audit entries", e);
        }
    }

    /** Stops accepting entries, writes what is queued, and waits up to five seconds for that. */
    @Override
    public void close() throws InterruptedException {
        lock.lock();
        try {
            closed = true;
            nonEmpty.signal();
        } finally {
            lock.unlock();
        }
        flusher.join(TimeUnit.SECONDS.toMillis(5));
    }
}
