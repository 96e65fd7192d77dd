package com.logship.pipeline;

import static org.junit.Assert.assertEquals;

import java.util.List;
import org.junit.Test;

public class ShipperTest {

    @Test
    public void twoShippersDrainTheCollector() throws Exception {
        BatchBuffer buffer = new BatchBuffer(1);
        PipelineMetrics metrics = new PipelineMetrics();
        Transport transport = new Transport();
        Collector collector = new Collector(buffer, new LineFormatter(), metrics, 2, 1);
        List<LogRecord> records = List.of(
                new LogRecord(1, "api", "GET /orders 200"),
                new LogRecord(0, "api", "cache lookup"),
                new LogRecord(2, "db", "slow query 1200ms"),
                new LogRecord(3, "api", "POST /orders 500"),
                new LogRecord(1, "db", "pool resized to 8"));
        long[] shipped = new long[2];

        Thread collect = new Thread(() -> {
            try {
                collector.collect(records);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        Thread shipperA = new Thread(() -> {
            try {
                shipped[0] = new Shipper(buffer, transport, metrics).shipOne();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        Thread shipperB = new Thread(() -> {
            try {
                shipped[1] = new Shipper(buffer, transport, metrics).shipOne();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        collect.start();
        shipperA.start();
        shipperB.start();
        collect.join();
        shipperA.join();
        shipperB.join();

        assertEquals(3, shipped[0] + shipped[1]);
        assertEquals(2, transport.delivered().size());
        assertEquals(5, metrics.recordsIn());
        assertEquals(1, metrics.recordsFiltered());
        assertEquals(2, metrics.batchesShipped());
        assertEquals(0, buffer.size());
    }
}
