package org.acme.broker;

import java.util.Objects;

/** A published message. Immutable, so it is shared freely between threads. */
public final class Message {

    private final String topic;
    private final long sequence;
    private final String payload;
    private final long publishedAtMillis;

    public Message(String topic, long sequence, String payload, long publishedAtMillis) {
        this.topic = Objects.requireNonNull(topic, "topic");
        this.sequence = sequence;
        this.payload = Objects.requireNonNull(payload, "payload");
        this.publishedAtMillis = publishedAtMillis;
    }

    public String topic() {
        return topic;
    }

    public long sequence() {
        return sequence;
    }

    public String payload() {
        return payload;
    }

    public long publishedAtMillis() {
        return publishedAtMillis;
    }

    @Override
    public String toString() {
        return topic + "#" + sequence;
    }
}
