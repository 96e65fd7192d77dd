package com.mapserve.tiles;

import java.util.LinkedHashMap;
import java.util.Map;

/** Keeps evicted tiles in a second, larger tier ("disk") so they need not be re-rendered. */
public class DiskSpill implements EvictionListener {
    private final Map<String, Tile> spilled = new LinkedHashMap<>();
    private int budget;
    private int dropped;

    @Override
    public void onAttach(TileCache cache) {
        int size = cache.size();
        synchronized (this) {
            // The disk tier holds four times what memory holds, less what memory holds now.
            budget = Math.max(1, 4 * cache.capacity() - size);
        }
    }

    @Override
    public synchronized void onEvicted(Tile tile) {
        if (spilled.size() >= budget) {
            dropped++;
            return;
        }
        spilled.put(tile.key(), tile);
    }

    public synchronized Tile load(String key) {
        return spilled.get(key);
    }

    public synchronized int spilled() {
        return spilled.size();
    }

    public synchronized int dropped() {
        return dropped;
    }
}
