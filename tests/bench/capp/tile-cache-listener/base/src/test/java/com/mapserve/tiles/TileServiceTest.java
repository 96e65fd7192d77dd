package com.mapserve.tiles;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

public class TileServiceTest {

    @Test
    public void enablingDiskTierWhileServingTiles() throws Exception {
        TileCache cache = new TileCache(2);
        TileRenderer renderer = new TileRenderer("osm");
        TileService service = new TileService(cache, renderer);
        Tile[] seen = new Tile[6];
        DiskSpill[] disk = new DiskSpill[1];

        Thread viewer = new Thread(() -> {
            seen[0] = service.tile(12, 2048, 1361);
            seen[1] = service.tile(12, 2049, 1361);
            seen[2] = service.tile(12, 2050, 1361);
            seen[3] = service.tile(12, 2050, 1362);
        });
        Thread admin = new Thread(() -> {
            disk[0] = service.enableDiskTier();
            seen[4] = service.tile(13, 4096, 2722);
            seen[5] = service.tile(13, 4097, 2722);
        });
        viewer.start();
        admin.start();
        viewer.join();
        admin.join();

        assertEquals("osm:12/2048/1361", seen[0].payload());
        assertEquals("osm:12/2050/1361", seen[2].payload());
        assertEquals("osm:12/2050/1362", seen[3].payload());
        assertEquals("osm:13/4096/2722", seen[4].payload());
        assertEquals("osm:13/4097/2722", seen[5].payload());
        assertEquals(2, cache.size());
        assertEquals(4, cache.evictions());
        assertEquals(6, renderer.renders());
        assertEquals(0, cache.hits());
        assertTrue(disk[0].spilled() <= 4);
    }
}
