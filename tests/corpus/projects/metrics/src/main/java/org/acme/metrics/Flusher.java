package org.acme.metrics;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Writes a resetting snapshot of the registry to a sink at a fixed interval, on its own
 * thread, and on demand through {@link #flushNow}.
 *
 * <p>The flusher thread and the callers of {@code flushNow} wait on one monitor,
 * {@code signal}, for different things: the thread for a request or the interval, the
 * callers for the flush that covers their request. Every change is announced with
 * {@code notifyAll()}.
 */
public final class Flusher implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(Flusher.class.getName());

    private final MetricRegistry registry;
    private final Object signal = new Object();
    private final CompletableFuture<Void> stopped = new CompletableFuture<>();
    /** Written by the flusher thread only. */
    private final AtomicLong flushes = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private volatile Snapshot last;

    private MetricSink sink;
    private long intervalMillis;
    private Thread thread;

    private long requested;
    private long completed;
    private boolean closing;

    public Flusher(MetricRegistry registry) {
        this.registry = registry;
    }

    /** Starts the flusher thread. */
    public synchronized void start(MetricSink sink, long intervalMillis) {
        if (thread != null) {
            throw new IllegalStateException("flusher already started");
        }
        if (intervalMillis <= 0) {
            throw new IllegalArgumentException("interval must be positive: " + intervalMillis);
        }
        this.sink = sink;
        this.intervalMillis = intervalMillis;
        thread = new Thread(this::run, "metrics-flusher");
        thread.setDaemon(true);
        thread.start();
        LOG.info(() -> "flushing metrics every " + intervalMillis + " ms");
    }

    private void run() {
        try {
            boolean stop = false;
            while (!stop) {
                long target;
                synchronized (signal) {
                    long deadline = System.currentTimeMillis() + intervalMillis;
                    long remaining = intervalMillis;
                    while (requested == completed && !closing && remaining > 0) {
                        signal.wait(remaining);
                        remaining = deadline - System.currentTimeMillis();
                    }
                    target = requested;
                    stop = closing;
                }
                flushOnce();
                synchronized (signal) {
                    completed = Math.max(completed, target);
                    signal.notifyAll();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            stopped.complete(null);
        }
    }

    private void flushOnce() {
        Snapshot snapshot = registry.snapshot(true);
        try {
            sink.write(snapshot);
        } catch (IOException e) {
            failures.incrementAndGet();
            LOG.log(Level.WARNING, "could not write metrics", e);
        }
        last = snapshot;
        flushes.set(flushes.get() + 1);
    }

    /**
     * Asks for a flush and waits until a flush that started after the request is done.
     *
     * @throws TimeoutException when that did not happen within the timeout
     */
    public void flushNow(long timeoutMillis) throws InterruptedException, TimeoutException {
        synchronized (signal) {
            long ticket = ++requested;
            signal.notifyAll();
            long deadline = System.currentTimeMillis() + timeoutMillis;
            while (completed < ticket) {
                long remaining = deadline - System.currentTimeMillis();
                if (remaining <= 0) {
                    throw new TimeoutException("no metrics flush within " + timeoutMillis + " ms");
                }
                signal.wait(remaining);
            }
        }
    }

    /** The last snapshot written, or null before the first flush. */
    public Snapshot lastSnapshot() {
        return last;
    }

    public long flushCount() {
        return flushes.get();
    }

    public long failureCount() {
        return failures.get();
    }

    /** Flushes one last time and stops the thread, waiting up to five seconds. */
    @Override
    public void close() throws InterruptedException, TimeoutException {
        synchronized (this) {
            if (thread == null) {
                return;
            }
        }
        synchronized (signal) {
            closing = true;
            signal.notifyAll();
        }
        try {
            stopped.get(5, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException("flusher thread failed", e.getCause());
        }
    }
}
