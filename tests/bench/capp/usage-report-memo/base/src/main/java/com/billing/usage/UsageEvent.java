package com.billing.usage;

/** One metered use: {@code quantity} units of {@code metric} by {@code customer}. */
public record UsageEvent(String customer, String metric, long quantity) {
}
