package com.mapserve.tiles;

/** A rendered map tile. */
public record Tile(String key, int zoom, String payload) {
}
