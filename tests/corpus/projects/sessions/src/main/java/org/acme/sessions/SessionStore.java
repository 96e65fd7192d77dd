package org.acme.sessions;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Logger;

/**
 * The sessions by id, and the ids of each user's sessions. {@code sessions} is read without
 * a lock; it is only changed together with {@code byUser}, under {@code indexLock}. A user
 * has at most {@code maxPerUser} sessions.
 */
public final class SessionStore {

    private static final Logger LOG = Logger.getLogger(SessionStore.class.getName());

    private final ConcurrentHashMap<String, Session> sessions = new ConcurrentHashMap<>();
    private final Object indexLock = new Object();
    // guarded by indexLock
    private final Map<String, Set<String>> byUser = new HashMap<>();
    private final CopyOnWriteArrayList<SessionListener> listeners = new CopyOnWriteArrayList<>();
    private final SecureRandom random = new SecureRandom();
    private final int maxPerUser;
    private final long ttlMillis;

    public SessionStore(int maxPerUser, long ttlMillis) {
        this.maxPerUser = maxPerUser;
        this.ttlMillis = ttlMillis;
    }

    public void addListener(SessionListener listener) {
        listeners.addIfAbsent(listener);
    }

    private String newId() {
        byte[] bytes = new byte[16];
        random.nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    /** Creates a session for the user; null when the user already has the maximum. */
    public Session create(String user) {
        Session session = new Session(newId(), user, System.currentTimeMillis());
        synchronized (indexLock) {
            Set<String> ids = byUser.computeIfAbsent(user, u -> new LinkedHashSet<>());
            if (ids.size() >= maxPerUser) {
                return null;
            }
            ids.add(session.id());
            sessions.put(session.id(), session);
            LOG.fine("created session " + session.id() + " for " + user + ", " + ids.size() + " in all");
        }
        for (SessionListener l : listeners) {
            l.sessionCreated(session);
        }
        return session;
    }

    /** The valid session with this id, its access recorded; null if there is none or it expired. */
    public Session get(String id) {
        Session session = sessions.get(id);
        if (session == null) {
            return null;
        }
        if (!session.touch(System.currentTimeMillis(), ttlMillis)) {
            destroy(session, "expired");
            return null;
        }
        return session;
    }

    /** Expires the session if it is idle; true if this call expired it. */
    boolean expireIfIdle(Session session, long now) {
        if (!session.expireIfIdle(now, ttlMillis)) {
            return false;
        }
        destroy(session, "expired");
        return true;
    }

    public void invalidate(String id) {
        Session session = sessions.get(id);
        if (session != null) {
            destroy(session, "logout");
        }
    }

    /** Logs the user out everywhere; returns how many sessions were destroyed. */
    public int invalidateUser(String user) {
        List<Session> victims = new ArrayList<>();
        synchronized (indexLock) {
            Set<String> ids = byUser.get(user);
            if (ids != null) {
                for (String id : ids) {
                    Session s = sessions.get(id);
                    if (s != null) {
                        victims.add(s);
                    }
                }
            }
        }
        for (Session s : victims) {
            destroy(s, "logout");
        }
        return victims.size();
    }

    /** Invalidates the session and drops it from the store; the listeners hear of it once. */
    private void destroy(Session session, String reason) {
        session.invalidate();
        boolean removed;
        synchronized (indexLock) {
            removed = sessions.remove(session.id(), session);
            if (removed) {
                Set<String> ids = byUser.get(session.user());
                if (ids != null && ids.remove(session.id()) && ids.isEmpty()) {
                    byUser.remove(session.user());
                }
            }
        }
        if (removed) {
            for (SessionListener l : listeners) {
                l.sessionDestroyed(session, reason);
            }
        }
    }

    public int sessionCount(String user) {
        synchronized (indexLock) {
            Set<String> ids = byUser.get(user);
            return ids == null ? 0 : ids.size();
        }
    }

    public int userCount() {
        synchronized (indexLock) {
            return byUser.size();
        }
    }

    public int size() {
        return sessions.size();
    }

    /** The sessions now in the store, for the reaper. */
    List<Session> snapshot() {
        return new ArrayList<>(sessions.values());
    }
}
