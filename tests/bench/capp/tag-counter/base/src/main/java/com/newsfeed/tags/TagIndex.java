package com.newsfeed.tags;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** How many articles carry each tag. Updated concurrently by the ingest workers. */
public class TagIndex {
    private final ConcurrentHashMap<String, Integer> counts = new ConcurrentHashMap<>();

    public void add(String tag) {
        counts.merge(tag, 1, Integer::sum);
    }

    public int count(String tag) {
        return counts.getOrDefault(tag, 0);
    }

    public int distinctTags() {
        return counts.size();
    }

    /** The {@code n} most used tags, most used first, ties by name. */
    public List<String> top(int n) {
        List<Map.Entry<String, Integer>> entries = new ArrayList<>(counts.entrySet());
        entries.sort((a, b) -> b.getValue().equals(a.getValue())
                ? a.getKey().compareTo(b.getKey())
                : Integer.compare(b.getValue(), a.getValue()));
        List<String> out = new ArrayList<>();
        for (int i = 0; i < entries.size() && i < n; i++) {
            out.add(entries.get(i).getKey());
        }
        return out;
    }
}
