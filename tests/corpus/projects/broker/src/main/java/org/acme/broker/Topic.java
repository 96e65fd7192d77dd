package org.acme.broker;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A named stream of messages. It keeps the last few messages for late subscribers.
 *
 * <p>The topic's monitor guards the retained messages, the counters and the closed flag,
 * and orders subscribe and unsubscribe: the broker is told that a topic became active or
 * idle while the monitor is held, so those notices arrive in the order they happened.
 * The subscription list is copy-on-write and read without the monitor.
 */
public final class Topic {

    private final String name;
    private final Broker broker;
    private final int retainLimit;
    private final List<Subscription> subscriptions = new CopyOnWriteArrayList<>();
    private final Deque<Message> retained = new ArrayDeque<>();
    private long published;
    private boolean closed;

    Topic(String name, Broker broker, int retainLimit) {
        this.name = name;
        this.broker = broker;
        this.retainLimit = retainLimit;
    }

    public String name() {
        return name;
    }

    /**
     * Attaches a subscriber; it first receives the retained messages.
     *
     * @throws IllegalStateException when the topic was deleted
     */
    public Subscription subscribe(Subscriber subscriber, int mailboxSize, int deliveryThreads) throws InterruptedException {
        Subscription subscription = new Subscription(this, subscriber, Math.max(mailboxSize, retainLimit), deliveryThreads);
        List<Message> replay;
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("topic " + name + " was deleted");
            }
            subscriptions.add(subscription);
            if (subscriptions.size() == 1) {
                broker.topicActive(this);
            }
            replay = new ArrayList<>(retained);
        }
        subscription.start(replay);
        return subscription;
    }

    synchronized void unsubscribe(Subscription subscription) {
        if (subscriptions.remove(subscription) && subscriptions.isEmpty() && !closed) {
            broker.topicIdle(this);
        }
    }

    /** Retains the message and hands it to every subscription; may wait for full mailboxes. */
    void publish(Message message) throws InterruptedException {
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("topic " + name + " was deleted");
            }
            retained.addLast(message);
            if (retained.size() > retainLimit) {
                retained.removeFirst();
            }
            published++;
        }
        for (Subscription subscription : subscriptions) {
            subscription.deliver(message);
        }
    }

    public synchronized long publishedCount() {
        return published;
    }

    public synchronized int retainedCount() {
        return retained.size();
    }

    public int subscriberCount() {
        return subscriptions.size();
    }

    /** Deletes the topic: no more publishing or subscribing; subscriptions are cancelled. */
    void close() {
        synchronized (this) {
            closed = true;
            retained.clear();
        }
        for (Subscription subscription : subscriptions) {
            subscription.cancel();
        }
    }
}
