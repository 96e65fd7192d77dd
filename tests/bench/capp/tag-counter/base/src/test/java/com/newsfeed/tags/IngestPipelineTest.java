package com.newsfeed.tags;

import static org.junit.Assert.assertEquals;

import java.util.List;
import java.util.Map;
import org.junit.Test;

public class IngestPipelineTest {

    @Test
    public void concurrentIngestCountsEveryTag() throws Exception {
        TagIndex index = new TagIndex();
        IngestStats stats = new IngestStats();
        TrendingCache trending = new TrendingCache(index, 3);
        IngestPipeline pipeline = new IngestPipeline(new ArticleStore(),
                new TagNormalizer(Map.of("jdk", "java", "unit-testing", "testing")), index, trending, stats);

        Thread newsDesk = new Thread(() -> {
            pipeline.ingest(new Article("a-1", "JDK 17 in production", List.of("#JDK", "jvm")), 1_000);
            pipeline.ingest(new Article("a-3", "Garbage collectors compared", List.of("GC")), 1_010);
            pipeline.ingest(new Article("a-5", "Kotlin coroutines", List.of("Kotlin", "#Async")), 1_030);
        });
        Thread techDesk = new Thread(() -> {
            pipeline.ingest(new Article("a-2", "Testing concurrent code", List.of("java", "Unit-Testing")), 1_005);
            pipeline.ingest(new Article("a-4", "Loom", List.of("jvm")), 1_020);
            pipeline.ingest(new Article("a-6", "Native images", List.of("GraalVM", "startup")), 1_040);
        });
        newsDesk.start();
        techDesk.start();
        newsDesk.join();
        techDesk.join();

        assertEquals(2, index.count("java"));
        assertEquals(2, index.count("jvm"));
        assertEquals(1, index.count("gc"));
        assertEquals(1, index.count("testing"));
        assertEquals(1, index.count("kotlin"));
        assertEquals(1, index.count("graalvm"));
        assertEquals(8, index.distinctTags());
        assertEquals(6, stats.articles());
        assertEquals(10, stats.tags());
        assertEquals(List.of("java", "jvm", "async"), trending.trending());
    }
}
