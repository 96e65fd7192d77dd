package org.acme.quotes;

import java.util.Properties;

/** Settings of the feed, loaded once from system properties on first use. */
public final class FeedConfig {
    private static FeedConfig instance;

    private final int depth;
    private final long staleAfterMillis;

    private FeedConfig(Properties p) {
        this.depth = Integer.parseInt(p.getProperty("quotes.depth", "10"));
        this.staleAfterMillis = Long.parseLong(p.getProperty("quotes.staleAfterMillis", "5000"));
    }

    public static synchronized FeedConfig get() {
        if (instance == null) {
            instance = new FeedConfig(System.getProperties());
        }
        return instance;
    }

    public int depth() {
        return depth;
    }

    public long staleAfterMillis() {
        return staleAfterMillis;
    }
}
