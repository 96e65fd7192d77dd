package com.bootkit.lifecycle;

import static org.junit.Assert.assertEquals;

import java.util.Map;
import org.junit.Test;

public class StartupTest {

    @Test
    public void requestsArrivingDuringStartupAreServed() throws Exception {
        Lifecycle lifecycle = new Lifecycle();
        Config config = new Config();
        ServiceRegistry registry = new ServiceRegistry();
        RequestStats stats = new RequestStats();
        Bootstrap bootstrap = new Bootstrap(lifecycle, config, registry);
        RequestHandler handler = new RequestHandler(lifecycle, registry, config, stats);
        String[] answers = new String[2];

        Thread boot = new Thread(() -> bootstrap.start(Map.of("greeting", "welcome")));
        Thread early1 = new Thread(() -> {
            try {
                answers[0] = handler.handle("/products", 10);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        Thread early2 = new Thread(() -> {
            try {
                answers[1] = handler.handle("/cart", 11);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        boot.start();
        early1.start();
        early2.start();
        boot.join();
        early1.join();
        early2.join();

        assertEquals("welcome from catalog", answers[0]);
        assertEquals("welcome from cart", answers[1]);
        assertEquals(Lifecycle.State.RUNNING, lifecycle.state());
        assertEquals(0, lifecycle.waiters());
        assertEquals(2, stats.total());
    }
}
