package com.mailrelay.outbox;

import java.util.ArrayDeque;

/** The most recent messages accepted for sending, shown in the admin UI. */
public class SentFolder {
    private final ArrayDeque<String> recent = new ArrayDeque<>();
    private final int capacity;
    private long filed;

    public SentFolder(int capacity) {
        this.capacity = capacity;
    }

    public synchronized void file(long id, String to, String subject) {
        if (recent.size() == capacity) {
            recent.removeFirst();
        }
        recent.addLast(id + " " + to + " " + subject);
        filed++;
    }

    public synchronized long filed() {
        return filed;
    }

    public synchronized String latest() {
        return recent.peekLast();
    }
}
