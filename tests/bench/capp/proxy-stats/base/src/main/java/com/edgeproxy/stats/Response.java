package com.edgeproxy.stats;

/** What a backend answered. */
public record Response(int status, long bytes, long micros, String backend) {
}
