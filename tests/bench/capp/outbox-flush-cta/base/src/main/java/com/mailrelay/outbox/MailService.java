package com.mailrelay.outbox;

import java.util.concurrent.atomic.AtomicLong;

/** The API the application calls to send mail. */
public class MailService {
    private final Outbox outbox;
    private final Templates templates;
    private final SentFolder sent;
    private final AtomicLong ids = new AtomicLong(1000);
    private volatile boolean flushOnSend = true;

    public MailService(Outbox outbox, Templates templates, SentFolder sent) {
        this.outbox = outbox;
        this.templates = templates;
        this.sent = sent;
    }

    public long send(String to, String subject, String body) {
        if (to.indexOf('@') < 0) {
            throw new IllegalArgumentException("bad address " + to);
        }
        long id = ids.incrementAndGet();
        outbox.enqueue(new Envelope(id, to, subject, templates.render(subject, body)));
        if (flushOnSend) {
            outbox.flush();
        }
        sent.file(id, to, subject);
        return id;
    }

    public void setFlushOnSend(boolean on) {
        flushOnSend = on;
    }
}
