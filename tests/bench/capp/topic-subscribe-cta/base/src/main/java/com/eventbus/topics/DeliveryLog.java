package com.eventbus.topics;

import java.util.ArrayList;
import java.util.List;

/** What was delivered to whom (the stand-in for the outbound HTTP calls). */
public class DeliveryLog {
    private final List<String> deliveries = new ArrayList<>();
    private int failures;

    public synchronized void delivered(String topic, long seq, Subscriber s, String payload) {
        deliveries.add(topic + "#" + seq + "->" + s.id() + ":" + payload);
    }

    public synchronized void failed() {
        failures++;
    }

    public synchronized List<String> to(String subscriberId) {
        List<String> out = new ArrayList<>();
        for (String d : deliveries) {
            if (d.contains("->" + subscriberId + ":")) {
                out.add(d);
            }
        }
        return out;
    }

    public synchronized int size() {
        return deliveries.size();
    }
}
