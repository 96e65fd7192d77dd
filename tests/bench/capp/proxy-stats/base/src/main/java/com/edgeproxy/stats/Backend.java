package com.edgeproxy.stats;

/** An upstream server. Here it answers from the path alone, like a canned upstream. */
public class Backend {
    private final String name;
    private volatile boolean healthy = true;
    private int served;

    public Backend(String name) {
        this.name = name;
    }

    public String name() {
        return name;
    }

    public Response serve(Request r) {
        synchronized (this) {
            served++;
        }
        int status = r.path().contains("fail") ? 503 : 200;
        long bytes = r.path().length() * 16L;
        long micros = 200 + r.path().length() * 10L;
        return new Response(status, bytes, micros, name);
    }

    public boolean healthy() {
        return healthy;
    }

    public void markHealthy(boolean h) {
        healthy = h;
    }

    public synchronized int served() {
        return served;
    }
}
