package org.lit;

import static org.junit.Assert.assertTrue;

import org.junit.Test;

/**
 * SCTBench's reorder (CS.reorder_N_bad) in Java: setters write {@code a = 1} then
 * {@code b = -1}; a checker started after them expects to see both or neither. It sees one
 * when it runs between the two writes of the first setter to get there, before any setter
 * finished: the more setters, the rarer that is.
 */
public class ReorderTest {
    private volatile int a;
    private volatile int b;

    private void run(int setters) throws InterruptedException {
        Thread[] threads = new Thread[setters + 1];
        for (int i = 0; i < setters; i++) {
            threads[i] = new Thread(() -> {
                a = 1;
                b = -1;
            });
        }
        boolean[] torn = new boolean[1];
        threads[setters] = new Thread(() -> {
            if (!((a == 0 && b == 0) || (a == 1 && b == -1))) {
                torn[0] = true;
            }
        });
        for (Thread t : threads) {
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        assertTrue("the checker saw a = 1 without b = -1", !torn[0]);
    }

    @Test
    public void threeSetters() throws InterruptedException {
        run(3);
    }

    @Test
    public void twentySetters() throws InterruptedException {
        run(20);
    }
}
