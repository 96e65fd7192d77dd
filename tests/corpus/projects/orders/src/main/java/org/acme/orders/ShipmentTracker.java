package org.acme.orders;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The shipments on their way. Workers dispatch shipped orders; the support console and the
 * carrier webhook look them up from other threads. A shipment is complete before it is put
 * in {@code active} or published as {@code lastDispatched}: readers take no lock.
 */
public final class ShipmentTracker {

    private final ConcurrentMap<Long, Shipment> active = new ConcurrentHashMap<>();
    private final AtomicLong codes = new AtomicLong(100_000);
    private volatile Shipment lastDispatched;

    /** Hands an order's parcels to a carrier and starts tracking them. */
    public Shipment dispatch(Order order, String carrier, int parcels) {
        Shipment shipment = new Shipment(order.id());
        shipment.carrier = carrier;
        shipment.parcels = parcels;
        shipment.trackingCode = carrier.toUpperCase() + "-" + codes.incrementAndGet();
        shipment.dispatchedAtMillis = System.currentTimeMillis();
        active.put(order.id(), shipment);
        lastDispatched = shipment;
        return shipment;
    }

    /** The carrier confirmed the delivery: stop tracking it. */
    public Shipment delivered(long orderId) {
        return active.remove(orderId);
    }

    /** The tracking code of an order's shipment, or null when it is not on its way. */
    public String trackingCode(long orderId) {
        Shipment shipment = active.get(orderId);
        return shipment == null ? null : shipment.trackingCode;
    }

    /** For the support console: one line per shipment on its way. */
    public List<String> describe() {
        List<String> lines = new ArrayList<>();
        for (Shipment s : active.values()) {
            lines.add(s.orderId + " " + s.carrier + " " + s.trackingCode + " x" + s.parcels + " since " + s.dispatchedAtMillis);
        }
        Shipment last = lastDispatched;
        if (last != null) {
            lines.add("last: " + last.orderId + " " + last.trackingCode);
        }
        return lines;
    }
}
