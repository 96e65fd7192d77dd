package com.shopfront.inventory;

/**
 * Stock level of one SKU. Mutable state is guarded by the {@link Inventory} that owns the
 * item: every read and write happens while holding the inventory's monitor.
 */
final class StockItem {
    final String sku;
    int available;
    int reserved;
    int restocks;

    StockItem(String sku, int available) {
        this.sku = sku;
        this.available = available;
    }

    boolean canReserve(int qty) {
        return available >= qty;
    }

    void reserve(int qty) {
        available -= qty;
        reserved += qty;
    }

    void release(int qty) {
        reserved -= qty;
        available += qty;
    }

    @Override
    public String toString() {
        return sku + "[available=" + available + ", reserved=" + reserved + "]";
    }
}
