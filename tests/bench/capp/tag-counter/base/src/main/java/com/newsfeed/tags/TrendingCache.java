package com.newsfeed.tags;

import java.util.List;

/** The "trending tags" box of the home page, recomputed only after new articles. */
public class TrendingCache {
    private final TagIndex index;
    private final int size;
    private volatile long version;
    private long computedVersion = -1;
    private List<String> computed = List.of();
    private int recomputations;

    public TrendingCache(TagIndex index, int size) {
        this.index = index;
        this.size = size;
    }

    public synchronized void invalidate() {
        version++;
    }

    public synchronized List<String> trending() {
        long v = version;
        if (v != computedVersion) {
            computed = index.top(size);
            computedVersion = v;
            recomputations++;
        }
        return computed;
    }

    public synchronized int recomputations() {
        return recomputations;
    }
}
