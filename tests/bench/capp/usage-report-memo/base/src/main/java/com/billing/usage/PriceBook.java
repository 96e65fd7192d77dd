package com.billing.usage;

import java.util.HashMap;
import java.util.Map;

/** Unit prices per metric in micro-dollars, with per-customer discounts in percent. */
public class PriceBook {
    private final Map<String, Long> unitPrices = new HashMap<>();
    private final Map<String, Integer> discounts = new HashMap<>();
    private int lookups;

    public synchronized void price(String metric, long microDollars) {
        unitPrices.put(metric, microDollars);
    }

    public synchronized void discount(String customer, int percent) {
        discounts.put(customer, percent);
    }

    public synchronized long charge(String customer, String metric, long quantity) {
        lookups++;
        long gross = unitPrices.getOrDefault(metric, 0L) * quantity;
        int off = discounts.getOrDefault(customer, 0);
        return gross - gross * off / 100;
    }

    public synchronized int lookups() {
        return lookups;
    }
}
