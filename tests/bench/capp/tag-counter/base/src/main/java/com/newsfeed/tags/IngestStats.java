package com.newsfeed.tags;

import java.util.concurrent.atomic.AtomicLong;

/** Throughput counters of the ingest pipeline. */
public class IngestStats {
    private final AtomicLong articles = new AtomicLong();
    private final AtomicLong tags = new AtomicLong();
    private int maxTagsPerArticle;
    private volatile long lastIngestMillis;

    public void articleIngested(int tagCount, long nowMillis) {
        articles.incrementAndGet();
        tags.addAndGet(tagCount);
        synchronized (this) {
            if (tagCount > maxTagsPerArticle) {
                maxTagsPerArticle = tagCount;
            }
        }
        lastIngestMillis = nowMillis;
    }

    public long articles() {
        return articles.get();
    }

    public long tags() {
        return tags.get();
    }

    public synchronized int maxTagsPerArticle() {
        return maxTagsPerArticle;
    }

    public long lastIngestMillis() {
        return lastIngestMillis;
    }
}
