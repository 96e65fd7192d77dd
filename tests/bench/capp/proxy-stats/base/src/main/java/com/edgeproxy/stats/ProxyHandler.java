package com.edgeproxy.stats;

/** Handles one request: rate limit, pick a backend, forward, account, log. */
public class ProxyHandler {
    private final RateLimiter limiter;
    private final BackendPool pool;
    private final StatsRegistry stats;
    private final AccessLog accessLog;
    private volatile boolean draining;
    private long rejected;

    public ProxyHandler(RateLimiter limiter, BackendPool pool, StatsRegistry stats, AccessLog accessLog) {
        this.limiter = limiter;
        this.pool = pool;
        this.stats = stats;
        this.accessLog = accessLog;
    }

    public Response handle(Request r) {
        if (draining || !limiter.tryAcquire(r.client())) {
            synchronized (this) {
                rejected++;
            }
            Response tooMany = new Response(429, 0, 0, "-");
            accessLog.log(r, tooMany);
            return tooMany;
        }
        Backend b = pool.pick();
        Response resp = b.serve(r);
        stats.forRoute(r.route()).record(resp.status(), resp.bytes(), resp.micros());
        accessLog.log(r, resp);
        return resp;
    }

    public void drain() {
        draining = true;
    }

    public synchronized long rejected() {
        return rejected;
    }
}
