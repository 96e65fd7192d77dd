package com.newsfeed.tags;

import java.util.LinkedHashSet;
import java.util.Set;

/** Takes articles from the editorial feed into the store, the tag index and the trends. */
public class IngestPipeline {
    private final ArticleStore store;
    private final TagNormalizer normalizer;
    private final TagIndex index;
    private final TrendingCache trending;
    private final IngestStats stats;
    private volatile boolean paused;

    public IngestPipeline(ArticleStore store, TagNormalizer normalizer, TagIndex index, TrendingCache trending, IngestStats stats) {
        this.store = store;
        this.normalizer = normalizer;
        this.index = index;
        this.trending = trending;
        this.stats = stats;
    }

    /** Returns false when the article was a re-publication (its tags are not counted twice). */
    public boolean ingest(Article article, long nowMillis) {
        if (paused) {
            throw new IllegalStateException("ingest paused");
        }
        if (!store.store(article)) {
            return false;
        }
        Set<String> tags = new LinkedHashSet<>();
        for (String raw : article.tags()) {
            tags.add(normalizer.normalize(raw));
        }
        for (String tag : tags) {
            index.add(tag);
        }
        stats.articleIngested(tags.size(), nowMillis);
        trending.invalidate();
        return true;
    }

    public void pause() {
        paused = true;
    }
}
