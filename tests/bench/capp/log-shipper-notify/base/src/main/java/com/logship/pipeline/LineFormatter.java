package com.logship.pipeline;

import java.util.HashMap;
import java.util.Map;

/** Formats records as "LEVEL [source] message", with the per-source prefix cached. */
public class LineFormatter {
    private static final String[] LEVELS = {"DEBUG", "INFO", "WARN", "ERROR"};
    private final Map<String, String> prefixes = new HashMap<>();
    private int formatted;

    public synchronized String format(LogRecord r) {
        String prefix = prefixes.get(r.source());
        if (prefix == null) {
            prefix = " [" + r.source() + "] ";
            prefixes.put(r.source(), prefix);
        }
        formatted++;
        return LEVELS[r.level()] + prefix + r.message();
    }

    public synchronized int formatted() {
        return formatted;
    }
}
