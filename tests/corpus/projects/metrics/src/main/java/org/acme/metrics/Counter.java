package org.acme.metrics;

/** A monotonically increasing count, guarded by its monitor. */
public final class Counter {

    private final String name;
    private long count;

    public Counter(String name) {
        this.name = name;
    }

    public String name() {
        return name;
    }

    public synchronized void increment() {
        count++;
    }

    public synchronized void add(long delta) {
        if (delta < 0) {
            throw new IllegalArgumentException("counter " + name + " cannot go down by " + delta);
        }
        count += delta;
    }

    public synchronized long value() {
        return count;
    }

    public synchronized void reset() {
        count = 0;
    }

    /** Returns the count and starts again from zero, in one step: no increment is lost. */
    public synchronized long drain() {
        long current = count;
        count = 0;
        return current;
    }
}
