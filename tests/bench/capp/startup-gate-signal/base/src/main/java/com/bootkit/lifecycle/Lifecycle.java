package com.bootkit.lifecycle;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The application's lifecycle: STARTING until the bootstrap finishes, then RUNNING (or
 * FAILED). Request threads block in {@link #awaitRunning()} until startup is over.
 */
public class Lifecycle {
    /** The states of the application. */
    public enum State { STARTING, RUNNING, STOPPING, FAILED }

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private State state = State.STARTING;
    private Throwable failure;
    private int waiters;

    /** Blocks while the application is starting; throws if the startup failed. */
    public void awaitRunning() throws InterruptedException {
        lock.lock();
        try {
            waiters++;
            while (state == State.STARTING) {
                changed.await();
            }
            waiters--;
            if (state == State.FAILED) {
                throw new IllegalStateException("startup failed", failure);
            }
        } finally {
            lock.unlock();
        }
    }

    public void markRunning() {
        lock.lock();
        try {
            if (state != State.STARTING) {
                throw new IllegalStateException("already " + state);
            }
            state = State.RUNNING;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    public void markFailed(Throwable cause) {
        lock.lock();
        try {
            failure = cause;
            state = State.FAILED;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    public void markStopping() {
        lock.lock();
        try {
            state = State.STOPPING;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    public State state() {
        lock.lock();
        try {
            return state;
        } finally {
            lock.unlock();
        }
    }

    public int waiters() {
        lock.lock();
        try {
            return waiters;
        } finally {
            lock.unlock();
        }
    }
}
