package com.mapserve.tiles;

import java.util.ArrayList;
import java.util.List;

/** The eviction listeners of a cache. Listeners are called with this registry locked. */
public class ListenerRegistry {
    private final List<EvictionListener> listeners = new ArrayList<>();
    private long notifications;

    public synchronized void register(EvictionListener l, TileCache cache) {
        listeners.add(l);
        l.onAttach(cache);
    }

    public synchronized void unregister(EvictionListener l) {
        listeners.remove(l);
    }

    public synchronized void fireEvicted(List<Tile> evicted) {
        for (Tile t : evicted) {
            for (EvictionListener l : listeners) {
                l.onEvicted(t);
                notifications++;
            }
        }
    }

    public synchronized long notifications() {
        return notifications;
    }
}
