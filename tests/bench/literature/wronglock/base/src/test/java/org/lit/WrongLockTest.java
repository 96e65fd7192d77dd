package org.lit;

import static org.junit.Assert.assertEquals;

/**
 * SCTBench's wronglock (CS.wronglock_bad) in Java: the writer increments under one lock,
 * the readers read twice under another, expecting the same value both times. The two locks
 * exclude nothing, so a write between a reader's two reads breaks it.
 */
public class WrongLockTest {
    private final Object writeLock = new Object();
    private final Object readLock = new Object();
    private int value;

    private void run(int readers) throws InterruptedException {
        Thread[] threads = new Thread[readers + 1];
        threads[0] = new Thread(() -> {
            synchronized (writeLock) {
                value++;
            }
        });
        int[] changed = {0};
        for (int i = 1; i <= readers; i++) {
            threads[i] = new Thread(() -> {
                synchronized (readLock) {
                    int first = value;
                    if (value != first) {
                        changed[0]++;
                    }
                }
            });
        }
        for (Thread t : threads) {
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        assertEquals("a reader saw the value change under its lock", 0, changed[0]);
    }

    @org.junit.Test
    public void fourReaders() throws InterruptedException {
        run(4);
    }

    @org.junit.Test
    public void twentyReaders() throws InterruptedException {
        run(20);
    }
}
