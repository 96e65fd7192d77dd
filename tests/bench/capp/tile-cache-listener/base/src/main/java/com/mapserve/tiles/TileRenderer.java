package com.mapserve.tiles;

/** Renders tiles from vector data (here: a deterministic stand-in). */
public class TileRenderer {
    private final String style;
    private volatile boolean highDpi;
    private int renders;
    private long renderedBytes;

    public TileRenderer(String style) {
        this.style = style;
    }

    public Tile render(int zoom, int x, int y) {
        String key = zoom + "/" + x + "/" + y;
        String payload = style + (highDpi ? "@2x:" : ":") + key;
        synchronized (this) {
            renders++;
            renderedBytes += payload.length();
        }
        return new Tile(key, zoom, payload);
    }

    public void setHighDpi(boolean on) {
        highDpi = on;
    }

    public synchronized int renders() {
        return renders;
    }

    public synchronized long renderedBytes() {
        return renderedBytes;
    }
}
