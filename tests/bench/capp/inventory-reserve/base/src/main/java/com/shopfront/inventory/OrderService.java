package com.shopfront.inventory;

import java.util.ArrayList;
import java.util.List;

/**
 * Places orders: prices every line, reserves its stock and, when a line cannot be
 * reserved, cancels the lines already reserved for that order.
 */
public class OrderService {
    /** One line of an order. */
    public record Line(String sku, int quantity) {
    }

    /** The result of placing an order. */
    public record Receipt(String orderId, boolean confirmed, long totalCents, List<Reservation> reservations) {
    }

    private final Inventory inventory;
    private final PriceCatalog catalog;
    private final ActivityLog log;
    private int placed;
    private int confirmed;

    public OrderService(Inventory inventory, PriceCatalog catalog, ActivityLog log) {
        this.inventory = inventory;
        this.catalog = catalog;
        this.log = log;
    }

    public Receipt place(String orderId, List<Line> lines) {
        synchronized (this) {
            placed++;
        }
        List<Reservation> reservations = new ArrayList<>();
        long total = 0;
        for (Line line : lines) {
            long unit = catalog.priceOf(line.sku());
            Reservation r = inventory.reserve(orderId, line.sku(), line.quantity());
            reservations.add(r);
            if (!r.accepted()) {
                for (Reservation done : reservations) {
                    inventory.release(done);
                }
                log.record(orderId, line.sku(), "ORDER REJECTED");
                return new Receipt(orderId, false, 0, reservations);
            }
            total += unit * line.quantity();
        }
        synchronized (this) {
            confirmed++;
        }
        log.record(orderId, "-", "ORDER CONFIRMED " + total);
        return new Receipt(orderId, true, total, reservations);
    }

    public synchronized int placed() {
        return placed;
    }

    public synchronized int confirmed() {
        return confirmed;
    }
}
