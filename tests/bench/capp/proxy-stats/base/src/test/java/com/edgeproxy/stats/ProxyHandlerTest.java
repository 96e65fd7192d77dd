package com.edgeproxy.stats;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;

import java.util.List;
import org.junit.Test;

public class ProxyHandlerTest {

    @Test
    public void routeStatsCountEveryRequest() throws Exception {
        StatsRegistry stats = new StatsRegistry();
        AccessLog log = new AccessLog(8);
        ProxyHandler proxy = new ProxyHandler(new RateLimiter(10),
                new BackendPool(List.of(new Backend("b1"), new Backend("b2"))), stats, log);

        Thread worker1 = new Thread(() -> {
            proxy.handle(new Request("10.0.0.1", "GET", "/api/users"));
            proxy.handle(new Request("10.0.0.1", "GET", "/static/logo.png"));
            proxy.handle(new Request("10.0.0.1", "GET", "/health"));
        });
        Thread worker2 = new Thread(() -> {
            proxy.handle(new Request("10.0.0.2", "GET", "/api/orders"));
            proxy.handle(new Request("10.0.0.2", "POST", "/api/fail"));
            proxy.handle(new Request("10.0.0.2", "GET", "/account/profile"));
            proxy.handle(new Request("10.0.0.2", "GET", "/search/suggest"));
        });
        worker1.start();
        worker2.start();
        worker1.join();
        worker2.join();

        RouteStats api = stats.forRoute("/api");
        assertEquals(3, api.requests());
        assertEquals(1, api.serverErrors());
        assertEquals((10 + 11 + 9) * 16, api.bytesOut());
        assertArrayEquals(new int[] {0, 3, 0, 0, 0}, api.latencyHistogram());
        assertEquals(1, stats.forRoute("/static").requests());
        assertEquals(1, stats.forRoute("/health").requests());
        assertEquals(1, stats.forRoute("/account").requests());
        assertEquals(1, stats.forRoute("/search").requests());
        assertEquals(5, stats.routeCount());
        assertEquals(7, log.lines());
    }
}
