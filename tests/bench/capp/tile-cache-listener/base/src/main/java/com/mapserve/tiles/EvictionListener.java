package com.mapserve.tiles;

/** Told when the cache drops a tile. Called while the listener registry is locked. */
public interface EvictionListener {
    /** Called once, when the listener is registered. */
    void onAttach(TileCache cache);

    void onEvicted(Tile tile);
}
