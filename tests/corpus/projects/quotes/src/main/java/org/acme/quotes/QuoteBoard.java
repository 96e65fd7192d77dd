package org.acme.quotes;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The latest quote per symbol. Feed threads publish under the write lock; the many
 * readers (pricing, risk, the UI) look up under the read lock.
 */
public final class QuoteBoard {
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final Map<String, Quote> latest = new HashMap<>();
    private long updates;
    private long stale;

    /** Keeps the quote unless a newer one for the symbol is already there. */
    public boolean publish(Quote quote) {
        lock.writeLock().lock();
        try {
            Quote current = latest.get(quote.symbol());
            if (current != null && current.sequence() >= quote.sequence()) {
                stale++;
                return false;
            }
            latest.put(quote.symbol(), quote);
            updates++;
            return true;
        } finally {
            lock.writeLock().unlock();
        }
    }

    public Quote latest(String symbol) {
        lock.readLock().lock();
        try {
            return latest.get(symbol);
        } finally {
            lock.readLock().unlock();
        }
    }

    public List<Quote> snapshot() {
        lock.readLock().lock();
        try {
            return new ArrayList<>(latest.values());
        } finally {
            lock.readLock().unlock();
        }
    }

    public void clear() {
        lock.writeLock().lock();
        try {
            latest.clear();
        } finally {
            lock.writeLock().unlock();
        }
    }

    public String describe() {
        lock.readLock().lock();
        try {
            return latest.size() + " symbols, " + updates + " updates, " + stale + " stale";
        } finally {
            lock.readLock().unlock();
        }
    }
}
