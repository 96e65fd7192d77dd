package org.acme.metrics;

import java.util.Arrays;

/**
 * A copy of a histogram's state at one moment: consistent, since it is taken under the
 * histogram's monitor. Immutable.
 */
public final class HistogramData {

    private final long[] bounds;
    private final long[] counts;
    private final long count;
    private final long sum;
    private final long min;
    private final long max;

    HistogramData(long[] bounds, long[] counts, long count, long sum, long min, long max) {
        this.bounds = bounds.clone();
        this.counts = counts.clone();
        this.count = count;
        this.sum = sum;
        this.min = min;
        this.max = max;
    }

    public long count() {
        return count;
    }

    public long sum() {
        return sum;
    }

    public long min() {
        return min;
    }

    public long max() {
        return max;
    }

    public double mean() {
        return count == 0 ? 0.0 : (double) sum / count;
    }

    long[] counts() {
        return counts.clone();
    }

    /** The upper bound of the bucket that holds the given quantile, or {@code max} for the last bucket. */
    public long quantile(double q) {
        if (count == 0) {
            return 0;
        }
        long rank = (long) Math.ceil(q * count);
        long seen = 0;
        for (int i = 0; i < counts.length; i++) {
            seen += counts[i];
            if (seen >= rank) {
                return i < bounds.length ? bounds[i] : max;
            }
        }
        return max;
    }

    @Override
    public String toString() {
        return "count=" + count + " mean=" + mean() + " max=" + max + " buckets=" + Arrays.toString(counts);
    }
}
