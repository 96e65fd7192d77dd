package org.acme.sessions;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;

/**
 * Serves requests of logged-in users: throttles the client, waits for a permit of the gate,
 * looks the session up and answers from the response cache. {@link #start} runs on a
 * start-up thread while request threads may already call {@link #handle}: the routes are
 * published by the volatile {@code ready} flag, written after them. The counts of destroyed
 * sessions are guarded by the server's monitor.
 */
public final class SessionServer implements SessionListener {

    private static final Logger LOG = Logger.getLogger(SessionServer.class.getName());

    /** Renders the response to a request of a session. */
    @FunctionalInterface
    public interface Handler {
        String render(Session session, String path);
    }

    public record Response(int status, String body) {
    }

    private final SessionStore store;
    private final ExpiryReaper reaper;
    private final ResponseCache cache;
    private final RequestGate gate;
    private final RequestThrottle throttle;
    private final AtomicLong served = new AtomicLong();
    private final AtomicLong created = new AtomicLong();

    private Map<String, Handler> routes;
    private volatile boolean ready;

    // guarded by this
    private final Map<String, Long> destroyedByReason = new HashMap<>();

    private SessionServer(SessionStore store, ExpiryReaper reaper, ResponseCache cache, RequestGate gate, RequestThrottle throttle) {
        this.store = store;
        this.reaper = reaper;
        this.cache = cache;
        this.gate = gate;
        this.throttle = throttle;
    }

    /** A server listening to its store's sessions; registered once it is fully constructed. */
    public static SessionServer create(int maxPerUser, long ttlMillis, int maxConcurrent, int limitPerWindow) {
        SessionStore store = new SessionStore(maxPerUser, ttlMillis);
        SessionServer server = new SessionServer(store, new ExpiryReaper(store, Math.max(1000, ttlMillis / 4)),
                new ResponseCache(10_000, 30_000), new RequestGate(maxConcurrent), new RequestThrottle(limitPerWindow));
        store.addListener(server);
        return server;
    }

    /** Installs the routes and starts the reaper; requests are served from then on. */
    public void start(Map<String, Handler> routeTable) {
        routes = new HashMap<>(routeTable);
        reaper.start();
        ready = true;
        LOG.info("serving " + routeTable.size() + " routes");
    }

    public Response handle(String client, String sessionId, String path) throws InterruptedException {
        if (!ready) {
            return new Response(503, "starting");
        }
        if (!throttle.allow(client)) {
            return new Response(429, "slow down");
        }
        if (!gate.acquire(200, TimeUnit.MILLISECONDS)) {
            return new Response(503, "busy");
        }
        try {
            Handler handler = routes.get(path);
            if (handler == null) {
                return new Response(404, path);
            }
            Session session = store.get(sessionId);
            if (session == null) {
                return new Response(401, "log in again");
            }
            String body = cache.getOrLoad(session.id() + ":" + path, key -> handler.render(session, path));
            served.incrementAndGet();
            return new Response(200, body);
        } finally {
            gate.release();
        }
    }

    @Override
    public void sessionCreated(Session session) {
        created.incrementAndGet();
    }

    @Override
    public synchronized void sessionDestroyed(Session session, String reason) {
        destroyedByReason.merge(reason, 1L, Long::sum);
        cache.invalidatePrefix(session.id() + ":");
    }

    public synchronized String status() {
        StringBuilder sb = new StringBuilder();
        sb.append(ready ? "ready" : "not ready");
        sb.append(" sessions=").append(store.size());
        sb.append(" users=").append(store.userCount());
        sb.append(" created=").append(created.get());
        sb.append(" destroyed=").append(new TreeMap<>(destroyedByReason));
        sb.append(" active=").append(gate.active());
        sb.append(" served=").append(served.get());
        sb.append(" cache: ").append(cache.stats());
        SweepReport last = reaper.lastReport();
        if (last != null) {
            sb.append(" last ").append(last);
        }
        return sb.toString();
    }

    /** Stops taking requests and waits for the ones being served; false on timeout. */
    public boolean stop(long timeoutMillis) throws InterruptedException {
        ready = false;
        gate.close();
        reaper.stop();
        return gate.awaitDrained(timeoutMillis, TimeUnit.MILLISECONDS);
    }
}
