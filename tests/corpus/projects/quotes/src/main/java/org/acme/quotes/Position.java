package org.acme.quotes;

import java.util.concurrent.locks.StampedLock;

/**
 * A position in one instrument. Fills come from the execution thread; risk threads read
 * the quantity and average price often, so they take read stamps.
 */
public final class Position {
    private final String symbol;
    private final StampedLock stamps = new StampedLock();
    private long quantity;
    private long averageMicros;

    public Position(String symbol) {
        this.symbol = symbol;
    }

    public String symbol() {
        return symbol;
    }

    /** A fill of `qty` (negative for a sale) at `priceMicros`. */
    public void fill(long qty, long priceMicros) {
        long stamp = stamps.writeLock();
        try {
            long newQuantity = quantity + qty;
            if (newQuantity != 0 && Long.signum(qty) == Long.signum(quantity + qty)) {
                averageMicros = (averageMicros * quantity + priceMicros * qty) / newQuantity;
            } else if (newQuantity == 0) {
                averageMicros = 0;
            }
            quantity = newQuantity;
        } finally {
            stamps.unlockWrite(stamp);
        }
    }

    public long marketValueMicros(Quote quote) {
        long stamp = stamps.readLock();
        try {
            return quantity * quote.midMicros();
        } finally {
            stamps.unlockRead(stamp);
        }
    }

    public long unrealizedMicros(Quote quote) {
        long stamp = stamps.readLock();
        try {
            return quantity * (quote.midMicros() - averageMicros);
        } finally {
            stamps.unlockRead(stamp);
        }
    }
}
