package com.shopfront.inventory;

import java.util.HashMap;
import java.util.Map;

/** Unit prices in cents, with a lookup counter for the cache-efficiency dashboard. */
public class PriceCatalog {
    private final Map<String, Long> prices = new HashMap<>();
    private long lookups;
    private long misses;

    public synchronized void setPrice(String sku, long cents) {
        prices.put(sku, cents);
    }

    public synchronized long priceOf(String sku) {
        lookups++;
        Long p = prices.get(sku);
        if (p == null) {
            misses++;
            return 0;
        }
        return p;
    }

    public synchronized long lookups() {
        return lookups;
    }

    public synchronized long misses() {
        return misses;
    }
}
