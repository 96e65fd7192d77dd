package com.mailrelay.outbox;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The connection to the relay. Here it records what it was asked to send. */
public class SmtpTransport {
    private final List<Long> sent = new ArrayList<>();
    private final Map<String, Integer> perDomain = new HashMap<>();
    private int connections;
    private boolean connected;

    public synchronized void send(Envelope e) {
        if (!connected) {
            connected = true;
            connections++;
        }
        sent.add(e.id());
        perDomain.merge(e.domain(), 1, Integer::sum);
    }

    public synchronized void disconnect() {
        connected = false;
    }

    public synchronized List<Long> sent() {
        return new ArrayList<>(sent);
    }

    public synchronized int sentTo(String domain) {
        return perDomain.getOrDefault(domain, 0);
    }

    public synchronized int connections() {
        return connections;
    }
}
