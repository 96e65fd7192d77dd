package com.edgeproxy.stats;

/** The last access-log lines, kept in a fixed ring for the admin page. */
public class AccessLog {
    private final String[] ring;
    private int next;
    private long lines;

    public AccessLog(int size) {
        this.ring = new String[size];
    }

    public synchronized void log(Request r, Response resp) {
        ring[next] = r.client() + " " + r.method() + " " + r.path() + " " + resp.status() + " " + resp.bytes();
        next = (next + 1) % ring.length;
        lines++;
    }

    public synchronized long lines() {
        return lines;
    }

    public synchronized String last() {
        return ring[(next + ring.length - 1) % ring.length];
    }
}
