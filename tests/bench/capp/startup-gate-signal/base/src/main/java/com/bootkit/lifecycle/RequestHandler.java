package com.bootkit.lifecycle;

/** Answers requests once the application is running. */
public class RequestHandler {
    private final Lifecycle lifecycle;
    private final ServiceRegistry registry;
    private final Config config;
    private final RequestStats stats;

    public RequestHandler(Lifecycle lifecycle, ServiceRegistry registry, Config config, RequestStats stats) {
        this.lifecycle = lifecycle;
        this.registry = registry;
        this.config = config;
        this.stats = stats;
    }

    public String handle(String route, long now) throws InterruptedException {
        stats.touch(now);
        if (lifecycle.state() == Lifecycle.State.STARTING) {
            stats.waited();
        }
        lifecycle.awaitRunning();
        ServiceRegistry.Service s = registry.forRoute(route);
        if (s == null) {
            return "404";
        }
        stats.served(route);
        return config.get("greeting", "hi") + " from " + s.name();
    }
}
