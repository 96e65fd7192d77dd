package com.edgeproxy.stats;

import java.util.concurrent.ConcurrentHashMap;

/** The {@link RouteStats} of every route seen so far. */
public class StatsRegistry {
    private final ConcurrentHashMap<String, RouteStats> routes = new ConcurrentHashMap<>();

    public RouteStats forRoute(String route) {
        return routes.computeIfAbsent(route, RouteStats::new);
    }

    public int routeCount() {
        return routes.size();
    }
}
