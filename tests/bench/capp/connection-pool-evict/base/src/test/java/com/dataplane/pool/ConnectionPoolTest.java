package com.dataplane.pool;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

public class ConnectionPoolTest {

    @Test
    public void evictionWhileConnectionsAreReturned() throws Exception {
        ManualClock clock = new ManualClock();
        PoolMetrics metrics = new PoolMetrics();
        ConnectionPool pool = new ConnectionPool(2, clock, new QueryLog(16), metrics);
        pool.warmUp(2);
        clock.set(60_000);
        UserRepository users = new UserRepository(pool, metrics);
        UserRepository.Profile[] loaded = new UserRepository.Profile[3];
        int[] evicted = new int[1];

        Thread web = new Thread(() -> {
            try {
                loaded[0] = users.load(7);
                loaded[1] = users.load(8);
                loaded[2] = users.load(12);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        Thread housekeeping = new Thread(() -> evicted[0] = pool.evictIdle(30_000));
        web.start();
        housekeeping.start();
        web.join();
        housekeeping.join();

        assertEquals(new UserRepository.Profile(7, 3, 6), loaded[0]);
        assertEquals(new UserRepository.Profile(8, 3, 6), loaded[1]);
        assertEquals(new UserRepository.Profile(12, 4, 0), loaded[2]);
        assertEquals(6, metrics.queryCount());
        assertEquals(pool.size(), pool.idleCount());
        assertTrue(evicted[0] >= 1 && evicted[0] <= 2);
        assertEquals(evicted[0], metrics.evictedCount());
    }
}
