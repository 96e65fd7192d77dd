package com.shopfront.inventory;

/** The outcome of reserving stock for one order line. */
public record Reservation(String orderId, String sku, int quantity, boolean accepted, String reason) {

    static Reservation accepted(String orderId, String sku, int quantity) {
        return new Reservation(orderId, sku, quantity, true, "");
    }

    static Reservation rejected(String orderId, String sku, String reason) {
        return new Reservation(orderId, sku, 0, false, reason);
    }
}
