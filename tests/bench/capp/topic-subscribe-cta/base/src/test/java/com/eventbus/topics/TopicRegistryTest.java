package com.eventbus.topics;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class TopicRegistryTest {

    @Test
    public void servicesSubscribingConcurrentlyBothReceive() throws Exception {
        AuditTrail audit = new AuditTrail();
        TopicRegistry registry = new TopicRegistry(audit, 8);
        DeliveryLog deliveries = new DeliveryLog();
        Publisher publisher = new Publisher(registry, deliveries);
        Subscriber billing = new Subscriber("billing", "http://billing/events");
        Subscriber shipping = new Subscriber("shipping", "http://shipping/events");

        Thread billingStartup = new Thread(() -> {
            registry.subscribe("orders", billing);
            registry.subscribe("payments", billing);
            publisher.publish("payments", "{\"id\":1,\"state\":\"captured\"}");
        });
        Thread shippingStartup = new Thread(() -> {
            registry.subscribe("orders", shipping);
            registry.subscribe("returns", shipping);
            publisher.publish("returns", "{\"id\":3,\"reason\":\"damaged\"}");
            publisher.publish("refunds", "{\"id\":3}");
            registry.subscribe("shipments", shipping);
            publisher.publish("shipments", "{\"id\":17,\"carrier\":\"dhl\"}");
        });
        billingStartup.start();
        shippingStartup.start();
        billingStartup.join();
        shippingStartup.join();

        assertEquals(4, registry.size());
        assertEquals(2, registry.topic("orders").subscribers().size());
        assertEquals(4, audit.count("created "));
        assertEquals(2, publisher.publish("orders", "{\"id\":7}"));
        assertEquals(3, deliveries.to("shipping").size());
        assertEquals(2, deliveries.to("billing").size());
        assertEquals(1, publisher.dropped());
    }
}
