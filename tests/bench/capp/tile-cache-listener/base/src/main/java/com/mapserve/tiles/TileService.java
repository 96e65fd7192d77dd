package com.mapserve.tiles;

import java.util.concurrent.atomic.AtomicLong;

/** Serves tiles: memory cache, then the disk tier if attached, then the renderer. */
public class TileService {
    private final TileCache cache;
    private final TileRenderer renderer;
    private final AtomicLong served = new AtomicLong();
    private volatile DiskSpill disk;

    public TileService(TileCache cache, TileRenderer renderer) {
        this.cache = cache;
        this.renderer = renderer;
    }

    public Tile tile(int zoom, int x, int y) {
        served.incrementAndGet();
        String key = zoom + "/" + x + "/" + y;
        Tile t = cache.get(key);
        if (t != null) {
            return t;
        }
        DiskSpill d = disk;
        if (d != null) {
            t = d.load(key);
        }
        if (t == null) {
            t = renderer.render(zoom, x, y);
        }
        cache.put(t);
        return t;
    }

    /** Attaches a disk tier (done by the admin console at run time). */
    public DiskSpill enableDiskTier() {
        DiskSpill d = new DiskSpill();
        cache.addListener(d);
        disk = d;
        return d;
    }

    public long served() {
        return served.get();
    }
}
