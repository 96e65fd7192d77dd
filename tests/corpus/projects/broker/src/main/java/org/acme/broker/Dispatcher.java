package org.acme.broker;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The broker's dispatcher thread: moves asynchronously published messages from the
 * inbound ring buffer to their topics.
 *
 * <p>On start it loads the topic aliases; {@link #awaitReady} returns once they are
 * loaded, and the alias table is not changed after that.
 */
final class Dispatcher implements Runnable {

    private static final Logger LOG = Logger.getLogger(Dispatcher.class.getName());
    private static final long POLL_MILLIS = 50;

    private final Broker broker;
    private final RingBuffer<Message> inbound;
    private final Path aliasFile;
    private final CountDownLatch ready = new CountDownLatch(1);
    private final AtomicLong dispatched = new AtomicLong();
    private volatile boolean running = true;
    private boolean paused;
    private Map<String, String> aliases;

    Dispatcher(Broker broker, RingBuffer<Message> inbound, Path aliasFile) {
        this.broker = broker;
        this.inbound = inbound;
        this.aliasFile = aliasFile;
    }

    @Override
    public void run() {
        Map<String, String> table = loadAliases();
        aliases = table;
        ready.countDown();
        try {
            while (running) {
                synchronized (this) {
                    while (paused && running) {
                        wait();
                    }
                }
                Message message = inbound.poll(POLL_MILLIS, TimeUnit.MILLISECONDS);
                if (message != null) {
                    dispatch(message);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        LOG.fine(() -> "dispatcher stopped after " + dispatched.get() + " messages");
    }

    private void dispatch(Message message) throws InterruptedException {
        Topic topic = broker.existingTopic(message.topic());
        if (topic == null) {
            LOG.fine(() -> "no topic for " + message);
            return;
        }
        try {
            topic.publish(message);
            dispatched.incrementAndGet();
        } catch (IllegalStateException deleted) {
            LOG.fine(() -> "topic deleted before " + message + " was dispatched");
        }
    }

    /** Waits until the aliases are loaded. */
    boolean awaitReady(long timeout, TimeUnit unit) throws InterruptedException {
        return ready.await(timeout, unit);
    }

    /** The topic an alias stands for, or the name itself. Only after {@link #awaitReady}. */
    String resolve(String name) {
        return aliases.getOrDefault(name, name);
    }

    /** Holds dispatching, for maintenance; publishing asynchronously still queues. */
    synchronized void pause() {
        paused = true;
    }

    synchronized void resume() {
        paused = false;
        // the dispatcher thread is the only thread that waits on this monitor
        notify();
    }

    void stop() {
        running = false;
        synchronized (this) {
            notify();
        }
    }

    long dispatchedCount() {
        return dispatched.get();
    }

    private Map<String, String> loadAliases() {
        Map<String, String> table = new HashMap<>();
        if (aliasFile == null || !Files.exists(aliasFile)) {
            return table;
        }
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(aliasFile)) {
            properties.load(reader);
        } catch (IOException e) {
            LOG.log(Level.WARNING, "could not read topic aliases from " + aliasFile, e);
            return table;
        }
        for (String alias : properties.stringPropertyNames()) {
            table.put(alias, properties.getProperty(alias).trim());
        }
        return table;
    }
}
