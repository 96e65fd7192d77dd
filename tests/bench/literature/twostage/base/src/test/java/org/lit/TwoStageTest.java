package org.lit;

import static org.junit.Assert.assertEquals;

/**
 * SCTBench's twostage (CS.twostage_N_bad) in Java: each writer sets {@code data1} in one
 * critical section and {@code data2 = data1 + 1} in a second one; a reader that finds
 * {@code data1} set expects {@code data2} to follow it. Between a writer's two sections the
 * reader sees the first stage without the second.
 */
public class TwoStageTest {
    private final Object m1 = new Object();
    private final Object m2 = new Object();
    private int data1;
    private int data2;

    private void run(int writers) throws InterruptedException {
        Thread[] threads = new Thread[writers + 1];
        for (int i = 0; i < writers; i++) {
            threads[i] = new Thread(() -> {
                synchronized (m1) {
                    data1 = 1;
                }
                synchronized (m2) {
                    data2 = data1 + 1;
                }
            });
        }
        int[] seen = {0, 0};
        threads[writers] = new Thread(() -> {
            synchronized (m1) {
                if (data1 == 0) {
                    return;
                }
                seen[0] = data1;
            }
            synchronized (m2) {
                seen[1] = data2;
            }
        });
        for (Thread t : threads) {
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        if (seen[0] != 0) {
            assertEquals("the second stage follows the first", seen[0] + 1, seen[1]);
        }
    }

    @org.junit.Test
    public void threeWriters() throws InterruptedException {
        run(3);
    }

    @org.junit.Test
    public void twentyWriters() throws InterruptedException {
        run(20);
    }
}
