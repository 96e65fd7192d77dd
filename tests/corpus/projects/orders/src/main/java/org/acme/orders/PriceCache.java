package org.acme.orders;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;

/**
 * Caches prices from a slow {@link PriceSource} for a while. Safe for concurrent use:
 * two threads missing the same item may both load it; the newer price is kept.
 */
public final class PriceCache {

    private static final Logger LOG = Logger.getLogger(PriceCache.class.getName());

    private final ConcurrentMap<String, Price> prices = new ConcurrentHashMap<>();
    private final PriceSource source;
    private final long ttlMillis;
    private final AtomicLong hits = new AtomicLong();
    private final AtomicLong loads = new AtomicLong();

    public PriceCache(PriceSource source, long ttlMillis) {
        this.source = source;
        this.ttlMillis = ttlMillis;
    }

    /** The price of an item, from the cache while it is fresh. */
    public Price priceOf(String sku) {
        Price cached = prices.get(sku);
        if (cached != null && !cached.isOlderThan(ttlMillis)) {
            hits.incrementAndGet();
            return cached;
        }
        Price fresh = load(sku);
        return prices.merge(sku, fresh, (old, loaded) -> loaded.loadedAtMillis() >= old.loadedAtMillis() ? loaded : old);
    }

    /** Forgets the price of an item, for instance after a price change was announced. */
    public void invalidate(String sku) {
        if (prices.remove(sku) != null) {
            LOG.fine(() -> "invalidated " + sku);
        }
    }

    public void invalidateAll() {
        prices.clear();
    }

    /** Share of lookups served from the cache, between 0 and 1. */
    public double hitRatio() {
        long h = hits.get();
        long total = h + loads.get();
        return total == 0 ? 0.0 : (double) h / total;
    }

    private Price load(String sku) {
        loads.incrementAndGet();
        Price price = source.load(sku);
        if (!price.sku().equals(sku)) {
            throw new IllegalStateException("asked for " + sku + ", got " + price.sku());
        }
        return price;
    }
}
