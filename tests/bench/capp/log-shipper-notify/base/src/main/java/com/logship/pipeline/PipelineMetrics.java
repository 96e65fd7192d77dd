package com.logship.pipeline;

import java.util.concurrent.atomic.AtomicLong;

/** Counters of the shipping pipeline, as exported to the metrics endpoint. */
public class PipelineMetrics {
    private final AtomicLong recordsIn = new AtomicLong();
    private final AtomicLong recordsFiltered = new AtomicLong();
    private final AtomicLong batchesShipped = new AtomicLong();
    private long bytesShipped;
    private long largestBatch;

    public void recordIn() {
        recordsIn.incrementAndGet();
    }

    public void filtered() {
        recordsFiltered.incrementAndGet();
    }

    public synchronized void shipped(int bytes) {
        batchesShipped.incrementAndGet();
        bytesShipped += bytes;
        if (bytes > largestBatch) {
            largestBatch = bytes;
        }
    }

    public long recordsIn() {
        return recordsIn.get();
    }

    public long recordsFiltered() {
        return recordsFiltered.get();
    }

    public long batchesShipped() {
        return batchesShipped.get();
    }

    public synchronized long bytesShipped() {
        return bytesShipped;
    }
}
