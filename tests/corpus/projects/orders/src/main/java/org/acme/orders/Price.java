package org.acme.orders;

import java.util.Objects;

/**
 * A unit price as loaded from the pricing service, with the time it was loaded. Immutable.
 */
public final class Price {

    private final String sku;
    private final long unitCents;
    private final long loadedAtMillis;

    public Price(String sku, long unitCents, long loadedAtMillis) {
        if (unitCents < 0) {
            throw new IllegalArgumentException("negative price for " + sku + ": " + unitCents);
        }
        this.sku = Objects.requireNonNull(sku, "sku");
        this.unitCents = unitCents;
        this.loadedAtMillis = loadedAtMillis;
    }

    public String sku() {
        return sku;
    }

    public long unitCents() {
        return unitCents;
    }

    public long loadedAtMillis() {
        return loadedAtMillis;
    }

    /** The price of {@code quantity} units, in cents. */
    public long centsFor(int quantity) {
        return Math.multiplyExact(unitCents, (long) quantity);
    }

    /** Whether the price was loaded more than {@code ttlMillis} ago. */
    public boolean isOlderThan(long ttlMillis) {
        return System.currentTimeMillis() - loadedAtMillis > ttlMillis;
    }

    @Override
    public String toString() {
        return sku + "@" + unitCents + "c";
    }
}
