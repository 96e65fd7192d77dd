package org.acme.orders;

/**
 * A parcel handed to a carrier. Its fields are plain: a shipment is filled by the thread
 * that dispatches it and only then made visible to others (through the tracker's map or
 * its volatile {@code lastDispatched}), which order the fills before every later read.
 */
public final class Shipment {

    final long orderId;
    String carrier;
    String trackingCode;
    long dispatchedAtMillis;
    int parcels;

    Shipment(long orderId) {
        this.orderId = orderId;
    }

    public long orderId() {
        return orderId;
    }

    public String carrier() {
        return carrier;
    }

    public String trackingCode() {
        return trackingCode;
    }

    public long dispatchedAtMillis() {
        return dispatchedAtMillis;
    }

    public int parcels() {
        return parcels;
    }
}
