package org.acme.broker;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;

/**
 * An in-process message broker: named topics, synchronous and asynchronous publishing,
 * and a dispatcher thread for the asynchronous path.
 *
 * <p>Topics live in a concurrent map. The broker's monitor guards only the record of
 * when topics went idle; topics call into the broker while holding their own monitor,
 * so the broker never calls a topic while holding its monitor.
 */
public final class Broker implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(Broker.class.getName());

    private final ConcurrentMap<String, Topic> topics = new ConcurrentHashMap<>();
    private final RingBuffer<Message> inbound;
    private final Dispatcher dispatcher;
    private final Thread dispatcherThread;
    private final AtomicLong sequence = new AtomicLong();
    private final Map<String, Long> idleSince = new HashMap<>();
    private final int retainLimit;

    public Broker(int inboundCapacity, int retainLimit, Path aliasFile) {
        this.retainLimit = retainLimit;
        this.inbound = new RingBuffer<>(inboundCapacity);
        this.dispatcher = new Dispatcher(this, inbound, aliasFile);
        this.dispatcherThread = new Thread(dispatcher, "broker-dispatcher");
        this.dispatcherThread.setDaemon(true);
    }

    /** Starts the dispatcher and waits until it is ready. */
    public void start() throws InterruptedException {
        dispatcherThread.start();
        if (!dispatcher.awaitReady(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("dispatcher did not start within ten seconds");
        }
        LOG.info("broker started");
    }

    /** The topic of that name, created if need be. */
    public Topic topic(String name) {
        Topic topic = topics.get(name);
        if (topic == null) {
            Topic created = new Topic(name, this, retainLimit);
            topic = topics.putIfAbsent(name, created);
            if (topic == null) {
                topic = created;
            }
        }
        return topic;
    }

    /** The topic of that name or alias, or null. */
    Topic existingTopic(String name) {
        return topics.get(dispatcher.resolve(name));
    }

    /**
     * Deletes a topic and cancels its subscriptions.
     *
     * @return false when there was no such topic
     */
    public boolean deleteTopic(String name) {
        Topic topic = topics.remove(name);
        if (topic == null) {
            return false;
        }
        topic.close();
        synchronized (this) {
            idleSince.remove(name);
        }
        return true;
    }

    /** Publishes on the calling thread; returns once every subscription has the message or dropped it. */
    public void publish(String topicName, String payload) throws InterruptedException {
        Topic topic = existingTopic(topicName);
        if (topic == null) {
            throw new IllegalArgumentException("no topic " + topicName);
        }
        topic.publish(new Message(topic.name(), sequence.incrementAndGet(), payload, System.currentTimeMillis()));
    }

    /**
     * Queues a message for the dispatcher.
     *
     * @return false when the inbound buffer is full
     */
    public boolean publishAsync(String topicName, String payload) {
        return inbound.offer(new Message(topicName, sequence.incrementAndGet(), payload, System.currentTimeMillis()));
    }

    /** Queues a message for the dispatcher, waiting while the inbound buffer is full. */
    public void publishQueued(String topicName, String payload) throws InterruptedException {
        inbound.put(new Message(topicName, sequence.incrementAndGet(), payload, System.currentTimeMillis()));
    }

    synchronized void topicActive(Topic topic) {
        idleSince.remove(topic.name());
    }

    synchronized void topicIdle(Topic topic) {
        idleSince.put(topic.name(), System.currentTimeMillis());
    }

    /** Topics without subscribers for at least {@code millis}. */
    public synchronized List<String> idleTopics(long millis) {
        long cutoff = System.currentTimeMillis() - millis;
        List<String> names = new ArrayList<>();
        for (Map.Entry<String, Long> e : idleSince.entrySet()) {
            if (e.getValue() <= cutoff) {
                names.add(e.getKey());
            }
        }
        return names;
    }

    /** One line per topic, for the admin console. */
    public synchronized String describe() {
        StringBuilder out = new StringBuilder();
        for (Topic topic : new TreeMap<>(topics).values()) {
            out.append(topic.name());
            Long since = idleSince.get(topic.name());
            if (since != null) {
                out.append(" idle since ").append(since);
            }
            out.append('\n');
        }
        out.append("inbound: ").append(inbound.size()).append(" queued, ").append(dispatcher.dispatchedCount()).append(" dispatched");
        return out.toString();
    }

    /** Stops the dispatcher, drops what it did not dispatch, and deletes every topic. */
    @Override
    public void close() throws InterruptedException {
        dispatcher.stop();
        dispatcherThread.interrupt();
        dispatcherThread.join(TimeUnit.SECONDS.toMillis(5));
        List<Message> undelivered = new ArrayList<>();
        if (inbound.drainTo(undelivered) > 0) {
            LOG.warning(() -> "dropped " + undelivered.size() + " queued messages on close");
        }
        for (String name : new ArrayList<>(topics.keySet())) {
            deleteTopic(name);
        }
    }
}
