package com.geoservice.routing;

import java.util.List;

/** Where airport data comes from (a reference-data service; here, a fixed list). */
public class AirportSource {
    private final List<Airport> airports;
    private int loads;

    public AirportSource(List<Airport> airports) {
        this.airports = List.copyOf(airports);
    }

    public synchronized List<Airport> load() {
        loads++;
        return airports;
    }

    public synchronized int loads() {
        return loads;
    }
}
