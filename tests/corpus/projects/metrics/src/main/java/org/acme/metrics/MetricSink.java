package org.acme.metrics;

import java.io.IOException;

/** Where snapshots go: a file, a socket, a time-series database. Called by the flusher thread only. */
@FunctionalInterface
public interface MetricSink {

    void write(Snapshot snapshot) throws IOException;
}
