package org.acme.scheduler;

import java.util.Comparator;
import java.util.Iterator;
import java.util.PriorityQueue;

/**
 * A bounded delay queue: jobs become due at a time, the workers take them in order of that
 * time. Everything is guarded by the queue's monitor. Workers in {@link #take()} and callers
 * of {@link #awaitEmpty(long)} wait on the monitor, for different things.
 */
public final class JobQueue {

    /** Told, outside the queue's monitor, about every job the queue refused. */
    public interface RejectionHandler {
        void rejected(Job job);
    }

    private record Entry(Job job, long dueAt, long seq) {
    }

    private final PriorityQueue<Entry> entries =
            new PriorityQueue<>(Comparator.comparingLong(Entry::dueAt).thenComparingLong(Entry::seq));
    private final int capacity;
    private final RejectionHandler rejectionHandler;

    // guarded by this
    private long seq;
    private boolean closed;
    private long enqueued;
    private long rejected;

    public JobQueue(int capacity, RejectionHandler rejectionHandler) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity " + capacity);
        }
        this.capacity = capacity;
        this.rejectionHandler = rejectionHandler;
    }

    /** Queues a job that becomes due at {@code dueAt}; false when the queue is full or closed. */
    public boolean offer(Job job, long dueAt) {
        synchronized (this) {
            if (!closed && entries.size() < capacity) {
                entries.add(new Entry(job, dueAt, seq++));
                enqueued++;
                // the new job may be due before the head every worker is waiting for
                notifyAll();
                return true;
            }
            rejected++;
        }
        // the handler belongs to the scheduler and takes its lock: never call it from here with ours held
        rejectionHandler.rejected(job);
        return false;
    }

    /** Blocks until a job is due and returns it; null once the queue is closed. */
    public synchronized Job take() throws InterruptedException {
        while (true) {
            if (closed) {
                return null;
            }
            Entry head = entries.peek();
            long now = System.currentTimeMillis();
            if (head == null) {
                wait();
            } else if (head.dueAt() > now) {
                wait(head.dueAt() - now);
            } else {
                entries.poll();
                if (entries.isEmpty()) {
                    notifyAll();
                }
                return head.job();
            }
        }
    }

    /** Waits until the queue is empty; false on timeout. */
    public synchronized boolean awaitEmpty(long timeoutMillis) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        while (!entries.isEmpty()) {
            long left = deadline - System.currentTimeMillis();
            if (left <= 0) {
                return false;
            }
            wait(left);
        }
        return true;
    }

    /** Drops the entries of cancelled jobs; returns how many were dropped. */
    public synchronized int purgeCancelled() {
        int dropped = 0;
        for (Iterator<Entry> it = entries.iterator(); it.hasNext(); ) {
            if (it.next().job().state() == JobState.CANCELLED) {
                it.remove();
                dropped++;
            }
        }
        if (dropped > 0 && entries.isEmpty()) {
            notifyAll();
        }
        return dropped;
    }

    /** Refuses new jobs and wakes every waiter; take() returns null from now on. */
    public synchronized void close() {
        closed = true;
        notifyAll();
    }

    public synchronized int size() {
        return entries.size();
    }

    public synchronized String describe() {
        return "queued=" + entries.size() + "/" + capacity + " enqueued=" + enqueued + " rejected=" + rejected + (closed ? " closed" : "");
    }
}
