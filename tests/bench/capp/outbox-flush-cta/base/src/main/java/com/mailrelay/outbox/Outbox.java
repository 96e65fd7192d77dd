package com.mailrelay.outbox;

import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Messages accepted but not yet handed to the relay. Any request thread may flush the
 * outbox; several may do so at the same time.
 */
public class Outbox {
    private final ConcurrentLinkedQueue<Envelope> pending = new ConcurrentLinkedQueue<>();
    private final SmtpTransport transport;
    private final SuppressionList suppression;
    private final DeliveryStats stats;
    private final int maxBatch;

    public Outbox(SmtpTransport transport, SuppressionList suppression, DeliveryStats stats, int maxBatch) {
        this.transport = transport;
        this.suppression = suppression;
        this.stats = stats;
        this.maxBatch = maxBatch;
    }

    public void enqueue(Envelope e) {
        pending.offer(e);
        stats.queued();
    }

    /** Hands up to {@code maxBatch} pending messages to the relay; returns how many. */
    public int flush() {
        int sent = 0;
        Envelope e;
        while (sent < maxBatch && (e = pending.poll()) != null) {
            if (suppression.isSuppressed(e.recipient())) {
                stats.suppressed();
                continue;
            }
            transport.send(e);
            stats.delivered();
            sent++;
        }
        stats.flushed(sent);
        return sent;
    }

    public int pending() {
        return pending.size();
    }
}
