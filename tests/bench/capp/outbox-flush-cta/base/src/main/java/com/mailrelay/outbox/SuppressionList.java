package com.mailrelay.outbox;

import java.util.concurrent.ConcurrentHashMap;

/** Addresses that bounced hard or unsubscribed: never mailed again. */
public class SuppressionList {
    private final ConcurrentHashMap<String, String> reasons = new ConcurrentHashMap<>();

    public void suppress(String address, String reason) {
        reasons.put(address.toLowerCase(), reason);
    }

    public boolean isSuppressed(String address) {
        return reasons.containsKey(address.toLowerCase());
    }
}
