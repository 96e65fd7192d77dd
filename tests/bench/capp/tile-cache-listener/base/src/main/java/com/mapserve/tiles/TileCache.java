package com.mapserve.tiles;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A small LRU cache of rendered tiles; listeners hear about evicted tiles. */
public class TileCache {
    private final LinkedHashMap<String, Tile> tiles = new LinkedHashMap<>(16, 0.75f, true);
    private final ListenerRegistry listeners = new ListenerRegistry();
    private final int capacity;
    private long hits;
    private long misses;
    private long evictions;

    public TileCache(int capacity) {
        this.capacity = capacity;
    }

    public synchronized Tile get(String key) {
        Tile t = tiles.get(key);
        if (t == null) {
            misses++;
        } else {
            hits++;
        }
        return t;
    }

    public void put(Tile tile) {
        List<Tile> evicted = new ArrayList<>();
        synchronized (this) {
            tiles.put(tile.key(), tile);
            Iterator<Map.Entry<String, Tile>> it = tiles.entrySet().iterator();
            while (tiles.size() > capacity && it.hasNext()) {
                evicted.add(it.next().getValue());
                it.remove();
                evictions++;
            }
        }
        if (!evicted.isEmpty()) {
            listeners.fireEvicted(evicted);
        }
    }

    public void addListener(EvictionListener l) {
        listeners.register(l, this);
    }

    public void removeListener(EvictionListener l) {
        listeners.unregister(l);
    }

    public int capacity() {
        return capacity;
    }

    public synchronized int size() {
        return tiles.size();
    }

    public synchronized long hits() {
        return hits;
    }

    public synchronized long misses() {
        return misses;
    }

    public synchronized long evictions() {
        return evictions;
    }
}
