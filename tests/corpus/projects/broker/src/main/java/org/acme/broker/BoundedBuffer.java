package org.acme.broker;

import java.util.concurrent.TimeUnit;

/**
 * A fixed-capacity FIFO buffer for any number of producers and consumers, on the
 * buffer's monitor. Producers wait while it is full and consumers while it is empty;
 * both kinds wait on the one monitor, so every change wakes all of them.
 *
 * @param <T> the element type
 */
public final class BoundedBuffer<T> {

    private final Object[] items;
    private int head;
    private int tail;
    private int count;
    private boolean closed;

    public BoundedBuffer(int capacity) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("capacity must be positive: " + capacity);
        }
        items = new Object[capacity];
    }

    /**
     * Adds an element, waiting while the buffer is full.
     *
     * @throws IllegalStateException when the buffer is closed
     */
    public synchronized void put(T item) throws InterruptedException {
        while (count == items.length && !closed) {
            wait();
        }
        enqueue(item);
    }

    /**
     * Adds an element, waiting at most {@code timeout} while the buffer is full.
     *
     * @return false when the buffer stayed full
     */
    public synchronized boolean offer(T item, long timeout, TimeUnit unit) throws InterruptedException {
        long remaining = unit.toNanos(timeout);
        long deadline = System.nanoTime() + remaining;
        while (count == items.length && !closed) {
            if (remaining <= 0) {
                return false;
            }
            TimeUnit.NANOSECONDS.timedWait(this, remaining);
            remaining = deadline - System.nanoTime();
        }
        enqueue(item);
        return true;
    }

    /**
     * Removes the oldest element, waiting while the buffer is empty.
     *
     * @return null once the buffer is closed and empty
     */
    public synchronized T take() throws InterruptedException {
        while (count == 0) {
            if (closed) {
                return null;
            }
            wait();
        }
        @SuppressWarnings("unchecked")
        T item = (T) items[head];
        items[head] = null;
        head = (head + 1) % items.length;
        count--;
        notifyAll();
        return item;
    }

    public synchronized int size() {
        return count;
    }

    /** Refuses further elements; consumers still get the ones buffered. */
    public synchronized void close() {
        closed = true;
        notifyAll();
    }

    private void enqueue(T item) {
        if (closed) {
            throw new IllegalStateException("buffer is closed");
        }
        items[tail] = item;
        tail = (tail + 1) % items.length;
        count++;
        notifyAll();
    }
}
