package com.bootkit.lifecycle;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/** Named services the bootstrap creates and the request handlers look up. */
public class ServiceRegistry {
    /** A service: a name and the routes it answers. */
    public record Service(String name, List<String> routes) {
    }

    private final ConcurrentHashMap<String, Service> byRoute = new ConcurrentHashMap<>();
    private final List<String> order = new ArrayList<>();

    public void register(Service s) {
        for (String route : s.routes()) {
            Service old = byRoute.putIfAbsent(route, s);
            if (old != null) {
                throw new IllegalStateException(route + " served by " + old.name() + " and " + s.name());
            }
        }
        synchronized (order) {
            order.add(s.name());
        }
    }

    public Service forRoute(String route) {
        return byRoute.get(route);
    }

    public List<String> registrationOrder() {
        synchronized (order) {
            return new ArrayList<>(order);
        }
    }
}
