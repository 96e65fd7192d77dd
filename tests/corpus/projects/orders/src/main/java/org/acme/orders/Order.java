package org.acme.orders;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * A customer order. Its identity and lines never change; its status moves through
 * {@link Status} under the order's own monitor, so a cancellation racing with a worker
 * that picks the order up resolves to exactly one winner.
 */
public final class Order {

    /** The life cycle of an order. */
    public enum Status {
        NEW, RESERVED, SHIPPED, CANCELLED, FAILED
    }

    private final long id;
    private final String customer;
    private final List<OrderLine> lines;
    private final CompletableFuture<OrderResult> completion = new CompletableFuture<>();
    private Status status = Status.NEW;
    private long updatedAtMillis;

    public Order(long id, String customer, List<OrderLine> lines) {
        if (lines.isEmpty()) {
            throw new IllegalArgumentException("order " + id + " has no lines");
        }
        this.id = id;
        this.customer = Objects.requireNonNull(customer, "customer");
        this.lines = List.copyOf(lines);
        this.updatedAtMillis = System.currentTimeMillis();
    }

    public long id() {
        return id;
    }

    public String customer() {
        return customer;
    }

    public List<OrderLine> lines() {
        return lines;
    }

    /** Completed exactly once, by the worker that processed the order or by a cancellation. */
    public CompletableFuture<OrderResult> completion() {
        return completion;
    }

    public synchronized Status status() {
        return status;
    }

    public synchronized long updatedAtMillis() {
        return updatedAtMillis;
    }

    /**
     * Moves the order from {@code expected} to {@code next}.
     *
     * @return false, changing nothing, when the order is not in {@code expected}
     */
    public synchronized boolean transition(Status expected, Status next) {
        if (status != expected) {
            return false;
        }
        status = next;
        updatedAtMillis = System.currentTimeMillis();
        return true;
    }

    /**
     * Sets the final status. Only the worker that owns the order (it moved it to
     * {@link Status#RESERVED}) calls this.
     */
    synchronized void setStatus(Status next) {
        status = next;
        updatedAtMillis = System.currentTimeMillis();
    }

    @Override
    public String toString() {
        return "Order#" + id + "(" + customer + ", " + lines.size() + " lines)";
    }
}
