package org.acme.metrics;

import java.util.Arrays;
import java.util.Properties;
import java.util.logging.Logger;

/**
 * The metrics settings of the process, read from the system properties on first use.
 * Loaded lazily with double-checked locking on a volatile field: the configuration is
 * filled in completely before it is published.
 */
public final class MetricsConfig {

    private static final Logger LOG = Logger.getLogger(MetricsConfig.class.getName());
    private static final Object LOCK = new Object();
    private static volatile MetricsConfig instance;

    private boolean enabled = true;
    private String prefix = "app";
    private long flushIntervalMillis = 10_000;
    private long[] latencyBounds = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000};

    private MetricsConfig() {
    }

    public static MetricsConfig get() {
        MetricsConfig config = instance;
        if (config == null) {
            synchronized (LOCK) {
                config = instance;
                if (config == null) {
                    config = new MetricsConfig();
                    config.load(System.getProperties());
                    instance = config;
                }
            }
        }
        return config;
    }

    /** Forgets the configuration so that the next {@link #get()} reads the properties again. */
    static void reload() {
        synchronized (LOCK) {
            instance = null;
        }
    }

    private void load(Properties properties) {
        enabled = Boolean.parseBoolean(properties.getProperty("metrics.enabled", "true"));
        prefix = properties.getProperty("metrics.prefix", prefix);
        String interval = properties.getProperty("metrics.flushIntervalMillis");
        if (interval != null) {
            flushIntervalMillis = Long.parseLong(interval.trim());
        }
        String bounds = properties.getProperty("metrics.latencyBounds");
        if (bounds != null) {
            latencyBounds = Arrays.stream(bounds.split(",")).map(String::trim).mapToLong(Long::parseLong).sorted().toArray();
        }
        LOG.config(() -> "metrics " + (enabled ? "enabled" : "disabled") + ", prefix " + prefix + ", flush every " + flushIntervalMillis + " ms");
    }

    public boolean enabled() {
        return enabled;
    }

    public String prefix() {
        return prefix;
    }

    public long flushIntervalMillis() {
        return flushIntervalMillis;
    }

    public long[] latencyBounds() {
        return latencyBounds.clone();
    }
}
