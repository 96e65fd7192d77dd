package com.bootkit.lifecycle;

import java.util.List;
import java.util.Map;

/** Starts the application: configuration, services, then opens the gate for requests. */
public class Bootstrap {
    private final Lifecycle lifecycle;
    private final Config config;
    private final ServiceRegistry registry;
    private volatile String phase = "new";

    public Bootstrap(Lifecycle lifecycle, Config config, ServiceRegistry registry) {
        this.lifecycle = lifecycle;
        this.config = config;
        this.registry = registry;
    }

    public void start(Map<String, String> settings) {
        try {
            phase = "config";
            config.load(settings);
            phase = "services";
            registry.register(new ServiceRegistry.Service("catalog", List.of("/products", "/categories")));
            registry.register(new ServiceRegistry.Service("cart", List.of("/cart")));
            phase = "ready";
            lifecycle.markRunning();
        } catch (RuntimeException e) {
            phase = "failed";
            lifecycle.markFailed(e);
            throw e;
        }
    }

    public String phase() {
        return phase;
    }
}
