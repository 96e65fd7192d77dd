package com.billing.usage;

import java.util.Map;

/** Usage totals of a billing period, by customer and metric ("acme/api-calls"). */
public record UsageReport(long number, Map<String, Long> totals, int events) {
    public long total(String customer, String metric) {
        return totals.getOrDefault(customer + "/" + metric, 0L);
    }
}
