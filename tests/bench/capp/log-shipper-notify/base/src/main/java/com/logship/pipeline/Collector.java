package com.logship.pipeline;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/** Reads records, drops those below the level threshold, and hands batches to the buffer. */
public class Collector {
    private final BatchBuffer buffer;
    private final LineFormatter formatter;
    private final PipelineMetrics metrics;
    private final AtomicLong batchIds = new AtomicLong();
    private final int batchSize;
    private volatile int minLevel;

    public Collector(BatchBuffer buffer, LineFormatter formatter, PipelineMetrics metrics, int batchSize, int minLevel) {
        this.buffer = buffer;
        this.formatter = formatter;
        this.metrics = metrics;
        this.batchSize = batchSize;
        this.minLevel = minLevel;
    }

    /** Collects all the records; returns how many batches were handed over. */
    public int collect(List<LogRecord> records) throws InterruptedException {
        List<String> lines = new ArrayList<>();
        int bytes = 0;
        int batches = 0;
        for (LogRecord r : records) {
            metrics.recordIn();
            if (r.level() < minLevel) {
                metrics.filtered();
                continue;
            }
            String line = formatter.format(r);
            lines.add(line);
            bytes += line.length();
            if (lines.size() == batchSize) {
                buffer.put(new Batch(batchIds.incrementAndGet(), List.copyOf(lines), bytes));
                batches++;
                lines.clear();
                bytes = 0;
            }
        }
        if (!lines.isEmpty()) {
            buffer.put(new Batch(batchIds.incrementAndGet(), List.copyOf(lines), bytes));
            batches++;
        }
        return batches;
    }

    public void setMinLevel(int level) {
        minLevel = level;
    }
}
