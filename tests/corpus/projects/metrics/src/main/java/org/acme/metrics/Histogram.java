package org.acme.metrics;

import java.util.Arrays;

/**
 * Counts observations in buckets with fixed upper bounds, plus count, sum, minimum and
 * maximum. All of it is guarded by the histogram's monitor so that a snapshot is
 * consistent: its count is the sum of its buckets.
 */
public final class Histogram {

    /** Told about observations above the last bound; called without the histogram's monitor. */
    public interface OverflowListener {
        void onOverflow(Histogram histogram, long value);
    }

    private final String name;
    private final long[] bounds;
    private final long[] counts;
    private final OverflowListener overflowListener;
    private long count;
    private long sum;
    private long min = Long.MAX_VALUE;
    private long max = Long.MIN_VALUE;

    public Histogram(String name, long[] bounds, OverflowListener overflowListener) {
        for (int i = 1; i < bounds.length; i++) {
            if (bounds[i] <= bounds[i - 1]) {
                throw new IllegalArgumentException("bounds of " + name + " are not ascending: " + Arrays.toString(bounds));
            }
        }
        this.name = name;
        this.bounds = bounds.clone();
        this.counts = new long[bounds.length + 1];
        this.overflowListener = overflowListener;
    }

    public String name() {
        return name;
    }

    public void record(long value) {
        boolean overflow;
        synchronized (this) {
            int bucket = bucketOf(value);
            counts[bucket]++;
            count++;
            sum += value;
            min = Math.min(min, value);
            max = Math.max(max, value);
            overflow = bucket == bounds.length;
        }
        // The listener is the registry, which takes its own monitor.
        if (overflow && overflowListener != null) {
            overflowListener.onOverflow(this, value);
        }
    }

    public synchronized HistogramData snapshot() {
        return new HistogramData(bounds, counts, count, sum, min, max);
    }

    /** A snapshot, after which the histogram starts empty again. */
    public synchronized HistogramData snapshotAndReset() {
        HistogramData data = new HistogramData(bounds, counts, count, sum, min, max);
        Arrays.fill(counts, 0);
        count = 0;
        sum = 0;
        min = Long.MAX_VALUE;
        max = Long.MIN_VALUE;
        return data;
    }

    /**
     * Adds the observations of another histogram with the same bounds, for instance a
     * per-thread one. The other histogram is copied first, so the two monitors are never
     * held together and merges in both directions cannot deadlock.
     */
    public void merge(Histogram other) {
        if (!Arrays.equals(bounds, other.bounds)) {
            throw new IllegalArgumentException("cannot merge " + other.name + " into " + name + ": different bounds");
        }
        HistogramData data = other.snapshot();
        long[] otherCounts = data.counts();
        synchronized (this) {
            for (int i = 0; i < counts.length; i++) {
                counts[i] += otherCounts[i];
            }
            count += data.count();
            sum += data.sum();
            min = Math.min(min, data.min());
            max = Math.max(max, data.max());
        }
    }

    private int bucketOf(long value) {
        int i = Arrays.binarySearch(bounds, value);
        return i >= 0 ? i : -i - 1;
    }
}
