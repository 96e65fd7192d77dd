package com.cadtools.license;

import java.util.ArrayList;
import java.util.List;

/** Keeps checked-out seats alive: the server reclaims seats that stop beating. */
public class Heartbeat {
    private final List<Seat> seats = new ArrayList<>();
    private volatile long lastBeat;
    private int beats;

    public synchronized void register(Seat s) {
        seats.add(s);
    }

    public void beat(long now) {
        synchronized (this) {
            beats += seats.size();
        }
        lastBeat = now;
    }

    public synchronized int registered() {
        return seats.size();
    }

    public long lastBeat() {
        return lastBeat;
    }
}
