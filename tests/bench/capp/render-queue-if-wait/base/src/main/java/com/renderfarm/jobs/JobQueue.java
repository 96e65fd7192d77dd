package com.renderfarm.jobs;

import java.util.ArrayDeque;

/**
 * Jobs waiting for a render node. Nodes block in {@link #take()} until a job arrives or
 * the queue is closed (then they get {@code null} and stop).
 */
public class JobQueue {
    private final ArrayDeque<RenderJob> pending = new ArrayDeque<>();
    private boolean closed;
    private int submitted;
    private int idleWaits;

    public synchronized void submit(RenderJob job) {
        if (closed) {
            throw new IllegalStateException("queue closed");
        }
        pending.addLast(job);
        submitted++;
        notifyAll();
    }

    /** The next job, waiting for one; {@code null} once the queue is closed and drained. */
    public synchronized RenderJob take() throws InterruptedException {
        while (pending.isEmpty()) {
            if (closed) {
                return null;
            }
            idleWaits++;
            wait();
        }
        return pending.removeFirst();
    }

    /** No more jobs: nodes finish what is queued, then stop. */
    public synchronized void close() {
        closed = true;
        notifyAll();
    }

    public synchronized int submitted() {
        return submitted;
    }

    public synchronized int idleWaits() {
        return idleWaits;
    }

    public synchronized int size() {
        return pending.size();
    }
}
