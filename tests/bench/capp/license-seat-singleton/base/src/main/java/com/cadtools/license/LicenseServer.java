package com.cadtools.license;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The site's license server (a stand-in for the vendor daemon): a fixed number of seats
 * per feature, counted per checkout.
 */
public class LicenseServer {
    private final Map<String, Integer> limits = new HashMap<>();
    private final Map<Long, Seat> checkedOut = new LinkedHashMap<>();
    private long nextSeatId = 1;
    private int denials;

    public synchronized void offer(String feature, int seats) {
        limits.put(feature, seats);
    }

    public synchronized Seat checkout(String host, String feature) {
        int limit = limits.getOrDefault(feature, 0);
        int used = 0;
        for (Seat s : checkedOut.values()) {
            if (s.feature().equals(feature)) {
                used++;
            }
        }
        if (used >= limit) {
            denials++;
            throw new SeatLimitExceededException(feature, limit);
        }
        Seat seat = new Seat(nextSeatId++, feature, host);
        checkedOut.put(seat.id(), seat);
        return seat;
    }

    public synchronized void release(Seat seat) {
        checkedOut.remove(seat.id());
    }

    public synchronized int inUse(String feature) {
        int n = 0;
        for (Seat s : checkedOut.values()) {
            if (s.feature().equals(feature)) {
                n++;
            }
        }
        return n;
    }

    public synchronized int denials() {
        return denials;
    }
}
