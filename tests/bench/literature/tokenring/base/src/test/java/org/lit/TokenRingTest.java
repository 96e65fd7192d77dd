package org.lit;

import static org.junit.Assert.assertEquals;

/**
 * A token ring: N stations take turns, each waiting for the token, counting a round, and
 * passing the token on. The bug: a station passes the token before it counts its round, so
 * the next station's count can overlap with it and a round is lost.
 */
public class TokenRingTest {
    private final Object ring = new Object();
    private int holder;
    private int rounds;

    private void station(int id, int stations, int laps) {
        for (int lap = 0; lap < laps; lap++) {
            synchronized (ring) {
                while (holder != id) {
                    try {
                        ring.wait();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
                holder = (id + 1) % stations; // passed on too early
                ring.notifyAll();
            }
            int counted = rounds;
            rounds = counted + 1;
        }
    }

    private void run(int stations, int laps) throws InterruptedException {
        Thread[] threads = new Thread[stations];
        for (int i = 0; i < stations; i++) {
            int id = i;
            threads[i] = new Thread(() -> station(id, stations, laps));
        }
        for (Thread t : threads) {
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        assertEquals("every station's rounds are counted", stations * laps, rounds);
    }

    @org.junit.Test
    public void fourStationsTwoLaps() throws InterruptedException {
        run(4, 2);
    }

    @org.junit.Test
    public void twelveStationsOneLap() throws InterruptedException {
        run(12, 1);
    }
}
