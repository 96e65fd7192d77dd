package org.acme.orders;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The stock of one warehouse, with reservations.
 *
 * <p>All state is guarded by the inventory's monitor. A reservation holds stock for an
 * order until it is committed (the order shipped) or released (it failed or was
 * cancelled). Threads can wait for stock with {@link #awaitAvailable}; every change that
 * frees stock wakes them all, since each waits for its own item and quantity.
 */
public class Inventory {

    private static final Logger LOG = Logger.getLogger(Inventory.class.getName());

    /** Told when the free stock of an item drops to its threshold or below. */
    public interface LowStockListener {
        void onLowStock(String warehouse, String sku, int free);
    }

    private final String warehouse;
    private final int lowStockThreshold;
    private final Map<String, Integer> onHand = new HashMap<>();
    private final Map<String, Integer> reserved = new HashMap<>();
    private long reservationCount;
    private LowStockListener listener;

    public Inventory(String warehouse, int lowStockThreshold) {
        this.warehouse = warehouse;
        this.lowStockThreshold = lowStockThreshold;
    }

    public String warehouse() {
        return warehouse;
    }

    public synchronized void setLowStockListener(LowStockListener listener) {
        this.listener = listener;
    }

    /** Adds stock and wakes the threads waiting for stock. */
    public void restock(String sku, int quantity) {
        if (quantity <= 0) {
            throw new IllegalArgumentException("quantity must be positive: " + quantity);
        }
        synchronized (this) {
            int total = onHand.merge(sku, quantity, Integer::sum);
            notifyAll();
            LOG.log(Level.FINE, "{0}: {1} restocked to {2}", new Object[] {warehouse, sku, total});
        }
    }

    /** Free stock of an item: on hand and not reserved. */
    public synchronized int available(String sku) {
        return onHand.getOrDefault(sku, 0) - reserved.getOrDefault(sku, 0);
    }

    /**
     * Reserves {@code quantity} units of an item if that much is free.
     *
     * @return false, reserving nothing, when there is not enough free stock
     */
    public boolean reserve(String sku, int quantity) {
        int free;
        LowStockListener toTell;
        synchronized (this) {
            free = available(sku);
            if (free < quantity) {
                return false;
            }
            reserved.merge(sku, quantity, Integer::sum);
            reservationCount++;
            free -= quantity;
            toTell = free <= lowStockThreshold ? listener : null;
        }
        // Outside the monitor: a listener may well call back into this inventory.
        if (toTell != null) {
            toTell.onLowStock(warehouse, sku, free);
        }
        return true;
    }

    /** Ships reserved stock: it leaves the reservation and the shelf. */
    public synchronized void commit(String sku, int quantity) {
        int held = reserved.getOrDefault(sku, 0);
        if (held < quantity) {
            throw new IllegalStateException("commit of " + quantity + " x " + sku + " but only " + held + " reserved");
        }
        decrement(reserved, sku, quantity);
        decrement(onHand, sku, quantity);
    }

    /** Gives reserved stock back and wakes the threads waiting for stock. */
    public synchronized void release(String sku, int quantity) {
        decrement(reserved, sku, quantity);
        notifyAll();
    }

    /**
     * Waits until {@code quantity} units of an item are free, or the timeout passes.
     *
     * @return whether the stock is there; it is not reserved
     */
    public synchronized boolean awaitAvailable(String sku, int quantity, long timeoutMillis) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        while (available(sku) < quantity) {
            long remaining = deadline - System.currentTimeMillis();
            if (remaining <= 0) {
                return false;
            }
            wait(remaining);
        }
        return true;
    }

    /**
     * Moves free stock to another warehouse. The two warehouses are updated one after the
     * other and never both locked at once, so opposite transfers cannot deadlock; for a
     * moment the stock is in neither.
     *
     * @return false, moving nothing, when there is not enough free stock here
     */
    public boolean transferTo(Inventory target, String sku, int quantity) {
        if (target == this) {
            throw new IllegalArgumentException("transfer to the same warehouse " + warehouse);
        }
        synchronized (this) {
            if (available(sku) < quantity) {
                return false;
            }
            decrement(onHand, sku, quantity);
        }
        target.restock(sku, quantity);
        LOG.info(() -> "moved " + quantity + " x " + sku + " from " + warehouse + " to " + target.warehouse());
        return true;
    }

    public synchronized long reservationCount() {
        return reservationCount;
    }

    /** Free stock per item, sorted by item. */
    public synchronized Map<String, Integer> snapshot() {
        Map<String, Integer> free = new TreeMap<>();
        for (Map.Entry<String, Integer> e : onHand.entrySet()) {
            free.put(e.getKey(), e.getValue() - reserved.getOrDefault(e.getKey(), 0));
        }
        return Collections.unmodifiableMap(free);
    }

    private static void decrement(Map<String, Integer> counts, String sku, int quantity) {
        counts.computeIfPresent(sku, (k, v) -> v > quantity ? v - quantity : null);
    }
}
