package com.edgeproxy.stats;

/** An incoming HTTP request, reduced to what the proxy looks at. */
public record Request(String client, String method, String path) {

    /** The route of a request: its first path segment ("/api/users" is "/api"). */
    public String route() {
        int second = path.indexOf('/', 1);
        return second < 0 ? path : path.substring(0, second);
    }
}
