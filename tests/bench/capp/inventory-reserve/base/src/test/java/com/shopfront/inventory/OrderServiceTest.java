package com.shopfront.inventory;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.List;
import org.junit.Test;

public class OrderServiceTest {

    @Test
    public void concurrentOrdersNeverOversell() throws Exception {
        ActivityLog log = new ActivityLog(16);
        InventoryMetrics metrics = new InventoryMetrics();
        Inventory inventory = new Inventory(log, metrics);
        inventory.restock("LAMP", 3);
        inventory.restock("DESK", 5);
        inventory.restock("BULB", 10);
        PriceCatalog catalog = new PriceCatalog();
        catalog.setPrice("LAMP", 2_500);
        catalog.setPrice("DESK", 19_900);
        catalog.setPrice("BULB", 450);
        OrderService orders = new OrderService(inventory, catalog, log);

        OrderService.Receipt[] receipts = new OrderService.Receipt[2];
        Thread web = new Thread(() -> receipts[0] = orders.place("web-1",
                List.of(new OrderService.Line("LAMP", 2), new OrderService.Line("DESK", 1), new OrderService.Line("BULB", 2))));
        Thread store = new Thread(() -> receipts[1] = orders.place("store-7",
                List.of(new OrderService.Line("DESK", 1), new OrderService.Line("LAMP", 2), new OrderService.Line("BULB", 2))));
        web.start();
        store.start();
        web.join();
        store.join();

        // Three lamps cannot fill two orders of two: exactly one order is confirmed.
        int lamps = inventory.available("LAMP");
        assertTrue("LAMP stock went negative: " + lamps, lamps >= 0);
        assertEquals(1, orders.confirmed());
        assertEquals(3, lamps + inventory.reserved("LAMP"));
        assertEquals(5, inventory.available("DESK") + inventory.reserved("DESK"));
        assertEquals(1, inventory.reserved("DESK"));
        assertEquals(2, inventory.reserved("BULB"));
        assertTrue(receipts[0].confirmed() != receipts[1].confirmed());
    }
}
