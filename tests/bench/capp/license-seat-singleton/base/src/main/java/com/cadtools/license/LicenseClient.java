package com.cadtools.license;

/**
 * This workstation's license for one feature. The seat is checked out on first use and
 * held for the life of the process: one process, one seat, whatever its thread count.
 */
public class LicenseClient {
    private final LicenseServer server;
    private final Heartbeat heartbeat;
    private final String host;
    private final String feature;
    private Seat seat;

    public LicenseClient(LicenseServer server, Heartbeat heartbeat, String host, String feature) {
        this.server = server;
        this.heartbeat = heartbeat;
        this.host = host;
        this.feature = feature;
    }

    public synchronized Seat seat() {
        if (seat == null) {
            seat = server.checkout(host, feature);
            heartbeat.register(seat);
        }
        return seat;
    }

    public synchronized void shutdown() {
        if (seat != null) {
            server.release(seat);
            seat = null;
        }
    }
}
