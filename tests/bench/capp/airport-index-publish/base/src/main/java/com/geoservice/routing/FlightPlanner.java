package com.geoservice.routing;

import java.util.HashMap;
import java.util.Map;

/** Plans direct flights: great-circle distance, block time, and local arrival hour. */
public class FlightPlanner {
    /** A planned direct flight. */
    public record Plan(String from, String to, long km, int blockMinutes, int arrivalHourLocal) {
    }

    private static final double EARTH_KM = 6371.0;
    private final AirportDirectory airports;
    private final PlannerStats stats;
    private final Map<String, Long> distanceCache = new HashMap<>();
    private volatile int cruiseKmh = 850;

    public FlightPlanner(AirportDirectory airports, PlannerStats stats) {
        this.airports = airports;
        this.stats = stats;
    }

    public Plan plan(String from, String to, int departureHourLocal) {
        Airport a = airports.lookup(from);
        Airport b = airports.lookup(to);
        long km = distance(a, b);
        int block = (int) (km * 60 / cruiseKmh) + 30;
        int arrivalUtc = departureHourLocal - a.utcOffset() + (block + 59) / 60;
        int arrivalLocal = Math.floorMod(arrivalUtc + b.utcOffset(), 24);
        stats.planned(from + "-" + to, km);
        return new Plan(from, to, km, block, arrivalLocal);
    }

    private long distance(Airport a, Airport b) {
        String key = a.code().compareTo(b.code()) < 0 ? a.code() + b.code() : b.code() + a.code();
        synchronized (distanceCache) {
            Long cached = distanceCache.get(key);
            if (cached != null) {
                return cached;
            }
        }
        double p1 = Math.toRadians(a.lat());
        double p2 = Math.toRadians(b.lat());
        double dp = p2 - p1;
        double dl = Math.toRadians(b.lon() - a.lon());
        double h = Math.sin(dp / 2) * Math.sin(dp / 2) + Math.cos(p1) * Math.cos(p2) * Math.sin(dl / 2) * Math.sin(dl / 2);
        long km = Math.round(2 * EARTH_KM * Math.asin(Math.sqrt(h)));
        synchronized (distanceCache) {
            distanceCache.put(key, km);
        }
        return km;
    }

    public void setCruiseSpeed(int kmh) {
        cruiseKmh = kmh;
    }
}
