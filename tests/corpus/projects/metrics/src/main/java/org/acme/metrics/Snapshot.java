package org.acme.metrics;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/** The values of every metric at one moment. Immutable. */
public final class Snapshot {

    private final long takenAtMillis;
    private final Map<String, Long> counters;
    private final Map<String, HistogramData> histograms;
    private final Map<String, Long> gauges;
    private final Map<String, Long> overflows;

    Snapshot(long takenAtMillis, Map<String, Long> counters, Map<String, HistogramData> histograms, Map<String, Long> gauges, Map<String, Long> overflows) {
        this.takenAtMillis = takenAtMillis;
        this.counters = Collections.unmodifiableMap(new TreeMap<>(counters));
        this.histograms = Collections.unmodifiableMap(new TreeMap<>(histograms));
        this.gauges = Collections.unmodifiableMap(new TreeMap<>(gauges));
        this.overflows = Collections.unmodifiableMap(new TreeMap<>(overflows));
    }

    public long takenAtMillis() {
        return takenAtMillis;
    }

    public Map<String, Long> counters() {
        return counters;
    }

    public Map<String, HistogramData> histograms() {
        return histograms;
    }

    public Map<String, Long> gauges() {
        return gauges;
    }

    /** Observations above the last bound, per histogram, since the previous resetting snapshot. */
    public Map<String, Long> overflows() {
        return overflows;
    }
}
