package com.logship.pipeline;

import java.util.ArrayList;
import java.util.List;

/** The connection to the log store. Here: an in-memory sink that remembers what arrived. */
public class Transport {
    private final List<Long> delivered = new ArrayList<>();
    private long payloadBytes;
    private volatile boolean connected = true;

    public synchronized boolean send(long batchId, byte[] payload) {
        if (!connected) {
            return false;
        }
        delivered.add(batchId);
        payloadBytes += payload.length;
        return true;
    }

    public synchronized List<Long> delivered() {
        return new ArrayList<>(delivered);
    }

    public synchronized long payloadBytes() {
        return payloadBytes;
    }

    public void disconnect() {
        connected = false;
    }
}
