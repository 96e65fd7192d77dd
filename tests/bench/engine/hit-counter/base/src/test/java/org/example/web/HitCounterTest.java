package org.example.web;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

/** Two request threads record 300 hits each: thousands of scheduling points per execution. */
public class HitCounterTest {
    private static final int HITS = 300;

    @Test
    public void everyHitIsCounted() throws Exception {
        HitCounter counter = new HitCounter();
        Thread a = new Thread(() -> {
            for (int i = 0; i < HITS; i++) {
                counter.hit(i % 3 == 0 ? "/home" : "/search");
            }
        });
        Thread b = new Thread(() -> {
            for (int i = 0; i < HITS; i++) {
                counter.hit(i % 5 == 0 ? "/cart" : "/home");
            }
        });
        a.start();
        b.start();
        a.join();
        b.join();
        assertEquals(2 * HITS, counter.total());
    }
}
