package com.mailrelay.outbox;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;

import org.junit.Test;

public class OutboxTest {

    @Test
    public void concurrentSendersFlushTheSharedOutbox() throws Exception {
        SmtpTransport transport = new SmtpTransport();
        SuppressionList suppression = new SuppressionList();
        suppression.suppress("old@example.org", "hard bounce");
        DeliveryStats stats = new DeliveryStats();
        Outbox outbox = new Outbox(transport, suppression, stats, 10);
        Templates templates = new Templates();
        templates.setFooter("\n-- sent by shop");
        SentFolder sent = new SentFolder(4);
        MailService mail = new MailService(outbox, templates, sent);
        Throwable[] errors = new Throwable[2];

        Thread signup = new Thread(() -> {
            try {
                mail.send("ana@example.com", "Welcome", "Hi Ana");
                mail.send("old@example.org", "Welcome back", "Hi");
                mail.send("cy@example.com", "Welcome", "Hi Cy");
            } catch (Throwable t) {
                errors[0] = t;
            }
        });
        Thread orders = new Thread(() -> {
            try {
                mail.send("ben@example.net", "Your order", "Order 17 shipped");
                mail.send("dee@example.net", "Your order", "Order 18 shipped");
                mail.send("eve@example.net", "Your order", "Order 19 shipped");
            } catch (Throwable t) {
                errors[1] = t;
            }
        });
        signup.start();
        orders.start();
        signup.join();
        orders.join();

        assertNull("signup thread failed", errors[0]);
        assertNull("orders thread failed", errors[1]);
        assertEquals(0, outbox.pending());
        assertEquals(6, stats.queuedCount());
        assertEquals(5, stats.deliveredCount());
        assertEquals(1, stats.suppressedCount());
        assertEquals(2, transport.sentTo("example.com"));
        assertEquals(3, transport.sentTo("example.net"));
        assertEquals(6, stats.flushes());
        assertEquals(6, sent.filed());
        assertEquals(3, templates.compilations());
    }
}
