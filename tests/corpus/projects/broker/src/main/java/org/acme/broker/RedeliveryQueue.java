package org.acme.broker;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Messages whose delivery failed, to be tried again after a back-off. Retry threads take them
 * in {@link #nextDue()} once due; {@link #awaitQuiet(long)} lets a shutdown wait until nothing
 * is pending or being retried. Everything is guarded by the queue's monitor, on which the
 * retry threads and the callers of awaitQuiet wait for different things.
 */
public final class RedeliveryQueue {

    /** A message to deliver again, the attempt it will be. */
    public record Retry(Message message, String subscriber, int attempt) {
    }

    private final TreeMap<Long, List<Retry>> byDueTime = new TreeMap<>();
    private final long backoffMillis;
    private final int maxAttempts;

    // guarded by this
    private int pending;
    private int inFlight;
    private boolean closed;
    private long givenUp;

    public RedeliveryQueue(long backoffMillis, int maxAttempts) {
        this.backoffMillis = backoffMillis;
        this.maxAttempts = maxAttempts;
    }

    /** Schedules another attempt of a failed delivery; false once it failed too often. */
    public synchronized boolean retryLater(Message message, String subscriber, int failedAttempt) {
        if (closed || failedAttempt >= maxAttempts) {
            givenUp++;
            return false;
        }
        long due = System.currentTimeMillis() + backoffMillis * failedAttempt;
        byDueTime.computeIfAbsent(due, d -> new ArrayList<>()).add(new Retry(message, subscriber, failedAttempt + 1));
        pending++;
        // it may be due before the retry the threads are sleeping for
        notifyAll();
        return true;
    }

    /** Blocks until a retry is due and hands it out; null once the queue is closed. */
    public synchronized Retry nextDue() throws InterruptedException {
        while (true) {
            if (closed) {
                return null;
            }
            if (byDueTime.isEmpty()) {
                wait();
            } else {
                Map.Entry<Long, List<Retry>> first = byDueTime.firstEntry();
                long delay = first.getKey() - System.currentTimeMillis();
                if (delay > 0) {
                    wait(delay);
                } else {
                    Retry retry = first.getValue().remove(0);
                    if (first.getValue().isEmpty()) {
                        byDueTime.remove(first.getKey());
                    }
                    pending--;
                    inFlight++;
                    return retry;
                }
            }
        }
    }

    /** A retry handed out by nextDue() is over, delivered or not. */
    public synchronized void finished() {
        inFlight--;
        if (pending == 0 && inFlight == 0) {
            notifyAll();
        }
    }

    /** Waits until nothing is pending or in flight; false on timeout. */
    public synchronized boolean awaitQuiet(long timeoutMillis) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        while (pending > 0 || inFlight > 0) {
            long left = deadline - System.currentTimeMillis();
            if (left <= 0) {
                return false;
            }
            wait(left);
        }
        return true;
    }

    /** Stops handing out retries; the retry threads return null from nextDue(). */
    public synchronized void close() {
        closed = true;
        notifyAll();
    }

    public synchronized String describe() {
        return "pending=" + pending + " inFlight=" + inFlight + " givenUp=" + givenUp + (closed ? " closed" : "");
    }
}
