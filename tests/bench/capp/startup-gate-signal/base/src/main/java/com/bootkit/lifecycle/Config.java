package com.bootkit.lifecycle;

import java.util.HashMap;
import java.util.Map;

/** Configuration loaded at startup and replaced as a whole on reload. */
public class Config {
    private volatile Map<String, String> values = Map.of();
    private int reloads;

    public void load(Map<String, String> source) {
        Map<String, String> copy = new HashMap<>(source);
        copy.putIfAbsent("greeting", "hello");
        values = Map.copyOf(copy);
        synchronized (this) {
            reloads++;
        }
    }

    public String get(String key, String dflt) {
        return values.getOrDefault(key, dflt);
    }

    public synchronized int reloads() {
        return reloads;
    }
}
