package com.geoservice.routing;

import java.util.HashMap;
import java.util.Map;

/**
 * Airports by code. The index is built on first use (loading reference data is slow and
 * many processes never need it) and then read without locking.
 */
public class AirportDirectory {
    private final AirportSource source;
    private volatile Map<String, Airport> byCode;
    private int indexBuilds;
    private long lookups;

    public AirportDirectory(AirportSource source) {
        this.source = source;
    }

    private Map<String, Airport> index() {
        Map<String, Airport> idx = byCode;
        if (idx == null) {
            synchronized (this) {
                idx = byCode;
                if (idx == null) {
                    idx = new HashMap<>();
                    for (Airport a : source.load()) {
                        idx.put(a.code(), a);
                    }
                    indexBuilds++;
                    byCode = idx;
                }
            }
        }
        return idx;
    }

    /** The airport with this code; throws if there is none. */
    public Airport lookup(String code) {
        synchronized (this) {
            lookups++;
        }
        Airport a = index().get(code);
        if (a == null) {
            throw new IllegalArgumentException("unknown airport " + code);
        }
        return a;
    }

    /** Drops the index so that the next lookup reloads the reference data. */
    public synchronized void invalidate() {
        byCode = null;
    }

    public synchronized int indexBuilds() {
        return indexBuilds;
    }

    public synchronized long lookups() {
        return lookups;
    }
}
