package com.dataplane.pool;

import java.util.ArrayList;
import java.util.List;

/** The statements executed, with the connection that ran them (slow-query analysis). */
public class QueryLog {
    private final List<String> lines = new ArrayList<>();
    private final int max;
    private int truncated;

    public QueryLog(int max) {
        this.max = max;
    }

    public synchronized void log(int connectionId, String sql) {
        if (lines.size() >= max) {
            truncated++;
            return;
        }
        lines.add("#" + connectionId + " " + sql);
    }

    public synchronized int size() {
        return lines.size();
    }

    public synchronized int truncated() {
        return truncated;
    }
}
