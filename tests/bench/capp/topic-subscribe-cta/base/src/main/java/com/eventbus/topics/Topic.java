package com.eventbus.topics;

import java.util.ArrayList;
import java.util.List;

/** A named topic and its subscribers. */
public class Topic {
    private final String name;
    private final List<Subscriber> subscribers = new ArrayList<>();
    private long published;

    public Topic(String name) {
        this.name = name;
    }

    public String name() {
        return name;
    }

    public synchronized boolean add(Subscriber s) {
        for (Subscriber existing : subscribers) {
            if (existing.id().equals(s.id())) {
                return false;
            }
        }
        subscribers.add(s);
        return true;
    }

    public synchronized boolean remove(String subscriberId) {
        return subscribers.removeIf(s -> s.id().equals(subscriberId));
    }

    public synchronized List<Subscriber> subscribers() {
        return new ArrayList<>(subscribers);
    }

    synchronized long nextSequence() {
        return ++published;
    }
}
