package org.acme.pool;

import java.util.Properties;

/**
 * The tunables of a pool. A settings object is filled in by one thread and then
 * published through a volatile field; it is never changed once published (a change
 * publishes a modified copy).
 */
final class PoolSettings {

    private int maxTotal = 8;
    private int maxIdle = 8;
    private int minIdle;
    private long borrowTimeoutMillis = 30_000;
    private long maxIdleMillis = 600_000;
    private long evictionIntervalMillis = 30_000;
    private long leakThresholdMillis = 300_000;

    PoolSettings copy() {
        PoolSettings copy = new PoolSettings();
        copy.maxTotal = maxTotal;
        copy.maxIdle = maxIdle;
        copy.minIdle = minIdle;
        copy.borrowTimeoutMillis = borrowTimeoutMillis;
        copy.maxIdleMillis = maxIdleMillis;
        copy.evictionIntervalMillis = evictionIntervalMillis;
        copy.leakThresholdMillis = leakThresholdMillis;
        return copy;
    }

    /**
     * Overrides the values given in {@code properties} under {@code prefix}.
     *
     * @throws IllegalArgumentException when a value is malformed or the result inconsistent
     */
    void load(Properties properties, String prefix) {
        maxTotal = intValue(properties, prefix + "maxTotal", maxTotal);
        maxIdle = intValue(properties, prefix + "maxIdle", maxIdle);
        minIdle = intValue(properties, prefix + "minIdle", minIdle);
        borrowTimeoutMillis = longValue(properties, prefix + "borrowTimeoutMillis", borrowTimeoutMillis);
        maxIdleMillis = longValue(properties, prefix + "maxIdleMillis", maxIdleMillis);
        evictionIntervalMillis = longValue(properties, prefix + "evictionIntervalMillis", evictionIntervalMillis);
        leakThresholdMillis = longValue(properties, prefix + "leakThresholdMillis", leakThresholdMillis);
        if (maxTotal <= 0 || maxIdle < 0 || minIdle > maxIdle || maxIdle > maxTotal) {
            throw new IllegalArgumentException("inconsistent pool sizes: total " + maxTotal + ", idle " + minIdle + ".." + maxIdle);
        }
    }

    int maxTotal() {
        return maxTotal;
    }

    int maxIdle() {
        return maxIdle;
    }

    int minIdle() {
        return minIdle;
    }

    long borrowTimeoutMillis() {
        return borrowTimeoutMillis;
    }

    long maxIdleMillis() {
        return maxIdleMillis;
    }

    long evictionIntervalMillis() {
        return evictionIntervalMillis;
    }

    long leakThresholdMillis() {
        return leakThresholdMillis;
    }

    private static int intValue(Properties properties, String key, int fallback) {
        String value = properties.getProperty(key);
        return value == null ? fallback : Integer.parseInt(value.trim());
    }

    private static long longValue(Properties properties, String key, long fallback) {
        String value = properties.getProperty(key);
        return value == null ? fallback : Long.parseLong(value.trim());
    }
}
