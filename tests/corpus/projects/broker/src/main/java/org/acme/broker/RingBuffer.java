package org.acme.broker;

import java.util.Collection;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A fixed-capacity FIFO queue on a {@link ReentrantLock} with one condition per kind of
 * waiter, like {@code ArrayBlockingQueue}: every insertion signals one consumer and every
 * removal one producer.
 *
 * @param <T> the element type
 */
public final class RingBuffer<T> {

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notEmpty = lock.newCondition();
    private final Condition notFull = lock.newCondition();
    private final Object[] items;
    private int putIndex;
    private int takeIndex;
    private int count;

    public RingBuffer(int capacity) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("capacity must be positive: " + capacity);
        }
        items = new Object[capacity];
    }

    /** Adds an element, waiting while the buffer is full. */
    public void put(T item) throws InterruptedException {
        Objects.requireNonNull(item, "item");
        lock.lockInterruptibly();
        try {
            while (count == items.length) {
                notFull.await();
            }
            enqueue(item);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Adds an element if there is room.
     *
     * @return false when the buffer is full
     */
    public boolean offer(T item) {
        Objects.requireNonNull(item, "item");
        lock.lock();
        try {
            if (count == items.length) {
                return false;
            }
            enqueue(item);
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Removes the oldest element, waiting at most {@code timeout} for one.
     *
     * @return null when none arrived in time
     */
    public T poll(long timeout, TimeUnit unit) throws InterruptedException {
        long nanos = unit.toNanos(timeout);
        lock.lockInterruptibly();
        try {
            while (count == 0) {
                if (nanos <= 0) {
                    return null;
                }
                nanos = notEmpty.awaitNanos(nanos);
            }
            return dequeue();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Moves every element to {@code sink}, oldest first.
     *
     * @return how many were moved
     */
    public int drainTo(Collection<? super T> sink) {
        lock.lock();
        try {
            int n = count;
            for (int i = 0; i < n; i++) {
                @SuppressWarnings("unchecked")
                T item = (T) items[takeIndex];
                sink.add(item);
                items[takeIndex] = null;
                takeIndex = (takeIndex + 1) % items.length;
            }
            count = 0;
            if (n > 0) {
                // n slots freed at once: every waiting producer may go on
                notFull.signalAll();
            }
            return n;
        } finally {
            lock.unlock();
        }
    }

    public int remainingCapacity() {
        lock.lock();
        try {
            return items.length - count;
        } finally {
            lock.unlock();
        }
    }

    public int size() {
        lock.lock();
        try {
            return count;
        } finally {
            lock.unlock();
        }
    }

    private void enqueue(T item) {
        items[putIndex] = item;
        putIndex = (putIndex + 1) % items.length;
        count++;
        notEmpty.signal();
    }

    private T dequeue() {
        @SuppressWarnings("unchecked")
        T item = (T) items[takeIndex];
        items[takeIndex] = null;
        takeIndex = (takeIndex + 1) % items.length;
        count--;
        notFull.signal();
        return item;
    }
}
