package com.eventbus.topics;

import java.util.concurrent.ConcurrentHashMap;

/** Topics by name. A topic is created by its first subscription. */
public class TopicRegistry {
    private final ConcurrentHashMap<String, Topic> topics = new ConcurrentHashMap<>();
    private final AuditTrail audit;
    private final int maxTopics;

    public TopicRegistry(AuditTrail audit, int maxTopics) {
        this.audit = audit;
        this.maxTopics = maxTopics;
    }

    public void subscribe(String topicName, Subscriber s) {
        Topic topic = topics.computeIfAbsent(topicName, name -> {
            if (topics.size() >= maxTopics) {
                throw new IllegalStateException("too many topics");
            }
            audit.record("created " + name);
            return new Topic(name);
        });
        if (topic.add(s)) {
            audit.record("subscribed " + s.id() + " to " + topicName);
        }
    }

    public boolean unsubscribe(String topicName, String subscriberId) {
        Topic topic = topics.get(topicName);
        return topic != null && topic.remove(subscriberId);
    }

    public Topic topic(String name) {
        return topics.get(name);
    }

    public int size() {
        return topics.size();
    }
}
