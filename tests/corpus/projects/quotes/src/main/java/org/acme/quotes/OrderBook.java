package org.acme.quotes;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/** Resting bids for one symbol, matched by the engine thread and read by market-data threads. */
public final class OrderBook {

    /** A resting bid. */
    public static final class Bid {
        final long id;
        final long priceMicros;
        long size;

        Bid(long id, long priceMicros, long size) {
            this.id = id;
            this.priceMicros = priceMicros;
            this.size = size;
        }
    }

    private final ReentrantLock lock = new ReentrantLock();
    @GuardedBy("lock")
    private final List<Bid> bids = new ArrayList<>();
    @GuardedBy("lock")
    private long nextId;

    public long add(long priceMicros, long size) {
        lock.lock();
        try {
            Bid bid = new Bid(nextId++, priceMicros, size);
            int at = 0;
            while (at < bids.size() && bids.get(at).priceMicros >= priceMicros) {
                at++;
            }
            bids.add(at, bid);
            return bid.id;
        } finally {
            lock.unlock();
        }
    }

    /** Sells into the best bids; returns the size filled. */
    public long sell(long size) {
        lock.lock();
        try {
            long filled = 0;
            Iterator<Bid> it = bids.iterator();
            while (it.hasNext() && filled < size) {
                Bid best = it.next();
                long take = Math.min(best.size, size - filled);
                best.size -= take;
                filled += take;
                if (best.size == 0) {
                    it.remove();
                }
            }
            return filled;
        } finally {
            lock.unlock();
        }
    }

    public long totalSize() {
        lock.lock();
        try {
            long total = 0;
            for (Bid b : bids) {
                total += b.size;
            }
            return total;
        } finally {
            lock.unlock();
        }
    }

    public boolean cancel(long id) {
        lock.lock();
        try {
            return bids.removeIf(b -> b.id == id);
        } finally {
            lock.unlock();
        }
    }

    /** The number of price levels; the caller holds the lock. */
    @GuardedBy("lock")
    int levels() {
        int levels = 0;
        long last = -1;
        for (Bid b : bids) {
            if (b.priceMicros != last) {
                levels++;
                last = b.priceMicros;
            }
        }
        return levels;
    }

    public String describe() {
        lock.lock();
        try {
            return bids.size() + " bids on " + levels() + " levels";
        } finally {
            lock.unlock();
        }
    }
}
