package com.shopfront.inventory;

import java.util.HashMap;
import java.util.Map;

/**
 * Stock levels of the warehouse. Every {@link StockItem} is guarded by this object's
 * monitor; logging and metrics have their own synchronization and are called outside it
 * where possible.
 */
public class Inventory {
    private final Map<String, StockItem> items = new HashMap<>();
    private final ActivityLog log;
    private final InventoryMetrics metrics;
    private volatile boolean acceptingOrders = true;

    public Inventory(ActivityLog log, InventoryMetrics metrics) {
        this.log = log;
        this.metrics = metrics;
    }

    public void restock(String sku, int qty) {
        if (qty <= 0) {
            throw new IllegalArgumentException("restock of " + qty + " units of " + sku);
        }
        synchronized (this) {
            StockItem item = items.get(sku);
            if (item == null) {
                items.put(sku, new StockItem(sku, qty));
            } else {
                item.available += qty;
                item.restocks++;
            }
        }
        log.record("-", sku, "RESTOCK " + qty);
    }

    /**
     * Reserves {@code qty} units of {@code sku} for an order, or rejects the request when
     * there is not enough stock. Never lets the available stock go below zero.
     */
    public Reservation reserve(String orderId, String sku, int qty) {
        if (!acceptingOrders) {
            metrics.rejected();
            return Reservation.rejected(orderId, sku, "inventory closed");
        }
        metrics.requested(qty);
        synchronized (this) {
            StockItem item = items.get(sku);
            if (item == null || !item.canReserve(qty)) {
                metrics.shortage(sku);
                log.record(orderId, sku, "SHORT " + qty);
                return Reservation.rejected(orderId, sku, "insufficient stock");
            }
            item.reserve(qty);
        }
        metrics.reserved(qty);
        log.record(orderId, sku, "RESERVED " + qty);
        return Reservation.accepted(orderId, sku, qty);
    }

    /** Gives back the units of an accepted reservation (order cancelled). */
    public void release(Reservation r) {
        if (!r.accepted()) {
            return;
        }
        synchronized (this) {
            StockItem item = items.get(r.sku());
            item.release(r.quantity());
        }
        log.record(r.orderId(), r.sku(), "RELEASED " + r.quantity());
    }

    public synchronized int available(String sku) {
        StockItem item = items.get(sku);
        return item == null ? 0 : item.available;
    }

    public synchronized int reserved(String sku) {
        StockItem item = items.get(sku);
        return item == null ? 0 : item.reserved;
    }

    public void close() {
        acceptingOrders = false;
    }
}
