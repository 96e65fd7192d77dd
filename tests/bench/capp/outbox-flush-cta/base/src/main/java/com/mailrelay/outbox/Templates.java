package com.mailrelay.outbox;

import java.util.HashMap;
import java.util.Map;

/** Message templates by subject, compiled once and cached; renders greeting and footer. */
public class Templates {
    private final Map<String, String> compiled = new HashMap<>();
    private volatile String footer = "";
    private int compilations;

    public String render(String subject, String body) {
        String header;
        synchronized (this) {
            header = compiled.get(subject);
            if (header == null) {
                header = "[" + subject.toUpperCase() + "]\n";
                compiled.put(subject, header);
                compilations++;
            }
        }
        return header + body + footer;
    }

    public void setFooter(String f) {
        footer = f;
    }

    public synchronized int compilations() {
        return compilations;
    }
}
