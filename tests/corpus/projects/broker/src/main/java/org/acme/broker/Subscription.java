package org.acme.broker;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One subscriber's attachment to a topic: a mailbox and the threads that deliver from it.
 * Publishers put into the mailbox, waiting a little when it is full and dropping the
 * message after that, so one slow subscriber cannot stall a topic for long.
 */
public final class Subscription {

    private static final Logger LOG = Logger.getLogger(Subscription.class.getName());
    private static final long DELIVERY_TIMEOUT_MILLIS = 200;

    private final Topic topic;
    private final Subscriber subscriber;
    private final BoundedBuffer<Message> mailbox;
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicLong delivered = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private volatile boolean cancelled;

    Subscription(Topic topic, Subscriber subscriber, int mailboxSize, int deliveryThreads) {
        this.topic = topic;
        this.subscriber = subscriber;
        this.mailbox = new BoundedBuffer<>(mailboxSize);
        for (int i = 0; i < deliveryThreads; i++) {
            Thread t = new Thread(this::deliveryLoop, "deliver-" + topic.name() + "-" + i);
            t.setDaemon(true);
            threads.add(t);
        }
    }

    /** Starts the delivery threads and hands them the retained messages. */
    void start(List<Message> retained) throws InterruptedException {
        for (Thread t : threads) {
            t.start();
        }
        for (Message m : retained) {
            deliver(m);
        }
    }

    /** Hands a message to the mailbox; called by publishing threads. */
    void deliver(Message message) throws InterruptedException {
        if (cancelled) {
            return;
        }
        try {
            if (!mailbox.offer(message, DELIVERY_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS)) {
                dropped.incrementAndGet();
                LOG.fine(() -> "mailbox full, dropped " + message);
            }
        } catch (IllegalStateException closedMeanwhile) {
            dropped.incrementAndGet();
        }
    }

    private void deliveryLoop() {
        try {
            Message message;
            while ((message = mailbox.take()) != null) {
                try {
                    subscriber.onMessage(message);
                    delivered.incrementAndGet();
                } catch (RuntimeException e) {
                    failures.incrementAndGet();
                    LOG.log(Level.WARNING, "subscriber failed on " + message, e);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops the subscription; messages already in the mailbox are still delivered. */
    public void cancel() {
        cancelled = true;
        mailbox.close();
        topic.unsubscribe(this);
    }

    public long delivered() {
        return delivered.get();
    }

    public long dropped() {
        return dropped.get();
    }

    public int backlog() {
        return mailbox.size();
    }
}
