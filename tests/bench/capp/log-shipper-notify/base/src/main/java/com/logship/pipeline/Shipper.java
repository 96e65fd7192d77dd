package com.logship.pipeline;

import java.nio.charset.StandardCharsets;

/** Takes batches from the buffer, encodes them and sends them to the log store. */
public class Shipper {
    private final BatchBuffer buffer;
    private final Transport transport;
    private final PipelineMetrics metrics;
    private int retries;

    public Shipper(BatchBuffer buffer, Transport transport, PipelineMetrics metrics) {
        this.buffer = buffer;
        this.transport = transport;
        this.metrics = metrics;
    }

    /** Ships one batch (waiting for it); returns its id. */
    public long shipOne() throws InterruptedException {
        Batch b = buffer.take();
        byte[] payload = encode(b);
        while (!transport.send(b.id(), payload)) {
            synchronized (this) {
                if (++retries > 3) {
                    throw new IllegalStateException("log store unreachable");
                }
            }
        }
        metrics.shipped(b.bytes());
        return b.id();
    }

    private static byte[] encode(Batch b) {
        return String.join("\n", b.lines()).getBytes(StandardCharsets.UTF_8);
    }

    public synchronized int retries() {
        return retries;
    }
}
