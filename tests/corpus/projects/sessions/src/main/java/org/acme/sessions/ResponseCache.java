package org.acme.sessions;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Function;

/**
 * A least-recently-used cache of rendered responses, with a time to live. The map is in
 * access order: {@code get} moves the entry it finds, so it changes the map and takes the
 * write lock; only calls that leave the order alone take the read lock. At most one load
 * per key runs at a time; the others wait for its future.
 */
public final class ResponseCache {

    private record Entry(String body, long expiresAt) {
    }

    private final int maxEntries;
    private final long ttlMillis;
    private final ReentrantReadWriteLock rw = new ReentrantReadWriteLock();
    // guarded by rw
    private final LinkedHashMap<String, Entry> entries;
    private final ConcurrentHashMap<String, CompletableFuture<String>> loading = new ConcurrentHashMap<>();
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final LongAdder loads = new LongAdder();

    public ResponseCache(int maxEntries, long ttlMillis) {
        this.maxEntries = maxEntries;
        this.ttlMillis = ttlMillis;
        this.entries = new LinkedHashMap<>(16, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Entry> eldest) {
                return size() > ResponseCache.this.maxEntries;
            }
        };
    }

    /** The cached body, or null when there is none or it expired. */
    public String get(String key) {
        long now = System.currentTimeMillis();
        rw.writeLock().lock(); // get() reorders an access-ordered map
        try {
            Entry e = entries.get(key);
            if (e == null) {
                return null;
            }
            if (e.expiresAt() <= now) {
                entries.remove(key);
                return null;
            }
            return e.body();
        } finally {
            rw.writeLock().unlock();
        }
    }

    public void put(String key, String body) {
        Entry e = new Entry(body, System.currentTimeMillis() + ttlMillis);
        rw.writeLock().lock();
        try {
            entries.put(key, e);
        } finally {
            rw.writeLock().unlock();
        }
    }

    /** The cached body, or the loader's, loaded once however many requests ask at the same time. */
    public String getOrLoad(String key, Function<String, String> loader) {
        String cached = get(key);
        if (cached != null) {
            hits.increment();
            return cached;
        }
        misses.increment();
        CompletableFuture<String> mine = new CompletableFuture<>();
        CompletableFuture<String> running = loading.putIfAbsent(key, mine);
        if (running != null) {
            return running.join();
        }
        try {
            loads.increment();
            String body = loader.apply(key);
            put(key, body);
            mine.complete(body);
            return body;
        } catch (RuntimeException e) {
            mine.completeExceptionally(e);
            throw e;
        } finally {
            loading.remove(key, mine);
        }
    }

    /** Drops every entry whose key starts with the prefix (a session's responses). */
    public int invalidatePrefix(String prefix) {
        int dropped = 0;
        rw.writeLock().lock();
        try {
            for (Iterator<String> it = entries.keySet().iterator(); it.hasNext(); ) {
                if (it.next().startsWith(prefix)) {
                    it.remove();
                    dropped++;
                }
            }
        } finally {
            rw.writeLock().unlock();
        }
        return dropped;
    }

    public int size() {
        rw.readLock().lock();
        try {
            return entries.size();
        } finally {
            rw.readLock().unlock();
        }
    }

    public String stats() {
        return "hits=" + hits.sum() + " misses=" + misses.sum() + " loads=" + loads.sum() + " size=" + size();
    }
}
