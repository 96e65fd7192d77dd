package com.eventbus.topics;

import java.util.concurrent.atomic.AtomicLong;

/** Fans a message out to the subscribers of its topic. */
public class Publisher {
    private final TopicRegistry registry;
    private final DeliveryLog log;
    private final AtomicLong published = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private volatile boolean paused;

    public Publisher(TopicRegistry registry, DeliveryLog log) {
        this.registry = registry;
        this.log = log;
    }

    /** Returns the number of subscribers the message reached. */
    public int publish(String topicName, String payload) {
        Topic topic = registry.topic(topicName);
        if (topic == null || paused) {
            dropped.incrementAndGet();
            return 0;
        }
        long seq = topic.nextSequence();
        int reached = 0;
        for (Subscriber s : topic.subscribers()) {
            log.delivered(topicName, seq, s, payload);
            reached++;
        }
        published.incrementAndGet();
        return reached;
    }

    public void pause(boolean p) {
        paused = p;
    }

    public long published() {
        return published.get();
    }

    public long dropped() {
        return dropped.get();
    }
}
