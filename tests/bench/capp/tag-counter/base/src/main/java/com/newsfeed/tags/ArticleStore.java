package com.newsfeed.tags;

import java.util.LinkedHashMap;
import java.util.Map;

/** Articles by id, in arrival order. Re-published articles replace the old version. */
public class ArticleStore {
    private final Map<String, Article> byId = new LinkedHashMap<>();
    private int republished;

    /** Returns true when the article is new. */
    public synchronized boolean store(Article a) {
        Article old = byId.put(a.id(), a);
        if (old != null) {
            republished++;
            return false;
        }
        return true;
    }

    public synchronized Article get(String id) {
        return byId.get(id);
    }

    public synchronized int size() {
        return byId.size();
    }

    public synchronized int republished() {
        return republished;
    }
}
