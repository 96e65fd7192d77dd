package org.acme.metrics;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The metrics of an application, by name. Metrics are created on first use and never
 * removed; lookups are lock-free.
 *
 * <p>The registry's monitor guards the overflow counts and makes resetting snapshots
 * atomic with respect to each other. It is taken before a metric's monitor, never after:
 * histograms report overflows after releasing their own.
 */
public final class MetricRegistry implements Histogram.OverflowListener {

    private final ConcurrentMap<String, Counter> counters = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Histogram> histograms = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, MaxGauge> gauges = new ConcurrentHashMap<>();
    private final Map<String, Long> overflows = new HashMap<>();
    private final long[] defaultBounds;

    public MetricRegistry(long[] defaultBounds) {
        this.defaultBounds = defaultBounds.clone();
    }

    public Counter counter(String name) {
        return counters.computeIfAbsent(name, Counter::new);
    }

    public Histogram histogram(String name) {
        return histograms.computeIfAbsent(name, n -> new Histogram(n, defaultBounds, this));
    }

    public MaxGauge gauge(String name) {
        return gauges.computeIfAbsent(name, MaxGauge::new);
    }

    @Override
    public synchronized void onOverflow(Histogram histogram, long value) {
        overflows.merge(histogram.name(), 1L, Long::sum);
    }

    /**
     * The current values; with {@code reset}, counters, histograms and gauges start over,
     * so consecutive resetting snapshots add up to the whole.
     */
    public synchronized Snapshot snapshot(boolean reset) {
        Map<String, Long> counterValues = new TreeMap<>();
        for (Counter counter : counters.values()) {
            counterValues.put(counter.name(), reset ? counter.drain() : counter.value());
        }
        Map<String, HistogramData> histogramValues = new TreeMap<>();
        for (Histogram histogram : histograms.values()) {
            histogramValues.put(histogram.name(), reset ? histogram.snapshotAndReset() : histogram.snapshot());
        }
        Map<String, Long> gaugeValues = new TreeMap<>();
        for (MaxGauge gauge : gauges.values()) {
            gaugeValues.put(gauge.name(), reset ? gauge.getAndReset() : gauge.get());
        }
        Snapshot snapshot = new Snapshot(System.currentTimeMillis(), counterValues, histogramValues, gaugeValues, overflows);
        if (reset) {
            overflows.clear();
        }
        return snapshot;
    }

    /** Merges a per-thread histogram into the registry's histogram of that name. */
    public void mergeInto(String name, Histogram perThread) {
        histogram(name).merge(perThread);
    }
}
