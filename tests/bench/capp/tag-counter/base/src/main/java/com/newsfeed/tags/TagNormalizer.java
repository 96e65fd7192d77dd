package com.newsfeed.tags;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Turns editor-entered tags into canonical ones: case, leading '#', synonyms. Results are
 * cached, since the same few tags come back all day.
 */
public class TagNormalizer {
    private final Map<String, String> synonyms;
    private final Map<String, String> cache = new HashMap<>();
    private int hits;
    private int misses;

    public TagNormalizer(Map<String, String> synonyms) {
        this.synonyms = Map.copyOf(synonyms);
    }

    public synchronized String normalize(String raw) {
        String cached = cache.get(raw);
        if (cached != null) {
            hits++;
            return cached;
        }
        misses++;
        String t = raw.trim();
        if (t.startsWith("#")) {
            t = t.substring(1);
        }
        t = t.toLowerCase(Locale.ROOT);
        t = synonyms.getOrDefault(t, t);
        cache.put(raw, t);
        return t;
    }

    public synchronized int hits() {
        return hits;
    }

    public synchronized int misses() {
        return misses;
    }
}
