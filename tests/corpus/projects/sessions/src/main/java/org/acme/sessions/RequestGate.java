package org.acme.sessions;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Bounds the requests served at once. Requests wait on {@code permitAvailable}; shutdown
 * waits on {@code drained} for the last one to leave. Guarded by {@code lock}.
 */
public final class RequestGate {

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition permitAvailable = lock.newCondition();
    private final Condition drained = lock.newCondition();
    private final int maxConcurrent;
    // guarded by lock
    private int active;
    private boolean closed;

    public RequestGate(int maxConcurrent) {
        this.maxConcurrent = maxConcurrent;
    }

    /** Waits for a permit; false on timeout or once the gate is closed. */
    public boolean acquire(long timeout, TimeUnit unit) throws InterruptedException {
        long nanos = unit.toNanos(timeout);
        lock.lock();
        try {
            while (!closed && active >= maxConcurrent) {
                if (nanos <= 0) {
                    return false;
                }
                nanos = permitAvailable.awaitNanos(nanos);
            }
            if (closed) {
                return false;
            }
            active++;
            return true;
        } finally {
            lock.unlock();
        }
    }

    public void release() {
        lock.lock();
        try {
            active--;
            permitAvailable.signal();
            if (active == 0) {
                drained.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Refuses new requests; the waiting ones give up. */
    public void close() {
        lock.lock();
        try {
            closed = true;
            permitAvailable.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Waits until no request is being served; false on timeout. */
    public boolean awaitDrained(long timeout, TimeUnit unit) throws InterruptedException {
        long nanos = unit.toNanos(timeout);
        lock.lock();
        try {
            while (active > 0) {
                if (nanos <= 0) {
                    return false;
                }
                nanos = drained.awaitNanos(nanos);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    public int active() {
        lock.lock();
        try {
            return active;
        } finally {
            lock.unlock();
        }
    }
}
